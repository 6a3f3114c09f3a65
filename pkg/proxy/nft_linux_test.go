package proxy

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/nftables"
	"golang.org/x/sys/unix"

	corev1 "kubecore.io/api/core/v1"
)

// testNetns is a network namespace with lo up and a dummy interface
// d0 (one end of a veth pair) holding 10.0.0.1/24 and the default route, removed at the end.
type testNetns struct {
	name string
	fd   int
}

func newTestNetns(t *testing.T) *testNetns {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("programming nftables in a network namespace needs root")
	}
	name := fmt.Sprintf("kcproxy%d", os.Getpid())
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	run("netns", "add", name)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", name).Run() })
	run("-n", name, "link", "set", "lo", "up")
	// No dummy driver everywhere: a veth pair whose ends both stay here.
	run("-n", name, "link", "add", "d0", "type", "veth", "peer", "name", "d1")
	run("-n", name, "link", "set", "d1", "up")
	run("-n", name, "addr", "add", "10.0.0.1/24", "dev", "d0")
	run("-n", name, "link", "set", "d0", "up")
	run("-n", name, "route", "add", "default", "dev", "d0")
	fd, err := unix.Open("/var/run/netns/"+name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Close(fd) })
	return &testNetns{name: name, fd: fd}
}

// do runs f on a thread moved into the namespace; the thread is thrown
// away afterwards. Sockets f makes stay in the namespace.
func (n *testNetns) do(t *testing.T, f func()) {
	t.Helper()
	done := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
		if err := unix.Setns(n.fd, unix.CLONE_NEWNET); err != nil {
			done <- err
			return
		}
		f()
		done <- nil
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

func (n *testNetns) apply(t *testing.T, progs ...*Program) {
	t.Helper()
	c, err := nftables.New(nftables.WithNetNSFd(n.fd))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range progs {
		p.queue(c)
	}
	if err := c.Flush(); err != nil {
		t.Fatalf("apply: %v", err)
	}
}

// listing is the table as the kernel holds it: chains and rule
// expressions, without handles.
func (n *testNetns) listing(t *testing.T) string {
	t.Helper()
	c, err := nftables.New(nftables.WithNetNSFd(n.fd))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, fam := range []nftables.TableFamily{nftables.TableFamilyIPv4, nftables.TableFamilyIPv6} {
		tbl, err := c.ListTableOfFamily(TableName, fam)
		if err != nil {
			continue
		}
		chains, err := c.ListChainsOfTableFamily(fam)
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range chains {
			if ch.Table.Name != TableName {
				continue
			}
			fmt.Fprintf(&b, "chain %d %s\n", fam, ch.Name)
			rules, err := c.GetRules(tbl, ch)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rules {
				for _, e := range r.Exprs {
					fmt.Fprintf(&b, " %#v", e)
				}
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

func (n *testNetns) tableExists(t *testing.T) bool {
	c, err := nftables.New(nftables.WithNetNSFd(n.fd))
	if err != nil {
		t.Fatal(err)
	}
	tables, err := c.ListTables()
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables {
		if tb.Name == TableName {
			return true
		}
	}
	return false
}

// serve listens on addr in the namespace and answers each connection with
// reply.
func (n *testNetns) serve(t *testing.T, addr, reply string) {
	var l net.Listener
	n.do(t, func() {
		var err error
		if l, err = net.Listen("tcp", addr); err != nil {
			t.Error(err)
		}
	})
	if l == nil {
		t.FailNow()
	}
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			_, _ = c.Write([]byte(reply))
			_ = c.Close()
		}
	}()
}

// dial connects to addr from the namespace and returns what it reads.
func (n *testNetns) dial(t *testing.T, addr string) (string, error) {
	var out string
	var derr error
	n.do(t, func() {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			derr = err
			return
		}
		defer func() { _ = c.Close() }()
		_ = c.SetDeadline(time.Now().Add(5 * time.Second))
		b := make([]byte, 64)
		k, _ := c.Read(b)
		out = string(b[:k])
	})
	return out, derr
}

func TestProgramInNetns(t *testing.T) {
	ns := newTestNetns(t)
	ns.serve(t, "10.0.0.1:8081", "a")
	ns.serve(t, "10.0.0.1:8082", "b")
	ports := []*ServicePort{
		{Name: "default/web/tcp/80", Protocol: corev1.ProtocolTCP, ClusterIP: netip.MustParseAddr("10.96.0.20"), Port: 80, NodePort: 30080,
			Endpoints: []Endpoint{{IP: netip.MustParseAddr("10.0.0.1"), Port: 8081, Local: true}, {IP: netip.MustParseAddr("10.0.0.1"), Port: 8082}}},
		{Name: "default/sticky/tcp/80", Protocol: corev1.ProtocolTCP, ClusterIP: netip.MustParseAddr("10.96.0.21"), Port: 80, AffinitySeconds: 60,
			Endpoints: []Endpoint{{IP: netip.MustParseAddr("10.0.0.1"), Port: 8081}, {IP: netip.MustParseAddr("10.0.0.1"), Port: 8082}}},
		{Name: "default/empty/tcp/80", Protocol: corev1.ProtocolTCP, ClusterIP: netip.MustParseAddr("10.96.0.22"), Port: 80},
	}
	ns.apply(t, Build(IPv4, ports), Build(IPv6, nil))
	first := ns.listing(t)
	if !strings.Contains(first, "svc-") || !strings.Contains(first, "Numgen") {
		t.Fatalf("the kernel table lacks the service chains:\n%s", first)
	}

	// Both endpoints answer through the cluster IP.
	seen := map[string]bool{}
	for i := 0; i < 200 && len(seen) < 2; i++ {
		got, err := ns.dial(t, "10.96.0.20:80")
		if err != nil {
			t.Fatalf("dial cluster IP: %v", err)
		}
		seen[got] = true
	}
	if !seen["a"] || !seen["b"] {
		t.Errorf("cluster IP reached %v, want both endpoints", seen)
	}
	// The node port on the node's address.
	if got, err := ns.dial(t, "10.0.0.1:30080"); err != nil || (got != "a" && got != "b") {
		t.Errorf("node port: %q, %v", got, err)
	}
	// Affinity: one client sticks to one endpoint.
	firstSticky, err := ns.dial(t, "10.96.0.21:80")
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if got, err := ns.dial(t, "10.96.0.21:80"); err != nil || got != firstSticky {
			t.Fatalf("affinity: got %q, %v; want %q every time", got, err, firstSticky)
		}
	}
	// No endpoints: refused at once, not a hang.
	if _, err := ns.dial(t, "10.96.0.22:80"); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("service without endpoints: err = %v, want connection refused", err)
	}

	// Idempotent: the same program gives the same kernel rules.
	ns.apply(t, Build(IPv4, ports), Build(IPv6, nil))
	if again := ns.listing(t); again != first {
		t.Errorf("rules differ after re-applying:\n%s\nvs\n%s", first, again)
	}
	if err := Cleanup(ns.fd); err != nil {
		t.Fatal(err)
	}
	if ns.tableExists(t) {
		t.Error("table left after cleanup")
	}
	// Cleanup of nothing is fine.
	if err := Cleanup(ns.fd); err != nil {
		t.Errorf("second cleanup: %v", err)
	}
}

