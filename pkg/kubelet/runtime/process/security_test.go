package process

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kubecore.io/kubecore/pkg/kubelet/network"
	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

func TestContainerCapabilities(t *testing.T) {
	const dockerDefault = capSet(0xa80425fb)
	netAdmin, netBind, chown := capSet(1)<<12, capSet(1)<<10, capSet(1)
	for _, tc := range []struct {
		name       string
		sec        *kruntime.ContainerSecurity
		set, added capSet
		err        string
	}{
		{name: "none", sec: nil, set: dockerDefault},
		{name: "default", sec: &kruntime.ContainerSecurity{}, set: dockerDefault},
		{name: "add", sec: &kruntime.ContainerSecurity{CapAdd: []string{"NET_ADMIN"}}, set: dockerDefault | netAdmin, added: netAdmin},
		{name: "CAP_ prefix", sec: &kruntime.ContainerSecurity{CapAdd: []string{"CAP_NET_ADMIN"}}, set: dockerDefault | netAdmin, added: netAdmin},
		{name: "drop", sec: &kruntime.ContainerSecurity{CapDrop: []string{"chown"}}, set: dockerDefault &^ chown},
		{name: "drop ALL add one", sec: &kruntime.ContainerSecurity{CapDrop: []string{"ALL"}, CapAdd: []string{"NET_BIND_SERVICE"}}, set: netBind, added: netBind},
		{name: "add ALL drop one", sec: &kruntime.ContainerSecurity{CapAdd: []string{"ALL"}, CapDrop: []string{"CHOWN"}}, set: allCaps &^ chown, added: allCaps &^ chown},
		{name: "privileged", sec: &kruntime.ContainerSecurity{Privileged: true, CapDrop: []string{"ALL"}}, set: allCaps},
		{name: "unknown", sec: &kruntime.ContainerSecurity{CapAdd: []string{"NET_WIZARD"}}, err: `unknown capability "NET_WIZARD"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set, added, err := containerCapabilities(tc.sec)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err = %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil || set != tc.set || added != tc.added {
				t.Errorf("= %#x, %#x, %v; want %#x, %#x", set, added, err, tc.set, tc.added)
			}
		})
	}
	if got := (netBind | chown).setprivArg(); got != "-all,+chown,+net_bind_service" {
		t.Errorf("setprivArg = %q", got)
	}
}

// runAndExec runs script (which should print and then sleep) in a new
// container of sandbox cfg, and returns its first log lines (lines of
// them) and the output of exec running execCmd in it.
func runAndExec(t *testing.T, r *Runtime, sb kruntime.PodSandboxConfig, c kruntime.ContainerConfig, lines int, execCmd []string) (string, string) {
	t.Helper()
	ctx := t.Context()
	logDir := t.TempDir()
	sb.LogDirectory = logDir
	id, err := r.RunPodSandbox(ctx, sb)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.StopPodSandbox(ctx, id); _ = r.RemovePodSandbox(ctx, id) })
	c.Name, c.LogPath = "c", "c/0.log"
	cid, err := r.CreateContainer(ctx, id, c)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.StartContainer(ctx, cid); err != nil {
		t.Fatal(err)
	}
	var logged []string
	deadline := time.Now().Add(10 * time.Second)
	for len(logged) < lines && time.Now().Before(deadline) {
		b, _ := os.ReadFile(filepath.Join(logDir, "c/0.log"))
		logged = logged[:0]
		for l := range strings.Lines(string(b)) {
			// timestamp stream tag text
			if f := strings.SplitN(strings.TrimSuffix(l, "\n"), " ", 4); len(f) == 4 {
				logged = append(logged, f[3])
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(logged) < lines {
		st, _ := r.ContainerStatus(ctx, cid)
		t.Fatalf("the container logged %q, want %d lines (status %+v)", logged, lines, st)
	}
	if execCmd == nil {
		return strings.Join(logged, "\n"), ""
	}
	res, err := r.ExecSync(ctx, cid, execCmd, 5*time.Second)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("exec: %q %q %d, %v", res.Stdout, res.Stderr, res.ExitCode, err)
	}
	return strings.Join(logged, "\n"), string(res.Stdout)
}

// statusFields reads the capability and no_new_privs lines of a
// /proc/PID/status text.
func statusFields(status string) map[string]string {
	m := map[string]string{}
	for l := range strings.Lines(status) {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), ":"); ok && (strings.HasPrefix(k, "Cap") || k == "NoNewPrivs") {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m
}

// TestCapabilitiesAndNoNewPrivs: a container's process and its execs get
// the container's capabilities (the default set as containerd gives it,
// with adds and drops; all of them when privileged; the added ones as
// ambient for a non-root user) and no_new_privs when asked for.
func TestCapabilitiesAndNoNewPrivs(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("changing capabilities needs root")
	}
	r := newRuntime(t, Options{HostIP: "192.0.2.1"})
	const script = "grep -E '^(Cap|NoNewPrivs)' /proc/self/status; exec sleep 60"
	statusCmd := []string{"grep", "-E", "^(Cap|NoNewPrivs)", "/proc/self/status"}
	self, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	kubelet := statusFields(string(self))
	for _, tc := range []struct {
		name string
		user *kruntime.User
		sec  *kruntime.ContainerSecurity
		want map[string]string
	}{
		{name: "default", sec: &kruntime.ContainerSecurity{}, want: map[string]string{
			"CapBnd": "00000000a80425fb", "CapEff": "00000000a80425fb", "CapPrm": "00000000a80425fb", "CapInh": "00000000a80425fb", "CapAmb": "0000000000000000", "NoNewPrivs": "0"}},
		{name: "add NET_ADMIN", sec: &kruntime.ContainerSecurity{CapAdd: []string{"NET_ADMIN"}}, want: map[string]string{
			"CapBnd": "00000000a80435fb", "CapEff": "00000000a80435fb"}},
		{name: "drop ALL, no_new_privs", sec: &kruntime.ContainerSecurity{CapDrop: []string{"ALL"}, NoNewPrivs: true}, want: map[string]string{
			"CapBnd": "0000000000000000", "CapEff": "0000000000000000", "NoNewPrivs": "1"}},
		{name: "privileged", sec: &kruntime.ContainerSecurity{Privileged: true}, want: map[string]string{
			"CapBnd": kubelet["CapBnd"], "CapEff": kubelet["CapEff"], "NoNewPrivs": "0"}},
		{name: "non-root", user: &kruntime.User{UID: 1000, GID: 1000}, sec: &kruntime.ContainerSecurity{}, want: map[string]string{
			"CapBnd": "00000000a80425fb", "CapEff": "0000000000000000", "CapPrm": "0000000000000000", "CapAmb": "0000000000000000"}},
		{name: "non-root adding NET_BIND_SERVICE", user: &kruntime.User{UID: 1000, GID: 1000},
			sec: &kruntime.ContainerSecurity{CapAdd: []string{"NET_BIND_SERVICE"}, NoNewPrivs: true}, want: map[string]string{
				"CapBnd": "00000000a80425fb", "CapEff": "0000000000000400", "CapPrm": "0000000000000400", "CapAmb": "0000000000000400", "NoNewPrivs": "1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logged, execed := runAndExec(t, r, kruntime.PodSandboxConfig{UID: tc.name},
				kruntime.ContainerConfig{Command: []string{"sh", "-c", script}, User: tc.user, Security: tc.sec}, 6, statusCmd)
			for what, out := range map[string]string{"command": logged, "exec": execed} {
				got := statusFields(out)
				for k, v := range tc.want {
					if got[k] != v {
						t.Errorf("%s: %s = %q, want %q (%q)", what, k, got[k], v, out)
					}
				}
			}
		})
	}
}

// TestNoNewPrivsStopsSetuid: a setuid-root program run by a non-root
// container runs as root, unless the container has no_new_privs
// (allowPrivilegeEscalation: false), as the e2e nonewprivs image checks.
func TestNoNewPrivsStopsSetuid(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("a setuid-root program needs root")
	}
	dir, err := os.MkdirTemp("", "kubecore-nnp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// id(1) prints the effective uid as euid= when it differs.
	idPath, err := exec.LookPath("id")
	if err != nil {
		t.Skip("no id(1)")
	}
	b, err := os.ReadFile(idPath)
	if err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(dir, "id")
	if err := os.WriteFile(prog, b, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(prog, os.ModeSetuid|0o755); err != nil {
		t.Fatal(err)
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err == nil && st.Flags&0x2 != 0 { // ST_NOSUID
		t.Skip("the temp dir is mounted nosuid")
	}
	r := newRuntime(t, Options{HostIP: "192.0.2.1"})
	for _, nnp := range []bool{false, true} {
		logged, _ := runAndExec(t, r, kruntime.PodSandboxConfig{UID: "nnp"},
			kruntime.ContainerConfig{Command: []string{"sh", "-c", prog + "; exec sleep 60"}, User: &kruntime.User{UID: 1000, GID: 1000},
				Security: &kruntime.ContainerSecurity{NoNewPrivs: nnp}}, 1, nil)
		if escalated := strings.Contains(logged, "euid=0"); escalated == nnp {
			t.Errorf("no_new_privs %v: the setuid program printed %q", nnp, logged)
		}
	}
}

// netnsNetwork gives each pod a real network namespace of its own,
// without links: enough for sysctls and /etc/hosts.
type netnsNetwork struct{ dir string }

func (n netnsNetwork) SetUpPod(ctx context.Context, id string) (network.Pod, error) {
	p := filepath.Join(n.dir, id)
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		return network.Pod{}, err
	}
	if out, err := exec.CommandContext(ctx, "unshare", "--net="+p, "true").CombinedOutput(); err != nil {
		return network.Pod{}, &os.PathError{Op: "unshare " + string(out), Path: p, Err: err}
	}
	return network.Pod{IP: "10.244.0.7", NetNS: p}, nil
}

func (n netnsNetwork) TearDownPod(_ context.Context, id string) error {
	return removeNamespace(filepath.Join(n.dir, id))
}

// TestSandboxSysctls: a pod's sysctls are set in its own IPC and network
// namespaces, which its containers and execs see and the host does not;
// one of a namespace the pod shares with the host, or not namespaced, fails
// the sandbox rather than change the host.
func TestSandboxSysctls(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("namespaces need root")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare(8)")
	}
	hostShm, _ := os.ReadFile("/proc/sys/kernel/shm_rmid_forced")
	hostPorts, _ := os.ReadFile("/proc/sys/net/ipv4/ip_unprivileged_port_start")
	r := newRuntime(t, Options{HostIP: "192.0.2.1", Network: netnsNetwork{dir: t.TempDir()}})
	const show = "cat /proc/sys/kernel/shm_rmid_forced /proc/sys/net/ipv4/ip_unprivileged_port_start"
	logged, execed := runAndExec(t, r, kruntime.PodSandboxConfig{UID: "sysctl", Sysctls: []kruntime.KeyValue{
		{Key: "kernel.shm_rmid_forced", Value: "1"}, {Key: "net/ipv4/ip_unprivileged_port_start", Value: "81"}}},
		kruntime.ContainerConfig{Command: []string{"sh", "-c", show + "; exec sleep 60"}}, 2, []string{"sh", "-c", show})
	if logged != "1\n81" || execed != "1\n81\n" {
		t.Errorf("the pod sees %q, its exec %q; want 1 and 81", logged, execed)
	}
	if now, _ := os.ReadFile("/proc/sys/kernel/shm_rmid_forced"); string(now) != string(hostShm) {
		t.Errorf("the host's kernel.shm_rmid_forced became %q", now)
	}
	if now, _ := os.ReadFile("/proc/sys/net/ipv4/ip_unprivileged_port_start"); string(now) != string(hostPorts) {
		t.Errorf("the host's net.ipv4.ip_unprivileged_port_start became %q", now)
	}

	for _, tc := range []struct {
		name string
		cfg  kruntime.PodSandboxConfig
	}{
		{"hostIPC", kruntime.PodSandboxConfig{UID: "a", HostIPC: true, Sysctls: []kruntime.KeyValue{{Key: "kernel.shm_rmid_forced", Value: "1"}}}},
		{"hostNetwork", kruntime.PodSandboxConfig{UID: "b", HostNetwork: true, Sysctls: []kruntime.KeyValue{{Key: "net.ipv4.tcp_syncookies", Value: "0"}}}},
		{"not namespaced", kruntime.PodSandboxConfig{UID: "c", Sysctls: []kruntime.KeyValue{{Key: "kernel.panic", Value: "5"}}}},
		{"escape", kruntime.PodSandboxConfig{UID: "d", Sysctls: []kruntime.KeyValue{{Key: "net/../../kernel/panic", Value: "5"}}}},
	} {
		if id, err := r.RunPodSandbox(t.Context(), tc.cfg); err == nil {
			_ = r.StopPodSandbox(t.Context(), id)
			t.Errorf("%s: the sandbox was made", tc.name)
		}
	}
	// The first pod's only.
	if list, _ := r.ListPodSandbox(t.Context()); len(list) != 1 {
		t.Errorf("sandboxes left: %d, want 1", len(list))
	}
	if ns, _ := filepath.Glob(filepath.Join(r.stateDir, "sandboxes", "*.ipc")); len(ns) != 1 {
		t.Errorf("IPC namespaces: %q, want the first pod's", ns)
	}
}

// TestSandboxEtcHosts: the containers of a pod with a network of its own
// read a kubelet-managed /etc/hosts (the pod's address and hostname, its
// host aliases), unless the container mounts a file there itself; a
// hostNetwork pod's containers read the host's.
func TestSandboxEtcHosts(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("mounts need root")
	}
	host, err := os.ReadFile("/etc/hosts")
	if err != nil {
		t.Skip("no /etc/hosts")
	}
	r := newRuntime(t, Options{HostIP: "192.0.2.1", Network: hostNamespaceNetwork{}})
	hosts := &kruntime.HostsConfig{FQDN: "web-0.web.ns.svc.cluster.local",
		Aliases: []kruntime.HostAlias{{IP: "192.0.2.9", Hostnames: []string{"foo.local", "bar.local"}}}}
	read := []string{"cat", "/etc/hosts"}
	const script = "cat /etc/hosts; echo END; exec sleep 60"
	_, execed := runAndExec(t, r, kruntime.PodSandboxConfig{UID: "own", Name: "web-0", Hostname: "web-0", Hosts: hosts},
		kruntime.ContainerConfig{Command: []string{"sh", "-c", script}}, 12, read)
	want := string(hosts.HostsFile("10.244.0.2", "web-0"))
	if execed != want {
		t.Errorf("/etc/hosts in the pod:\n%s\nwant:\n%s", execed, want)
	}
	for _, line := range []string{"10.244.0.2\tweb-0.web.ns.svc.cluster.local\tweb-0\n", "192.0.2.9\tfoo.local\tbar.local\n"} {
		if !strings.Contains(execed, line) {
			t.Errorf("/etc/hosts lacks %q", line)
		}
	}
	if now, _ := os.ReadFile("/etc/hosts"); string(now) != string(host) {
		t.Errorf("the host's /etc/hosts changed")
	}

	// Its own /etc/hosts, and the host's at a path where nothing is
	// (mounted in order: a source under an earlier mount's destination
	// would be what is mounted there).
	own := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(own, []byte("192.0.2.3 mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "sub", "hosts-original")
	_, execed = runAndExec(t, r, kruntime.PodSandboxConfig{UID: "mounts", Name: "m", Hostname: "m", Hosts: hosts},
		kruntime.ContainerConfig{Command: []string{"sh", "-c", "echo up; exec sleep 60"}, Mounts: []kruntime.Mount{
			{HostPath: "/etc/hosts", ContainerPath: missing}, {HostPath: own, ContainerPath: "/etc/hosts"}}},
		1, []string{"sh", "-c", "cat /etc/hosts " + missing})
	if execed != "192.0.2.3 mine\n"+string(host) {
		t.Errorf("a container mounting its own /etc/hosts and the host's reads %q", execed)
	}

	_, execed = runAndExec(t, r, kruntime.PodSandboxConfig{UID: "host", HostNetwork: true},
		kruntime.ContainerConfig{Command: []string{"sh", "-c", "echo up; exec sleep 60"}}, 1, read)
	if execed != string(host) {
		t.Errorf("a hostNetwork pod reads %q, not the host's /etc/hosts", execed)
	}
}

// TestReadOnlyRootfs: a container with a read-only root filesystem can
// write to its volumes only, in its command and in exec; the host's
// filesystem stays writable.
func TestReadOnlyRootfs(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("mounts need root")
	}
	r := newRuntime(t, Options{HostIP: "192.0.2.1"})
	vol := t.TempDir()
	hostDir := t.TempDir()
	// Where the container sees its volume (a path of the host's, which
	// the runtime makes as a mount point).
	dst := filepath.Join(t.TempDir(), "data")
	try := func(p string) string { return "if touch " + p + " 2>/dev/null; then echo wrote; else echo refused; fi" }
	script := try(filepath.Join(hostDir, "root")) + "; " + try(dst+"/vol") + "; " + try("/dev/shm/kubecore-ro-test") + "; exec sleep 60"
	logged, execed := runAndExec(t, r, kruntime.PodSandboxConfig{UID: "ro"}, kruntime.ContainerConfig{
		Command: []string{"sh", "-c", script}, Mounts: []kruntime.Mount{{HostPath: vol, ContainerPath: dst}},
		Security: &kruntime.ContainerSecurity{ReadOnlyRootfs: true}}, 3, []string{"sh", "-c", try(filepath.Join(hostDir, "exec"))})
	_ = os.Remove("/dev/shm/kubecore-ro-test")
	if logged != "refused\nwrote\nwrote" || execed != "refused\n" {
		t.Errorf("read-only root: the command got %q, exec %q; want the root refused, the volume and /dev written", logged, execed)
	}
	if _, err := os.Stat(filepath.Join(vol, "vol")); err != nil {
		t.Errorf("the volume was not written: %v", err)
	}
	if err := os.WriteFile(filepath.Join(hostDir, "host"), nil, 0o644); err != nil {
		t.Errorf("the host's filesystem became read-only: %v", err)
	}

	// Without it, the same container writes.
	logged, _ = runAndExec(t, r, kruntime.PodSandboxConfig{UID: "rw"}, kruntime.ContainerConfig{
		Command: []string{"sh", "-c", script}, Mounts: []kruntime.Mount{{HostPath: vol, ContainerPath: dst}}}, 3, nil)
	_ = os.Remove("/dev/shm/kubecore-ro-test")
	if logged != "wrote\nwrote\nwrote" {
		t.Errorf("writable root: the command got %q", logged)
	}
}
