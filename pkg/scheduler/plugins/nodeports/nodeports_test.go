package nodeports

import (
	"context"
	"testing"

	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/scheduler/framework"
)

func podWithPorts(ports ...corev1.ContainerPort) *corev1.Pod {
	return &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Ports: ports}}}}
}

func TestFilter(t *testing.T) {
	hp := func(ip string, proto corev1.Protocol, port int32) corev1.ContainerPort {
		return corev1.ContainerPort{HostIP: ip, Protocol: proto, HostPort: port, ContainerPort: port}
	}
	for _, tc := range []struct {
		name     string
		existing []corev1.ContainerPort
		pod      []corev1.ContainerPort
		want     framework.Code
	}{
		{"no host ports", []corev1.ContainerPort{hp("", "", 80)}, []corev1.ContainerPort{{ContainerPort: 80}}, framework.Skip},
		{"free port", []corev1.ContainerPort{hp("", "", 80)}, []corev1.ContainerPort{hp("", "", 8080)}, framework.Success},
		{"same port tcp", []corev1.ContainerPort{hp("", "", 80)}, []corev1.ContainerPort{hp("", corev1.ProtocolTCP, 80)}, framework.Unschedulable},
		{"same port other protocol", []corev1.ContainerPort{hp("", corev1.ProtocolUDP, 53)}, []corev1.ContainerPort{hp("", corev1.ProtocolTCP, 53)}, framework.Success},
		{"different IPs", []corev1.ContainerPort{hp("10.0.0.1", "", 80)}, []corev1.ContainerPort{hp("10.0.0.2", "", 80)}, framework.Success},
		{"wildcard against an IP", []corev1.ContainerPort{hp("10.0.0.1", "", 80)}, []corev1.ContainerPort{hp("0.0.0.0", "", 80)}, framework.Unschedulable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := framework.NewNodeInfo()
			n.SetNode(&corev1.Node{})
			existing := podWithPorts(tc.existing...)
			pi, _ := framework.NewPodInfo(existing)
			n.AddPodInfo(pi)
			state := framework.NewCycleState()
			pod := podWithPorts(tc.pod...)
			_, st := NodePorts{}.PreFilter(context.Background(), state, pod)
			if st.IsSkip() {
				if tc.want != framework.Skip {
					t.Fatalf("PreFilter skipped, want %v", tc.want)
				}
				return
			}
			st = NodePorts{}.Filter(context.Background(), state, pod, n)
			if st.Code() != tc.want {
				t.Errorf("code = %v, want %v", st.Code(), tc.want)
			}
			if st.Code() == framework.Unschedulable && st.Message() != ErrReason {
				t.Errorf("reason = %q", st.Message())
			}
		})
	}
}
