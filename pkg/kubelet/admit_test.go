package kubelet

import (
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
