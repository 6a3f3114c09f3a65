package kubelet

import (
	"context"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
)

func TestAdmittedHostPorts(t *testing.T) {
	pod := func(uid, ip string, port int32, proto corev1.Protocol) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid)}, Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "c", Ports: []corev1.ContainerPort{{ContainerPort: 80}, {ContainerPort: port, HostPort: port, HostIP: ip, Protocol: proto}}},
		}}}
	}
	a := newAdmitted()
	steps := []struct {
		pod   *corev1.Pod
		force bool
		want  bool
	}{
		{pod("a", "", 8080, ""), false, true},
		{pod("b", "", 8080, corev1.ProtocolTCP), false, false}, // same port, defaulted TCP and wildcard
		{pod("c", "10.0.0.1", 8080, ""), false, false},         // wildcard taken
		{pod("d", "", 8080, corev1.ProtocolUDP), false, true},  // other protocol
		{pod("e", "", 9090, ""), false, true},                  // other port
		{pod("a", "", 8080, ""), false, true},                  // itself again
		{pod("f", "", 9090, ""), true, true},                   // forced: already running
		{pod("g", "10.0.0.2", 7070, corev1.ProtocolSCTP), false, true},
		{pod("h", "10.0.0.3", 7070, corev1.ProtocolSCTP), false, true}, // other IP
	}
	for i, s := range steps {
		if _, ok := a.admit(s.pod, s.force); ok != s.want {
			t.Errorf("step %d (pod %s): admitted %v, want %v", i, s.pod.UID, ok, s.want)
		}
	}
	a.release("a")
	if _, ok := a.admit(pod("b", "", 8080, ""), false); !ok {
		t.Error("port 8080 still taken after its pod was released")
	}
}

// A pod whose termination is asked for frees its host ports when the
// kubelet hears of it, before its worker winds it down: a pod created
// right after is admitted (TestHostPortAdmission raced on this).
func TestTerminatingPodFreesHostPorts(t *testing.T) {
	kl, _, _ := newTestKubelet(t)
	pod := func(uid string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: uid, UID: types.UID(uid)}, Spec: corev1.PodSpec{Containers: []corev1.Container{
			{Name: "c", Ports: []corev1.ContainerPort{{ContainerPort: 80, HostPort: 21017}}},
		}}}
	}
	// A cancelled context: the updates start no worker, only what the
	// dispatch itself does is seen.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, c := range []struct {
		name    string
		gone    func(p *corev1.Pod) (*corev1.Pod, bool)
		outcome bool
	}{
		{"removed from the API", func(p *corev1.Pod) (*corev1.Pod, bool) { return p, true }, true},
		{"deleted with a grace period", func(p *corev1.Pod) (*corev1.Pod, bool) {
			p = p.DeepCopy()
			now := metav1.Now()
			p.DeletionTimestamp = &now
			return p, false
		}, true},
		{"updated, still running", func(p *corev1.Pod) (*corev1.Pod, bool) { return p, false }, false},
	} {
		holder := pod("holder-" + c.name)
		if _, ok := kl.admitted.admit(holder, false); !ok {
			t.Fatalf("%s: holder not admitted", c.name)
		}
		kl.dispatch(ctx, holder.DeepCopy(), false)
		p, removed := c.gone(holder)
		kl.dispatch(ctx, p, removed)
		if _, ok := kl.admitted.admit(pod("next-"+c.name), false); ok != c.outcome {
			t.Errorf("%s: the next pod on the port admitted %v, want %v", c.name, ok, c.outcome)
		}
		kl.admitted.release(string(holder.UID))
		kl.admitted.release("next-" + c.name)
	}
}
