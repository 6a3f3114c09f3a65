package controlplane

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	networkingv1 "kubecore.io/api/networking/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/registry/core/service"
	"kubecore.io/kubecore/pkg/registry/rest"
)

func TestDefaultServiceCIDR(t *testing.T) {
	in, _ := start(t, Config{ServiceCIDR: "10.0.0.0/24"})
	ctx := context.Background()
	cidrs := servedStorage(t, in, "networking.k8s.io", "servicecidrs").(rest.Getter)
	obj, err := cidrs.Get(ctx, "kubernetes", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc := obj.(*networkingv1.ServiceCIDR)
	if !slices.Equal(sc.Spec.CIDRs, []string{"10.0.0.0/24"}) {
		t.Errorf("cidrs %v", sc.Spec.CIDRs)
	}
	if len(sc.Status.Conditions) != 1 || sc.Status.Conditions[0].Type != "Ready" || sc.Status.Conditions[0].Status != metav1.ConditionTrue {
		t.Errorf("conditions %+v", sc.Status.Conditions)
	}
	// A deleted default range comes back ready.
	if _, _, err := servedStorage(t, in, "networking.k8s.io", "servicecidrs").(rest.GracefulDeleter).Delete(ctx, "kubernetes", nil, &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := in.ReconcileServiceCIDR(ctx); err != nil {
		t.Fatal(err)
	}
	obj, err = cidrs.Get(ctx, "kubernetes", &metav1.GetOptions{})
	if err != nil || len(obj.(*networkingv1.ServiceCIDR).Status.Conditions) != 1 {
		t.Fatalf("recreated ServiceCIDR: %v %+v", err, obj)
	}
}

// TestServiceAllocationRepair leaks a cluster IP and a node port (a
// service removed from etcd behind the API server's back) and loses an
// IPAddress, and checks that the repair fixes each.
func TestServiceAllocationRepair(t *testing.T) {
	in, srv := start(t, Config{ServiceCIDR: "10.0.0.0/24"})
	ctx := apirequest.WithNamespace(context.Background(), "default")
	services := servedStorage(t, in, "", "services").(*service.REST)
	addresses := servedStorage(t, in, "networking.k8s.io", "ipaddresses")
	getIP := func(name string) (*networkingv1.IPAddress, error) {
		obj, err := addresses.(rest.Getter).Get(ctx, name, &metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return obj.(*networkingv1.IPAddress), nil
	}
	create := func(name string, nodePort int32) *corev1.Service {
		t.Helper()
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80, NodePort: nodePort}}}}
		in.Scheme.Default(svc)
		out, err := services.Create(ctx, svc, nil, &metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create service %s: %v", name, err)
		}
		return out.(*corev1.Service)
	}

	kept := create("kept", 0)
	a, err := getIP(kept.Spec.ClusterIP)
	if err != nil || a.Spec.ParentRef.Name != "kept" || a.Spec.ParentRef.Namespace != "default" || a.Spec.ParentRef.Resource != "services" {
		t.Fatalf("IPAddress of kept: %v %+v", err, a)
	}
	// A dry run allocates nothing.
	dry := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "dry"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
	in.Scheme.Default(dry)
	out, err := services.Create(ctx, dry, nil, &metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := getIP(out.(*corev1.Service).Spec.ClusterIP); !apierrors.IsNotFound(err) {
		t.Errorf("dry run left IPAddress %s: %v", out.(*corev1.Service).Spec.ClusterIP, err)
	}

	// Lose kept's IPAddress; leak ghost's address and port. Ghost is made
	// first: made after, it could be handed kept's freed address.
	ghost := create("ghost", 30123)
	if _, _, err := addresses.(rest.GracefulDeleter).Delete(ctx, kept.Spec.ClusterIP, nil, &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Client().Delete(context.Background(), "/registry/services/default/ghost"); err != nil {
		t.Fatal(err)
	}
	// The port is taken until the repair frees it.
	taken := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "taken"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80, NodePort: 30123}}}}
	in.Scheme.Default(taken)
	if _, err := services.Create(ctx, taken.DeepCopy(), nil, &metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
		t.Fatalf("create on a leaked port: %v", err)
	}

	// The services' list must see ghost gone before the repair runs.
	waitGone(t, services, ctx, "ghost")
	now := time.Now()
	if err := services.Repair(ctx, now); err != nil {
		t.Fatal(err)
	}
	if a, err := getIP(kept.Spec.ClusterIP); err != nil || a.Spec.ParentRef.Name != "kept" {
		t.Errorf("repair did not record kept's address: %v", err)
	}
	if _, err := getIP(ghost.Spec.ClusterIP); err != nil {
		t.Errorf("a young leaked address was freed: %v", err)
	}
	// Old enough, the address goes; seen leaked twice, the port too.
	if err := services.Repair(ctx, now.Add(2*service.LeakGrace)); err != nil {
		t.Fatal(err)
	}
	if _, err := getIP(ghost.Spec.ClusterIP); !apierrors.IsNotFound(err) {
		t.Errorf("leaked address %s: %v", ghost.Spec.ClusterIP, err)
	}
	if _, err := services.Create(ctx, taken.DeepCopy(), nil, &metav1.CreateOptions{}); err != nil {
		t.Errorf("create on the freed port: %v", err)
	}

	// A port a service holds but the bitmap lost comes back.
	if _, err := srv.Client().Delete(context.Background(), "/registry/ranges/servicenodeports"); err != nil {
		t.Fatal(err)
	}
	if err := services.Repair(ctx, now); err != nil {
		t.Fatal(err)
	}
	again := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "again"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80, NodePort: kept.Spec.Ports[0].NodePort}}}}
	in.Scheme.Default(again)
	if _, err := services.Create(ctx, again, nil, &metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
		t.Errorf("kept's port was handed out again: %v", err)
	}

	// Deleting a service deletes its IPAddress.
	if _, _, err := services.Delete(ctx, "kept", nil, &metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := getIP(kept.Spec.ClusterIP); !apierrors.IsNotFound(err) {
		t.Errorf("IPAddress of a deleted service: %v", err)
	}
}

// waitGone waits until the services' Store no longer lists name.
func waitGone(t *testing.T, services *service.REST, ctx context.Context, name string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := services.Get(ctx, name, &metav1.GetOptions{}); apierrors.IsNotFound(err) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("service %s still there", name)
}
