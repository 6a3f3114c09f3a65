package networking

import (
	"context"
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"

	"kubecore.io/kubecore/test/integration/framework"
)

// TestTypeChanges changes Services between types as the conformance
// Service specs do: what the new type does not have is dropped and
// released (another Service can take the address and node port), what it
// needs is allocated, and an address given to an ExternalName Service is
// refused with Kubernetes' field error.
func TestTypeChanges(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	cs := s.Clientset(t)
	ctx := context.Background()
	ns := s.CreateNamespace(t, "types")
	svcs := cs.CoreV1().Services(ns)
	ports := []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}
	patch := func(name, body string) *corev1.Service {
		t.Helper()
		out, err := svcs.Patch(ctx, name, types.MergePatchType, []byte(body), metav1.PatchOptions{})
		if err != nil {
			t.Fatalf("patch %s with %s: %v", name, body, err)
		}
		return out
	}

	// NodePort -> ClusterIP -> ExternalName: the node port, then the
	// cluster IP, are given up and free for others.
	np, err := svcs.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "np"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: ports}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ip, nodePort := np.Spec.ClusterIP, np.Spec.Ports[0].NodePort
	if ip == "" || nodePort == 0 {
		t.Fatalf("NodePort service without its allocations: %+v", np.Spec)
	}
	cip := patch("np", `{"spec":{"type":"ClusterIP"}}`)
	if cip.Spec.Ports[0].NodePort != 0 || cip.Spec.ClusterIP != ip || cip.Spec.ExternalTrafficPolicy != "" {
		t.Errorf("NodePort turned ClusterIP: nodePort %d, clusterIP %s (want 0, %s), externalTrafficPolicy %q",
			cip.Spec.Ports[0].NodePort, cip.Spec.ClusterIP, ip, cip.Spec.ExternalTrafficPolicy)
	}
	taker, err := svcs.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "port-taker"}, Spec: corev1.ServiceSpec{
		Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 81, Protocol: corev1.ProtocolTCP, NodePort: nodePort}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Errorf("the node port given up (%d) is not free: %v", nodePort, err)
	} else if taker.Spec.Ports[0].NodePort != nodePort {
		t.Errorf("port-taker got node port %d, want %d", taker.Spec.Ports[0].NodePort, nodePort)
	}
	ext := patch("np", `{"spec":{"type":"ExternalName","externalName":"db.example.com"}}`)
	if ext.Spec.ClusterIP != "" || len(ext.Spec.ClusterIPs) != 0 || len(ext.Spec.IPFamilies) != 0 || ext.Spec.IPFamilyPolicy != nil {
		t.Errorf("ClusterIP turned ExternalName keeps its addresses: %+v", ext.Spec)
	}
	if _, err := svcs.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "ip-taker"},
		Spec: corev1.ServiceSpec{ClusterIP: ip, Ports: ports}}, metav1.CreateOptions{}); err != nil {
		t.Errorf("the cluster IP given up (%s) is not free: %v", ip, err)
	}

	// ExternalName -> ClusterIP and -> NodePort: allocated as on create.
	back := patch("np", `{"spec":{"type":"ClusterIP","externalName":null}}`)
	if back.Spec.ClusterIP == "" || back.Spec.ClusterIP == ip || len(back.Spec.ClusterIPs) != 1 {
		t.Errorf("ExternalName turned ClusterIP: clusterIP %q clusterIPs %v, want a new one", back.Spec.ClusterIP, back.Spec.ClusterIPs)
	}
	if _, err := svcs.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "ext2"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "a.example.com"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	toNP := patch("ext2", `{"spec":{"type":"NodePort","externalName":null,"ports":[{"port":80,"protocol":"TCP"}]}}`)
	if toNP.Spec.ClusterIP == "" || toNP.Spec.Ports[0].NodePort == 0 {
		t.Errorf("ExternalName turned NodePort without allocations: %+v", toNP.Spec)
	}

	// An ExternalName service given an address: 422 at spec.clusterIPs,
	// nothing stored.
	_, err = svcs.Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "bad"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "b.example.com", ClusterIP: "10.96.0.200"}}, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.clusterIPs: Forbidden: may not be set for ExternalName services") {
		t.Errorf("ExternalName with a cluster IP: %v, want 422 spec.clusterIPs forbidden", err)
	}
	if _, err := svcs.Get(ctx, "bad", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the refused service was stored: %v", err)
	}
}
