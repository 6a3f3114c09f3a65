package controlplane

import (
	"context"
	"strings"
	"testing"

	appsv1 "kubecore.io/api/apps/v1"
	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	corev1 "kubecore.io/api/core/v1"
	schedulingv1 "kubecore.io/api/scheduling/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/apirequest"
	"kubecore.io/kubecore/pkg/etcd"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// objInfo is a PUT body.
type objInfo struct{ obj runtime.Object }

func (o objInfo) Preconditions() *metav1.Preconditions { return nil }
func (o objInfo) UpdatedObject(context.Context, runtime.Object) (runtime.Object, error) {
	return o.obj, nil
}

func start(t *testing.T, cfg Config) (*Instance, *etcd.Server) {
	t.Helper()
	ctx := context.Background()
	srv, err := etcd.Start(ctx, etcd.Config{DataDir: t.TempDir(), UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	cfg.EtcdClient = srv.Client()
	in, err := New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(in.Destroy)
	if err := in.Bootstrap(ctx); err != nil {
		t.Fatal(err)
	}
	return in, srv
}

func servedStorage(t *testing.T, in *Instance, group, path string) rest.Storage {
	t.Helper()
	for _, g := range in.Groups {
		if g.GroupVersion.Group == group {
			if s, ok := g.Storage[path]; ok {
				return s
			}
		}
	}
	t.Fatalf("no storage %s in group %q", path, group)
	return nil
}

func TestControlPlane(t *testing.T) {
	in, _ := start(t, Config{})
	ctx := apirequest.WithNamespace(context.Background(), "default")

	// Bootstrap objects exist.
	if _, err := servedStorage(t, in, "", "namespaces").(rest.Getter).Get(context.Background(), "kube-node-lease", &metav1.GetOptions{}); err != nil {
		t.Fatalf("kube-node-lease: %v", err)
	}
	pc, err := servedStorage(t, in, "scheduling.k8s.io", "priorityclasses").(rest.Getter).Get(context.Background(), "system-node-critical", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v := pc.(*schedulingv1.PriorityClass).Value; v != 2000001000 {
		t.Errorf("system-node-critical value %d", v)
	}

	// A pod: created pending with generation 1, bound once.
	pods := servedStorage(t, in, "", "pods").(rest.Creater)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	in.Scheme.Default(pod)
	out, err := pods.Create(ctx, pod, nil, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created := out.(*corev1.Pod)
	if created.Generation != 1 || created.Status.Phase != corev1.PodPending {
		t.Errorf("generation %d phase %q", created.Generation, created.Status.Phase)
	}
	binding := servedStorage(t, in, "", "pods/binding").(rest.NamedCreater)
	b := &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Target: corev1.ObjectReference{Kind: "Node", Name: "n1"}}
	if _, err := binding.Create(ctx, "p", b, nil, &metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = binding.Create(ctx, "p", b, nil, &metav1.CreateOptions{})
	if !apierrors.IsConflict(err) || !strings.Contains(err.Error(), `pod p is already assigned to node "n1"`) {
		t.Errorf("second binding: %v", err)
	}

	// A bound pod is deleted gracefully; a zero grace period removes it.
	deleter := servedStorage(t, in, "", "pods").(rest.GracefulDeleter)
	obj, done, err := deleter.Delete(ctx, "p", nil, &metav1.DeleteOptions{})
	if err != nil || done {
		t.Fatalf("graceful delete: done=%v err=%v", done, err)
	}
	if p := obj.(*corev1.Pod); p.DeletionTimestamp == nil || *p.DeletionGracePeriodSeconds != 30 {
		t.Errorf("deletion mark %v %v", p.DeletionTimestamp, p.DeletionGracePeriodSeconds)
	}
	zero := int64(0)
	if _, done, err := deleter.Delete(ctx, "p", nil, &metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil || !done {
		t.Fatalf("final delete: done=%v err=%v", done, err)
	}

	// Secrets: stringData merges into data.
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Data: map[string][]byte{"a": []byte("1")}, StringData: map[string]string{"b": "2"}}
	out, err = servedStorage(t, in, "", "secrets").(rest.Creater).Create(ctx, sec, nil, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s := out.(*corev1.Secret); string(s.Data["b"]) != "2" || s.StringData != nil || s.Type != corev1.SecretTypeOpaque {
		t.Errorf("secret %+v", s)
	}

	// Deployments: scale maps spec.replicas; status is ignored on the main
	// resource; the selector is immutable.
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "d"},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "d"}}, Spec: pod.Spec},
		},
		Status: appsv1.DeploymentStatus{Replicas: 7},
	}
	in.Scheme.Default(dep)
	out, err = servedStorage(t, in, "apps", "deployments").(rest.Creater).Create(ctx, dep, nil, &metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := out.(*appsv1.Deployment); d.Status.Replicas != 0 || d.Generation != 1 {
		t.Errorf("deployment status %d generation %d", d.Status.Replicas, d.Generation)
	}
	scale := servedStorage(t, in, "apps", "deployments/scale")
	got, err := scale.(rest.Getter).Get(ctx, "d", &metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sc := got.(*autoscalingv1.Scale)
	if sc.Spec.Replicas != 1 || sc.Status.Selector != "app=d" {
		t.Errorf("scale %+v", sc)
	}
	sc.Spec.Replicas = 5
	if _, _, err := scale.(rest.Updater).Update(ctx, "d", objInfo{sc}, nil, nil, false, &metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, _ = servedStorage(t, in, "apps", "deployments").(rest.Getter).Get(ctx, "d", &metav1.GetOptions{})
	d := got.(*appsv1.Deployment)
	if *d.Spec.Replicas != 5 || d.Generation != 2 {
		t.Errorf("after scale: replicas %d generation %d", *d.Spec.Replicas, d.Generation)
	}
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}
	d.Spec.Template.Labels = map[string]string{"app": "x"}
	_, _, err = servedStorage(t, in, "apps", "deployments").(rest.Updater).Update(ctx, "d", objInfo{d}, nil, nil, false, &metav1.UpdateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.selector: Invalid value") || !strings.Contains(err.Error(), "field is immutable") {
		t.Errorf("selector update: %v", err)
	}

	// A create in a missing namespace is refused.
	_, err = servedStorage(t, in, "", "configmaps").(rest.Creater).Create(apirequest.WithNamespace(context.Background(), "nope"), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, nil, &metav1.CreateOptions{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("create in missing namespace: %v", err)
	}
}

func TestServiceClusterIPs(t *testing.T) {
	ctx := context.Background()
	srv, err := etcd.Start(ctx, etcd.Config{DataDir: t.TempDir(), UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg := Config{EtcdClient: srv.Client(), ServiceCIDR: "10.0.0.0/29"}
	create := func(in *Instance, name string, typ corev1.ServiceType) (*corev1.Service, error) {
		svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.ServiceSpec{Type: typ, Ports: []corev1.ServicePort{{Port: 80}}}}
		in.Scheme.Default(svc)
		out, err := servedStorage(t, in, "", "services").(rest.Creater).Create(apirequest.WithNamespace(ctx, "default"), svc, nil, &metav1.CreateOptions{})
		if err != nil {
			return nil, err
		}
		return out.(*corev1.Service), nil
	}
	in1, err := New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := in1.Bootstrap(ctx); err != nil {
		t.Fatal(err)
	}
	a, err := create(in1, "a", corev1.ServiceTypeNodePort)
	if err != nil {
		t.Fatal(err)
	}
	if a.Spec.ClusterIP == "" || a.Spec.Ports[0].NodePort < 30000 || a.Spec.Ports[0].NodePort > 32767 || *a.Spec.IPFamilyPolicy != corev1.IPFamilyPolicySingleStack {
		t.Errorf("service a: %+v", a.Spec)
	}
	in1.Destroy()

	// A restarted server does not hand out a's address again.
	in2, err := New(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer in2.Destroy()
	seen := map[string]bool{a.Spec.ClusterIP: true}
	// A /29 has six addresses to hand out: not the network's, nor the
	// broadcast address.
	for _, name := range []string{"b", "c", "d", "e", "f"} {
		s, err := create(in2, name, corev1.ServiceTypeClusterIP)
		if err != nil {
			t.Fatalf("service %s: %v", name, err)
		}
		if seen[s.Spec.ClusterIP] {
			t.Fatalf("address %s reused", s.Spec.ClusterIP)
		}
		seen[s.Spec.ClusterIP] = true
	}
	if _, err := create(in2, "g", corev1.ServiceTypeClusterIP); err == nil {
		t.Error("a full range still allocated")
	}
}
