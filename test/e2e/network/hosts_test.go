package network

import (
	"bytes"
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
// address; names carry the test's PID so that a later run can remove what
// a killed one left.
type hosts struct {
	bridge string
	names  []string
	ips    []string
	// gateway is the bridge's address in the test's own namespace:
	// outside the cluster, and with no route to the pods.
	gateway string
}

func ipCmd(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

var leftover = regexp.MustCompile(`^kcn(\d+)-\d+$`)

// removeLeftovers deletes the namespaces and bridges of runs whose process
// is gone.
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
		_ = exec.Command("ip", "netns", "del", name).Run()
		_ = exec.Command("ip", "link", "del", "kcnb"+m[1]).Run()
	}
}

// newHosts makes n namespaces on a new bridge, in a /24 of 100.64.0.0/10
// (shared address space, RFC 6598) picked from the PID.
func newHosts(t *testing.T, n int) *hosts {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatalf("the pod network test makes network namespaces and needs root (uid %d)", os.Geteuid())
	}
	for _, p := range []string{"ip", "nsenter", "unshare"} {
		if _, err := exec.LookPath(p); err != nil {
			t.Fatalf("%s is required: %v", p, err)
		}
	}
	removeLeftovers(t)
	pid := os.Getpid()
	subnet := fmt.Sprintf("100.%d.%d", 64+(pid/256)%64, pid%256)
	h := &hosts{bridge: fmt.Sprintf("kcnb%d", pid), gateway: subnet + ".254"}
	ipCmd(t, "link", "add", h.bridge, "type", "bridge")
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", h.bridge).Run() })
	ipCmd(t, "addr", "add", subnet+".254/24", "dev", h.bridge)
	ipCmd(t, "link", "set", h.bridge, "up")
	for i := range n {
		ns, veth, ip := fmt.Sprintf("kcn%d-%d", pid, i), fmt.Sprintf("kcnv%dh%d", pid, i), fmt.Sprintf("%s.%d", subnet, i+1)
		ipCmd(t, "netns", "add", ns)
		t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", ns).Run() })
		ipCmd(t, "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
		ipCmd(t, "link", "set", veth, "master", h.bridge, "up")
		ipCmd(t, "-n", ns, "addr", "add", ip+"/24", "dev", "eth0")
		ipCmd(t, "-n", ns, "link", "set", "eth0", "up")
		ipCmd(t, "-n", ns, "link", "set", "lo", "up")
		ipCmd(t, "-n", ns, "route", "add", "default", "via", subnet+".254")
		h.names, h.ips = append(h.names, ns), append(h.ips, ip)
	}
	return h
}

// process is one kubecore component running in a host's namespace.
type process struct {
	name string
	log  string
	cmd  *exec.Cmd
	done chan struct{}
}

// processes stops every component left when the test ends, by PID.
type processes struct {
	bin, dir string
	hosts    *hosts
	mu       sync.Mutex
	procs    []*process
}

func newProcesses(t *testing.T, bin, dir string, h *hosts) *processes {
	p := &processes{bin: bin, dir: dir, hosts: h}
	t.Cleanup(p.stopAll)
	return p
}

// start runs `kubecore args...` in host's namespace (ip netns exec execs
// it: the PID is kubecore's), logging to DIR/name.log.
func (p *processes) start(t *testing.T, host int, name string, args ...string) *process {
	t.Helper()
	logPath := filepath.Join(p.dir, name+".log")
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "=== %s on %s: kubecore %s\n", name, p.hosts.ips[host], strings.Join(args, " "))
	cmd := exec.Command("ip", append([]string{"netns", "exec", p.hosts.names[host], p.bin}, args...)...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = f.Close()
		t.Fatalf("start %s: %v", name, err)
	}
	pr := &process{name: name, log: logPath, cmd: cmd, done: make(chan struct{})}
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

// stop sends SIGTERM and waits for the exit, then SIGKILL.
func (pr *process) stop() {
	if !pr.running() {
		return
	}
	_ = syscall.Kill(pr.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-pr.done:
	case <-time.After(60 * time.Second):
		_ = syscall.Kill(pr.cmd.Process.Pid, syscall.SIGKILL)
		<-pr.done
	}
}

func (pr *process) logContains(s string) bool {
	b, err := os.ReadFile(pr.log)
	return err == nil && bytes.Contains(b, []byte(s))
}

// logCount counts the lines of the process's log (of every start under
// its name) holding s.
func (pr *process) logCount(s string) int {
	b, _ := os.ReadFile(pr.log)
	return bytes.Count(b, []byte(s))
}

func (pr *process) tail() string {
	b, _ := os.ReadFile(pr.log)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return fmt.Sprintf("--- %s (%s) ---\n%s", pr.name, pr.log, b)
}

// stopAll stops the components, the last started first (the kubelets
// before the all-in-one whose API they need to stop their pods).
func (p *processes) stopAll() {
	p.mu.Lock()
	procs := p.procs
	p.mu.Unlock()
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].stop()
	}
}

// waitFor polls cond every 250 ms until it returns nil or d passes.
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
		time.Sleep(250 * time.Millisecond)
	}
}
