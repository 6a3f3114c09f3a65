package network

import (
	"context"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

const childEnv = "KUBECORE_NETWORK_TEST_NETNS"

// TestMain runs the tests in a network namespace of their own (root is
// required), so that the bridge, routes, forwarding and nftables table
// they make never touch the machine's.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "" {
		if err := Supported(); err != nil {
			os.Stderr.WriteString("the pod network tests need root, ip and nsenter: " + err.Error() + "\n")
			os.Exit(1)
		}
		cmd := exec.Command("unshare", append([]string{"--net", "--"}, os.Args...)...)
		cmd.Env = append(os.Environ(), childEnv+"=1")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				os.Exit(exit.ExitCode())
			}
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	_ = exec.Command("ip", "link", "set", "dev", "lo", "up").Run()
	os.Exit(m.Run())
}

// inNetns runs f on a thread moved into the namespace at path; sockets f
// makes stay in it. The thread is thrown away afterwards.
func inNetns(t *testing.T, path string, f func()) {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			done <- err
			return
		}
		defer func() { _ = unix.Close(fd) }()
		if err := unix.Setns(fd, unix.CLONE_NEWNET); err != nil {
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

func output(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestPodNetwork(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	opts := Options{Dir: dir, ClusterCIDR: netip.MustParsePrefix("10.99.0.0/16")}
	n, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	// Without a pod CIDR, a pod waits as long as its context allows.
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	_, err = n.SetUpPod(short, "early")
	cancel()
	if err == nil || !strings.Contains(err.Error(), "no pod CIDR") {
		t.Fatalf("set up before the pod CIDR: %v", err)
	}
	cidr := netip.MustParsePrefix("10.99.3.0/24")
	if err := n.SetPodCIDR(ctx, cidr); err != nil {
		t.Fatal(err)
	}
	if err := n.SetPodCIDR(ctx, cidr); err != nil {
		t.Fatalf("setting the same pod CIDR again: %v", err)
	}
	if err := n.SetPodCIDR(ctx, netip.MustParsePrefix("10.99.4.0/24")); err == nil {
		t.Fatal("a different pod CIDR was accepted")
	}
	if out := output(t, "ip", "-4", "-o", "addr", "show", "dev", DefaultBridge); !strings.Contains(out, "10.99.3.1/24") {
		t.Fatalf("bridge addresses: %s", out)
	}

	a, err := n.SetUpPod(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := n.SetUpPod(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	if a.IP != "10.99.3.2" || b.IP != "10.99.3.3" {
		t.Fatalf("pod IPs %s and %s, want 10.99.3.2 and 10.99.3.3", a.IP, b.IP)
	}
	if again, err := n.SetUpPod(ctx, "a"); err != nil || again != a {
		t.Fatalf("setting up a again: %+v, %v; want %+v", again, err, a)
	}
	inside := output(t, "nsenter", "--net="+a.NetNS, "ip", "-4", "-o", "addr")
	for _, want := range []string{"127.0.0.1/8", "10.99.3.2/24"} {
		if !strings.Contains(inside, want) {
			t.Errorf("pod a's addresses lack %s:\n%s", want, inside)
		}
	}
	if r := output(t, "nsenter", "--net="+a.NetNS, "ip", "-4", "route", "show", "default"); !strings.Contains(r, "via 10.99.3.1") {
		t.Errorf("pod a's default route: %s", r)
	}

	// Both pods listen on the same port; a reaches b across the bridge,
	// and the host reaches a.
	var lnA, lnB net.Listener
	inNetns(t, a.NetNS, func() { lnA, err = net.Listen("tcp", ":8080") })
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lnA.Close() }()
	inNetns(t, b.NetNS, func() { lnB, err = net.Listen("tcp", ":8080") })
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lnB.Close() }()
	serve := func(ln net.Listener, name string) {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = io.WriteString(c, name)
			_ = c.Close()
		}
	}
	go serve(lnA, "a")
	go serve(lnB, "b")
	dial := func(addr string) string {
		c, err := net.DialTimeout("tcp", addr, 10*time.Second)
		if err != nil {
			t.Fatalf("dial %s: %v", addr, err)
		}
		defer func() { _ = c.Close() }()
		b, _ := io.ReadAll(c)
		return string(b)
	}
	if got := dial("10.99.3.2:8080"); got != "a" {
		t.Errorf("host to pod a answered %q", got)
	}
	var fromA string
	inNetns(t, a.NetNS, func() { fromA = dial("10.99.3.3:8080") })
	if fromA != "b" {
		t.Errorf("pod a to pod b answered %q", fromA)
	}

	// A restarted kubelet's Network keeps the pods and their addresses.
	n2, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := n2.SetPodCIDR(ctx, cidr); err != nil {
		t.Fatal(err)
	}
	if got, ok := n2.Pod("a"); !ok || got != a {
		t.Fatalf("after a restart pod a is %+v (%v), want %+v", got, ok, a)
	}
	c, err := n2.SetUpPod(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
	if c.IP != "10.99.3.4" {
		t.Fatalf("pod c got %s, want the first free address 10.99.3.4", c.IP)
	}
	if got := dial("10.99.3.2:8080"); got != "a" {
		t.Errorf("after a restart, pod a answered %q", got)
	}

	// Tearing down frees everything; the address is given again.
	if err := n2.TearDownPod(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if err := n2.TearDownPod(ctx, "a"); err != nil {
		t.Fatalf("tearing down twice: %v", err)
	}
	if _, err := os.Stat(a.NetNS); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("namespace file of a: %v", err)
	}
	if err := exec.Command("ip", "link", "show", "dev", a.HostVeth).Run(); err == nil {
		t.Errorf("veth %s of a is still there", a.HostVeth)
	}
	d, err := n2.SetUpPod(ctx, "d")
	if err != nil {
		t.Fatal(err)
	}
	if d.IP != a.IP {
		t.Errorf("pod d got %s, want a's freed %s", d.IP, a.IP)
	}
	for _, id := range []string{"b", "c", "d"} {
		if err := n2.TearDownPod(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRoutesAndMasquerade(t *testing.T) {
	ctx := context.Background()
	n, err := New(Options{Dir: t.TempDir(), Bridge: "kctest0", ClusterCIDR: netip.MustParsePrefix("10.98.0.0/16")})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.SetPodCIDR(ctx, netip.MustParsePrefix("10.98.0.0/24")); err != nil {
		t.Fatal(err)
	}
	rules, err := masqueradeRules()
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 1 {
		t.Fatalf("%d masquerade rules, want 1", len(rules))
	}
	if _, ok := rules[0][len(rules[0])-1].(*expr.Masq); !ok {
		t.Fatalf("rule ends with %T, not masquerade", rules[0][len(rules[0])-1])
	}
	// Written again (a restart): still one rule.
	if err := writeMasquerade(netip.MustParsePrefix("10.98.0.0/16")); err != nil {
		t.Fatal(err)
	}
	if rules, err := masqueradeRules(); err != nil || len(rules) != 1 {
		t.Fatalf("after rewriting: %d rules, %v", len(rules), err)
	}

	// Nodes reached through addresses on the bridge's subnet.
	r1 := Route{Dst: netip.MustParsePrefix("10.98.1.0/24"), Via: netip.MustParseAddr("10.98.0.201")}
	r2 := Route{Dst: netip.MustParsePrefix("10.98.2.0/24"), Via: netip.MustParseAddr("10.98.0.202")}
	if err := n.SyncRoutes(ctx, []Route{r1, r2}); err != nil {
		t.Fatal(err)
	}
	show := func() string { return output(t, "ip", "-4", "route", "show", "proto", RouteProtocol) }
	if out := show(); !strings.Contains(out, "10.98.1.0/24 via 10.98.0.201") || !strings.Contains(out, "10.98.2.0/24 via 10.98.0.202") {
		t.Fatalf("routes:\n%s", out)
	}
	// Node 2 goes, node 1 moves.
	r1.Via = netip.MustParseAddr("10.98.0.211")
	if err := n.SyncRoutes(ctx, []Route{r1}); err != nil {
		t.Fatal(err)
	}
	if out := show(); strings.TrimSpace(out) == "" || strings.Contains(out, "10.98.2.0") || strings.Contains(out, "10.98.0.201") || !strings.Contains(out, "10.98.1.0/24 via 10.98.0.211") {
		t.Fatalf("routes after node 2 went and node 1 moved:\n%s", out)
	}
	if err := n.SyncRoutes(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if out := show(); strings.TrimSpace(out) != "" {
		t.Fatalf("routes left:\n%s", out)
	}

	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if rules, err := masqueradeRules(); err == nil && len(rules) > 0 {
		t.Fatalf("masquerade table left after Close: %d rules", len(rules))
	}
	if err := n.Close(); err != nil {
		t.Fatalf("closing twice: %v", err)
	}
}

// TestTwoBridgesOneHost is two kubelets on one host (conformance runs two
// nodes so): each with a bridge of its own, their pods reach each other
// through the host's connected routes, and neither routes the other's
// pod CIDR through their shared node address.
func TestTwoBridgesOneHost(t *testing.T) {
	ctx := context.Background()
	cluster := netip.MustParsePrefix("10.97.0.0/16")
	cidrs := []netip.Prefix{netip.MustParsePrefix("10.97.0.0/24"), netip.MustParsePrefix("10.97.1.0/24")}
	var pods []Pod
	for i, bridge := range []string{"kctest1", "kctest2"} {
		n, err := New(Options{Dir: t.TempDir(), Bridge: bridge, ClusterCIDR: cluster})
		if err != nil {
			t.Fatal(err)
		}
		if err := n.SetPodCIDR(ctx, cidrs[i]); err != nil {
			t.Fatal(err)
		}
		id := "pod-of-" + bridge // sandbox IDs are random, so unique on the host
		p, err := n.SetUpPod(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = n.TearDownPod(ctx, id) })
		pods = append(pods, p)
	}
	var ln net.Listener
	var err error
	inNetns(t, pods[1].NetNS, func() { ln, err = net.Listen("tcp", ":9376") })
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_, _ = io.WriteString(c, "second")
			_ = c.Close()
		}
	}()
	var got string
	inNetns(t, pods[0].NetNS, func() {
		c, err := net.DialTimeout("tcp", netip.AddrPortFrom(netip.MustParseAddr(pods[1].IP), 9376).String(), 10*time.Second)
		if err != nil {
			got = err.Error()
			return
		}
		defer func() { _ = c.Close() }()
		b, _ := io.ReadAll(c)
		got = string(b)
	})
	if got != "second" {
		t.Fatalf("a pod of the first bridge to one of the second: %q", got)
	}

	// Both Nodes have the host's address (or loopback) as InternalIP: no
	// route is wanted between them, only to the Node of another host.
	node := func(name, cidr, ip string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{PodCIDR: cidr},
			Status: corev1.NodeStatus{Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}}}}
	}
	nodes := []*corev1.Node{
		node("aio", "10.97.0.0/24", "192.0.2.2"),
		node("node-2", "10.97.1.0/24", "127.0.0.1"),
		node("other-host", "10.97.2.0/24", "192.0.2.3"),
	}
	local := map[netip.Addr]bool{netip.MustParseAddr("192.0.2.2"): true, netip.MustParseAddr("127.0.0.1"): true}
	for _, self := range []string{"aio", "node-2"} {
		own, routes := Routes(nodes, self, local)
		want := []Route{{Dst: netip.MustParsePrefix("10.97.2.0/24"), Via: netip.MustParseAddr("192.0.2.3")}}
		if !own.IsValid() || !slices.Equal(routes, want) {
			t.Errorf("Routes for %s = %s, %v; want its pod CIDR and %v", self, own, routes, want)
		}
	}
}