// TestAffinitySurvivesResync: replacing the table for a change elsewhere
// (another service added) keeps the clients a service with ClientIP
// affinity remembers, with the time they have left; a resync used to
// forget them, sending the client to a random endpoint again.
func TestAffinitySurvivesResync(t *testing.T) {
	ns := newTestNetns(t)
	ns.serve(t, "10.0.0.1:8081", "a")
	ns.serve(t, "10.0.0.1:8082", "b")
	ns.serve(t, "10.0.0.1:8083", "c")
	ns.serve(t, "10.0.0.1:8084", "d")
	eps := []Endpoint{{IP: netip.MustParseAddr("10.0.0.1"), Port: 8081}, {IP: netip.MustParseAddr("10.0.0.1"), Port: 8082},
		{IP: netip.MustParseAddr("10.0.0.1"), Port: 8083}, {IP: netip.MustParseAddr("10.0.0.1"), Port: 8084}}
	sticky := &ServicePort{Name: "default/sticky/tcp/80", Protocol: corev1.ProtocolTCP, ClusterIP: netip.MustParseAddr("10.96.0.21"), Port: 80, AffinitySeconds: 600, Endpoints: eps}
	ports := []*ServicePort{sticky}
	ns.apply(t, Build(IPv4, ports))
	want, err := ns.dial(t, "10.96.0.21:80")
	if err != nil {
		t.Fatal(err)
	}
	// Each round is a resync for another service; without the carry-over
	// a round keeps the endpoint by chance one time in four.
	for round := range 8 {
		ports = append(ports, &ServicePort{Name: fmt.Sprintf("default/other%d/tcp/80", round), Protocol: corev1.ProtocolTCP,
			ClusterIP: netip.AddrFrom4([4]byte{10, 96, 1, byte(round)}), Port: 80, Endpoints: eps[:1]})
		ns.apply(t, Build(IPv4, ports))
		if got, err := ns.dial(t, "10.96.0.21:80"); err != nil || got != want {
			t.Fatalf("after resync %d: got %q, %v; want %q (the remembered endpoint)", round, got, err, want)
		}
	}
	// The endpoints changing keeps the clients of the endpoints left.
	sticky.Endpoints = append([]Endpoint{{IP: netip.MustParseAddr("10.0.0.1"), Port: 8080}}, eps...)
	ns.apply(t, Build(IPv4, ports))
	if got, err := ns.dial(t, "10.96.0.21:80"); err != nil || got != want {
		t.Fatalf("after an endpoint was added: got %q, %v; want %q", got, err, want)
	}
	// What is carried keeps its age: the element's timeout is what was
	// left, not a fresh one.
	c, err := nftables.New(nftables.WithNetNSFd(ns.fd))
	if err != nil {
		t.Fatal(err)
	}
	prog := Build(IPv4, ports)
	for _, s := range prog.sets {
		elems, err := c.GetSetElements(&nftables.Set{Table: prog.table(), Name: s.name})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range elems {
			if e.Expires <= 0 || e.Expires > s.timeout {
				t.Errorf("set %s: element %v expires in %v, want within (0, %v]", s.name, e.Key, e.Expires, s.timeout)
			}
		}
	}
	if err := Cleanup(ns.fd); err != nil {
		t.Fatal(err)
	}
}
