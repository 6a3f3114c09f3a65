package kubelet

import (
	"testing"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

func TestContainerFingerprints(t *testing.T) {
	sandboxes := []kruntime.PodSandboxStatus{
		{ID: "s1", Config: kruntime.PodSandboxConfig{UID: "pod-a"}, State: kruntime.SandboxReady},
		{ID: "s2", Config: kruntime.PodSandboxConfig{UID: "pod-b"}, State: kruntime.SandboxReady},
	}
	running := []kruntime.ContainerStatus{
		{ID: "c1", SandboxID: "s1", State: kruntime.ContainerRunning},
		{ID: "c2", SandboxID: "s2", State: kruntime.ContainerRunning},
		{ID: "orphan", SandboxID: "gone", State: kruntime.ContainerRunning},
	}
	exited := []kruntime.ContainerStatus{
		{ID: "c2", SandboxID: "s2", State: kruntime.ContainerRunning},
		{ID: "c1", SandboxID: "s1", State: kruntime.ContainerExited},
	}
	before, after := containerFingerprints(sandboxes, running), containerFingerprints(sandboxes, exited)
	if len(before) != 2 {
		t.Fatalf("fingerprints = %v, want two pods", before)
	}
	if before["pod-a"] == after["pod-a"] {
		t.Errorf("pod-a's container exited but its fingerprint did not change: %q", after["pod-a"])
	}
	if before["pod-b"] != after["pod-b"] {
		t.Errorf("pod-b did not change but its fingerprint did (order must not matter): %q -> %q", before["pod-b"], after["pod-b"])
	}
}
