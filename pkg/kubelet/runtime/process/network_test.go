package process

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestSandboxDNS: a container of a sandbox with its own network namespace
// reads the pod's DNS configuration at /etc/resolv.conf, a file of its own
// bind-mounted there in its mount namespace; a hostNetwork sandbox's
// containers keep the host's.
func TestSandboxDNS(t *testing.T) {
	ctx := t.Context()
	r := newRuntime(t, Options{HostIP: "192.0.2.1", Network: &recordingNetwork{}})
	dns := &kruntime.DNSConfig{Servers: []string{"10.96.0.10"}, Searches: []string{"ns.svc.cluster.local", "svc.cluster.local", "cluster.local"}, Options: []string{"ndots:5"}}
	spec := func(cfg kruntime.PodSandboxConfig) (shimSpec, string) {
		t.Helper()
		sb, err := r.RunPodSandbox(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		id, err := r.CreateContainer(ctx, sb, kruntime.ContainerConfig{Name: "c", Command: []string{"true"}})
		if err != nil {
			t.Fatal(err)
		}
		// The test network's namespace does not exist: nsenter fails,
		// after the spec is written.
		_ = r.StartContainer(ctx, id)
		waitExited(t, r, id)
		t.Cleanup(func() { _ = r.StopPodSandbox(ctx, sb); _ = r.RemovePodSandbox(ctx, sb) })
		b, err := os.ReadFile(filepath.Join(r.containerDir(id), "spec.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s shimSpec
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		return s, id
	}

	s, id := spec(kruntime.PodSandboxConfig{UID: "own", DNS: dns})
	file := filepath.Join(r.containerDir(id), "resolv.conf")
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := "nameserver 10.96.0.10\nsearch ns.svc.cluster.local svc.cluster.local cluster.local\noptions ndots:5\n"
	if string(got) != want {
		t.Errorf("resolv.conf = %q, want %q", got, want)
	}
	if st, err := os.Stat(file); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("resolv.conf mode: %v %v", st, err)
	}
	argv := strings.Join(s.Argv, " ")
	if !strings.Contains(argv, "nsenter --net=") || !strings.Contains(argv, "unshare --mount") ||
		!strings.Contains(argv, "mount --bind '"+file+"' '/etc/resolv.conf'") ||
		!strings.Contains(argv, "mount -o remount,bind,ro '/etc/resolv.conf'") {
		t.Errorf("argv does not mount the pod's resolv.conf: %q", s.Argv)
	}

	s, id = spec(kruntime.PodSandboxConfig{UID: "host", HostNetwork: true, DNS: dns})
	if strings.Contains(strings.Join(s.Argv, " "), "resolv.conf") {
		t.Errorf("hostNetwork container mounts a resolv.conf: %q", s.Argv)
	}
	if _, err := os.Stat(filepath.Join(r.containerDir(id), "resolv.conf")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("hostNetwork container has a resolv.conf: %v", err)
	}
}

// hostNamespaceNetwork is a PodNetwork whose pods "have" a network
// namespace of their own that is the host's: enough for what runs in a
// pod's other namespaces (its hostname) to be tested without a bridge.
type hostNamespaceNetwork struct{}

func (hostNamespaceNetwork) SetUpPod(context.Context, string) (network.Pod, error) {
	return network.Pod{IP: "10.244.0.2", NetNS: "/proc/self/ns/net"}, nil
}

func (hostNamespaceNetwork) TearDownPod(context.Context, string) error { return nil }

// TestSandboxHostname: the containers of a pod with a network of its own
// see the pod's hostname, in their command and in exec (as Kubernetes'
// runtimes give it, and as agnhost serve-hostname answers the pods/proxy
// GETs of the ReplicaSet conformance spec), while the host keeps its own;
// a hostNetwork pod's containers see the host's.
func TestSandboxHostname(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("a UTS namespace per pod needs root")
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	r := newRuntime(t, Options{HostIP: "192.0.2.1", Network: hostNamespaceNetwork{}})
	run := func(cfg kruntime.PodSandboxConfig) (string, string) {
		t.Helper()
		logDir := t.TempDir()
		cfg.LogDirectory = logDir
		sb, err := r.RunPodSandbox(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = r.StopPodSandbox(ctx, sb); _ = r.RemovePodSandbox(ctx, sb) })
		id, err := r.CreateContainer(ctx, sb, kruntime.ContainerConfig{
			Name: "c", Command: []string{"sh", "-c", "cat /proc/sys/kernel/hostname; exec sleep 60"}, LogPath: "c/0.log"})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.StartContainer(ctx, id); err != nil {
			t.Fatal(err)
		}
		var logged string
		deadline := time.Now().Add(10 * time.Second)
		for logged == "" && time.Now().Before(deadline) {
			b, _ := os.ReadFile(filepath.Join(logDir, "c/0.log"))
			if line, _, ok := strings.Cut(string(b), "\n"); ok {
				f := strings.Fields(line)
				logged = f[len(f)-1]
			}
			time.Sleep(10 * time.Millisecond)
		}
		res, err := r.ExecSync(ctx, id, []string{"cat", "/proc/sys/kernel/hostname"}, 5*time.Second)
		if err != nil || res.ExitCode != 0 {
			t.Fatalf("exec: %+v, %v", res, err)
		}
		return logged, strings.TrimSpace(string(res.Stdout))
	}

	logged, execed := run(kruntime.PodSandboxConfig{UID: "own", Name: "web-0", Hostname: "web-0"})
	if logged != "web-0" || execed != "web-0" {
		t.Errorf("pod with its own network: the command saw hostname %q, exec %q; want web-0", logged, execed)
	}
	if now, _ := os.Hostname(); now != host {
		t.Errorf("the host's hostname became %q, was %q", now, host)
	}
	logged, execed = run(kruntime.PodSandboxConfig{UID: "host", Name: "web-1", HostNetwork: true})
	if logged != host || execed != host {
		t.Errorf("hostNetwork pod: the command saw hostname %q, exec %q; want the host's %q", logged, execed, host)
	}
}
