package process

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"kubecore.io/kubecore/pkg/kubelet/network"
	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// recordingNetwork is a PodNetwork that hands out addresses and records
// what it was asked.
type recordingNetwork struct {
	mu       sync.Mutex
	setUp    []string
	tornDown []string
	fail     error
}

func (n *recordingNetwork) SetUpPod(_ context.Context, id string) (network.Pod, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.fail != nil {
		return network.Pod{}, n.fail
	}
	n.setUp = append(n.setUp, id)
	return network.Pod{IP: "10.244.0.2", NetNS: "/run/test-netns/" + id}, nil
}

func (n *recordingNetwork) TearDownPod(_ context.Context, id string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.tornDown = append(n.tornDown, id)
	return nil
}

func TestSandboxNetwork(t *testing.T) {
	ctx := t.Context()
	pn := &recordingNetwork{}
	dir := t.TempDir()
	r := newRuntime(t, Options{HostIP: "192.0.2.1", StateDir: dir, Network: pn})

	own, err := r.RunPodSandbox(ctx, kruntime.PodSandboxConfig{UID: "own"})
	if err != nil {
		t.Fatal(err)
	}
	host, err := r.RunPodSandbox(ctx, kruntime.PodSandboxConfig{UID: "host", HostNetwork: true})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := r.PodSandboxStatus(ctx, own)
	if s.IP != "10.244.0.2" || s.NetNS != "/run/test-netns/"+own {
		t.Errorf("sandbox with its own network: IP %q netns %q", s.IP, s.NetNS)
	}
	h, _ := r.PodSandboxStatus(ctx, host)
	if h.IP != "192.0.2.1" || h.NetNS != "" {
		t.Errorf("hostNetwork sandbox: IP %q netns %q, want the host's", h.IP, h.NetNS)
	}
	if !slices.Equal(pn.setUp, []string{own}) {
		t.Errorf("networks set up for %q, want only %q", pn.setUp, own)
	}

	// A restarted runtime knows the sandbox's address and namespace.
	r.Close()
	r2 := newRuntime(t, Options{HostIP: "192.0.2.1", StateDir: dir, Network: pn})
	if s2, err := r2.PodSandboxStatus(ctx, own); err != nil || s2.IP != s.IP || s2.NetNS != s.NetNS {
		t.Fatalf("after a restart: %+v, %v", s2, err)
	}
	for _, id := range []string{own, host} {
		if err := r2.StopPodSandbox(ctx, id); err != nil {
			t.Fatal(err)
		}
		if err := r2.RemovePodSandbox(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if len(pn.tornDown) == 0 || slices.ContainsFunc(pn.tornDown, func(id string) bool { return id != own }) {
		t.Errorf("networks torn down for %q, want only %q", pn.tornDown, own)
	}

	// A network that cannot be set up fails the sandbox.
	pn.fail = errors.New("no pod CIDR yet")
	if _, err := r2.RunPodSandbox(ctx, kruntime.PodSandboxConfig{UID: "late"}); err == nil || err.Error() != "no pod CIDR yet" {
		t.Errorf("sandbox without a network: %v", err)
	}
	if list, _ := r2.ListPodSandbox(ctx); len(list) != 0 {
		t.Errorf("sandboxes left: %+v", list)
	}
}
