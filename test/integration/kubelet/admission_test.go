package kubelet

import (
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func hostPort(port int32, protocol corev1.Protocol) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "hp", ContainerPort: port, HostPort: port, Protocol: protocol}}
	}
}

// TestHostPortAdmission: a pod bound to the node (no scheduler) that asks
// for a host port another pod of the node holds is rejected by the
// kubelet, phase Failed with reason NodePorts and a Warning event, as in
// Kubernetes; the port is free again once its holder is deleted. The
// upstream conformance spec "Should recreate evicted statefulset" relies
// on it.
func TestHostPortAdmission(t *testing.T) {
	e := newEnv(t, "fake")
	running := func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning }
	e.pod("holder", "exec sleep 1000", hostPort(21017, ""))
	e.waitFor("holder", 30*time.Second, "Running", running)

	e.pod("second", "exec sleep 1000", hostPort(21017, corev1.ProtocolTCP))
	p := e.waitFor("second", 30*time.Second, "rejected", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodFailed })
	if p.Status.Reason != "NodePorts" || p.Status.Message != "Pod was rejected: Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports" {
		t.Errorf("rejected pod: reason %q message %q", p.Status.Reason, p.Status.Message)
	}
	if len(p.Status.ContainerStatuses) != 0 {
		t.Errorf("a rejected pod ran containers: %s", describe(p))
	}
	e.waitEvent(e.ns, "Pod", "second", eventQuery{reason: "NodePorts", eventType: "Warning"}, 30*time.Second)

	// The same port in another protocol does not conflict.
	e.pod("udp", "exec sleep 1000", hostPort(21017, corev1.ProtocolUDP))
	e.waitFor("udp", 30*time.Second, "Running", running)

	zero := int64(0)
	if err := e.cs.CoreV1().Pods(e.ns).Delete(e.ctx, "holder", metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatal(err)
	}
	e.waitGone("holder", 30*time.Second)
	e.pod("third", "exec sleep 1000", hostPort(21017, ""))
	e.waitFor("third", 30*time.Second, "Running once the port is free", running)
	// The rejected pod stays Failed.
	if p, err := e.cs.CoreV1().Pods(e.ns).Get(e.ctx, "second", metav1.GetOptions{}); err != nil || p.Status.Phase != corev1.PodFailed {
		t.Errorf("rejected pod later: %v %v", err, p.Status.Phase)
	}
}
