package ha

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// hosts are network namespaces on one bridge, each a "machine" with its own
// address. Names carry the test process's PID, so that parallel runs do
// not clash and a later run can remove what a killed one left behind.
type hosts struct {
	bridge string
	names  []string // network namespaces
	ips    []string
	// gateway is the bridge's address in the test's own namespace, from
	// which the test reaches every host.
	gateway string
}

// ipCmd runs ip(8) and fails the test with its output on error.
func ipCmd(t *testing.T, args ...string) {
	t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// requireNetns fails (never skips) when the test cannot make network
// namespaces: it needs ip(8) from iproute2 (hack/install-deps.sh) and root.
func requireNetns(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("ip"); err != nil {
		t.Fatalf("ip (iproute2) is required to make network namespaces: install it with hack/install-deps.sh: %v", err)
	}
	if os.Geteuid() != 0 {
		t.Fatalf("the HA test makes network namespaces and needs root (running as uid %d)", os.Geteuid())
	}
}

var leftover = regexp.MustCompile(`^kch(\d+)-\d+$`)

// removeLeftovers deletes the namespaces and bridges of earlier runs whose
// process is gone (a run killed before its cleanup).
func removeLeftovers(t *testing.T) {
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatalf("ip netns list: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		m := leftover.FindStringSubmatch(name)
		if m == nil {
			continue
		}
		if pid, _ := strconv.Atoi(m[1]); pid == os.Getpid() || syscall.Kill(pid, 0) == nil {
			continue
		}
		t.Logf("Removing network namespace %s of a finished run", name)
		_ = exec.Command("ip", "netns", "del", name).Run()
		_ = exec.Command("ip", "link", "del", "kcb"+m[1]).Run()
	}
}

// newHosts makes n namespaces on a new bridge, in a /24 of 198.18.0.0/15
// (the benchmarking range, RFC 2544) picked from the PID. Everything is
// removed when the test ends, failed or not.
func newHosts(t *testing.T, n int) *hosts {
	t.Helper()
	requireNetns(t)
	removeLeftovers(t)
	pid := os.Getpid()
	idx := pid % 512
	subnet := fmt.Sprintf("198.%d.%d", 18+idx/256, idx%256)
	h := &hosts{bridge: fmt.Sprintf("kcb%d", pid), gateway: subnet + ".254"}
	ipCmd(t, "link", "add", h.bridge, "type", "bridge")
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", h.bridge).Run() })
	ipCmd(t, "addr", "add", h.gateway+"/24", "dev", h.bridge)
	ipCmd(t, "link", "set", h.bridge, "up")
	for i := range n {
		ns, veth, ip := fmt.Sprintf("kch%d-%d", pid, i), fmt.Sprintf("kcv%dh%d", pid, i), fmt.Sprintf("%s.%d", subnet, i+1)
		ipCmd(t, "netns", "add", ns)
		// Deleting the namespace deletes the veth pair with it.
		t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
		ipCmd(t, "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
		ipCmd(t, "link", "set", veth, "master", h.bridge, "up")
		ipCmd(t, "-n", ns, "addr", "add", ip+"/24", "dev", "eth0")
		ipCmd(t, "-n", ns, "link", "set", "eth0", "up")
		ipCmd(t, "-n", ns, "link", "set", "lo", "up")
		ipCmd(t, "-n", ns, "route", "add", "default", "via", h.gateway)
		h.names, h.ips = append(h.names, ns), append(h.ips, ip)
	}
	return h
}

// process is one kubecore component running in a host's namespace.
type process struct {
	name string
	host int
	log  string
	cmd  *exec.Cmd
	done chan struct{}
}

// processes starts components and stops every one left when the test
// ends, by PID: SIGTERM, then SIGKILL after a grace period.
type processes struct {
	bin   string
	dir   string
	hosts *hosts

	mu    sync.Mutex
	procs []*process
}

func newProcesses(t *testing.T, bin, dir string, h *hosts) *processes {
	p := &processes{bin: bin, dir: dir, hosts: h}
	t.Cleanup(p.stopAll)
	return p
}

// start runs `kubecore args...` in the namespace of host, logging to
// DIR/name.log.
func (p *processes) start(t *testing.T, host int, name string, args ...string) *process {
	t.Helper()
	logPath := filepath.Join(p.dir, name+".log")
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "=== %s on %s: kubecore %s\n", name, p.hosts.ips[host], strings.Join(args, " "))
	// ip netns exec execs kubecore in the same process: the PID and the
	// parent-death signal are kubecore's.
	cmd := exec.Command("ip", append([]string{"netns", "exec", p.hosts.names[host], p.bin}, args...)...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = f.Close()
		t.Fatalf("start %s: %v", name, err)
	}
	pr := &process{name: name, host: host, log: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait()
		_ = f.Close()
		close(pr.done)
	}()
	p.mu.Lock()
	p.procs = append(p.procs, pr)
	p.mu.Unlock()
	return pr
}

func (pr *process) running() bool {
	select {
	case <-pr.done:
		return false
	default:
		return true
	}
}

// signal sends sig to the process by its PID.
func (pr *process) signal(sig syscall.Signal) error {
	if !pr.running() {
		return fmt.Errorf("%s has exited", pr.name)
	}
	return syscall.Kill(pr.cmd.Process.Pid, sig)
}

// wait waits up to d for the process to exit.
func (pr *process) wait(d time.Duration) bool {
	select {
	case <-pr.done:
		return true
	case <-time.After(d):
		return false
	}
}

// logContains reports whether the process's log holds s.
func (pr *process) logContains(s string) bool {
	b, err := os.ReadFile(pr.log)
	return err == nil && bytes.Contains(b, []byte(s))
}

// tail returns the end of the process's log, for failure messages.
func (pr *process) tail() string {
	b, _ := os.ReadFile(pr.log)
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return fmt.Sprintf("--- %s (%s) ---\n%s", pr.name, pr.log, b)
}

func (p *processes) stopAll() {
	p.mu.Lock()
	procs := p.procs
	p.mu.Unlock()
	for _, pr := range procs {
		_ = pr.signal(syscall.SIGTERM)
	}
	for _, pr := range procs {
		if !pr.wait(15 * time.Second) {
			_ = pr.signal(syscall.SIGKILL)
			pr.wait(5 * time.Second)
		}
	}
}

// waitFor polls cond every 200 ms until it holds or d passes.
func waitFor(d time.Duration, cond func() error) error {
	deadline := time.Now().Add(d)
	for {
		err := cond()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("after %s: %w", d, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// copyFiles copies the named files of from into to (made 0700).
func copyFiles(from, to string, names ...string) error {
	if err := os.MkdirAll(to, 0o700); err != nil {
		return err
	}
	var errs []error
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(from, n))
		if err == nil {
			err = os.WriteFile(filepath.Join(to, n), b, 0o600)
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
