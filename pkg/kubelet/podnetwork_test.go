package kubelet

import (
	"testing"

	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/kubelet/runtime/fake"
)

// TestHostPodNetworkSaysSo: with the host's network, a pod that did not
// ask for it is told with an Event, and the Node says so; a hostNetwork
// pod, or a kubelet with the bridge network, gets no such Event. The pod
// IP is the sandbox's.
func TestHostPodNetworkSaysSo(t *testing.T) {
	for _, tc := range []struct {
		name        string
		mode        string
		hostNetwork bool
		wantEvent   bool
	}{
		{"host network", PodNetworkHost, false, true},
		{"hostNetwork pod", PodNetworkHost, true, false},
		{"bridge network", PodNetworkBridge, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			events := &eventLog{}
			kl, err := New(Config{NodeName: "n", Runtime: fake.New("10.244.0.9", nil), RootDir: t.TempDir(), NodeIP: "127.0.0.1",
				StaticPodPath: t.TempDir(), Machine: &MachineInfo{}, Recorder: events, PodNetwork: tc.mode})
			if err != nil {
				t.Fatal(err)
			}
			if got := kl.nodeAnnotations()[AnnotationPodNetwork]; got != tc.mode {
				t.Errorf("node annotation %s = %q, want %q", AnnotationPodNetwork, got, tc.mode)
			}
			pod := eventsPod(corev1.Container{Name: "main", Image: "app:1", Command: []string{"sleep", "inf"}})
			pod.Spec.HostNetwork = tc.hostNetwork
			st := newPodState()
			if _, _, err := kl.syncPod(t.Context(), st, pod, false); err != nil {
				t.Fatal(err)
			}
			got := events.with(eventHostNetwork)
			if tc.wantEvent && (len(got) != 1 || got[0] != "Normal HostNetwork: Pod runs on the node's network (node IP 127.0.0.1, ports shared with other pods): the kubelet's pod network is off (--pod-network=host, or not root)") {
				t.Errorf("HostNetwork events = %q", got)
			}
			if !tc.wantEvent && len(got) != 0 {
				t.Errorf("HostNetwork events = %q, want none", got)
			}
			if st.podIP != "10.244.0.9" {
				t.Errorf("pod IP %q, want the sandbox's 10.244.0.9", st.podIP)
			}
		})
	}
}
