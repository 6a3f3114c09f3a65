package proxy

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/nftables"
	"golang.org/x/sys/unix"

	"kubecore.io/kubecore/pkg/proxy"
)

// host is a network namespace standing for a node: lo up, and a veth
// pair whose end d0 holds the node addresses and the default route.
type host struct {
	name string
	fd   int
}

func newHost(t testing.TB, addrs ...string) *host {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatalf("the proxy test makes network namespaces and programs nftables: it needs root (uid %d)", os.Geteuid())
	}
	name := fmt.Sprintf("kcpx%d", os.Getpid())
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	_ = exec.Command("ip", "netns", "del", name).Run()
	run("netns", "add", name)
	t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", name).Run() })
	run("-n", name, "link", "set", "lo", "up")
	run("-n", name, "link", "add", "d0", "type", "veth", "peer", "name", "d1")
	for _, a := range addrs {
		run("-n", name, "addr", "add", a+"/24", "dev", "d0")
	}
	run("-n", name, "link", "set", "d1", "up")
	run("-n", name, "link", "set", "d0", "up")
	run("-n", name, "route", "add", "default", "dev", "d0")
	fd, err := unix.Open("/var/run/netns/"+name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = unix.Close(fd) })
	return &host{name: name, fd: fd}
}

// do runs f on a thread in the namespace, thrown away afterwards.
func (h *host) do(f func()) error {
	done := make(chan error)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread exits
		if err := unix.Setns(h.fd, unix.CLONE_NEWNET); err != nil {
			done <- err
			return
		}
		f()
		done <- nil
	}()
	return <-done
}

// serve answers every connection to addr with reply.
func (h *host) serve(t testing.TB, addr, reply string) {
	t.Helper()
	var l net.Listener
	var lerr error
	if err := h.do(func() { l, lerr = net.Listen("tcp", addr) }); err != nil || lerr != nil {
		t.Fatalf("listen %s: %v %v", addr, err, lerr)
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
func (h *host) dial(addr string, timeout time.Duration) (string, error) {
	var out string
	var derr error
	if err := h.do(func() {
		c, err := net.DialTimeout("tcp", addr, timeout)
		if err != nil {
			derr = err
			return
		}
		defer func() { _ = c.Close() }()
		_ = c.SetDeadline(time.Now().Add(timeout))
		b := make([]byte, 64)
		n, _ := c.Read(b)
		out = string(b[:n])
	}); err != nil {
		return "", err
	}
	return out, derr
}

// dialer returns a function that connects from the namespace, on one
// thread kept there, for the rate figure.
func (h *host) dialMany(addr string, n int) (time.Duration, error) {
	var elapsed time.Duration
	var derr error
	err := h.do(func() {
		start := time.Now()
		for range n {
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				derr = err
				return
			}
			b := make([]byte, 8)
			_, _ = c.Read(b)
			_ = c.Close()
		}
		elapsed = time.Since(start)
	})
	if err != nil {
		return 0, err
	}
	return elapsed, derr
}

// listing is the kubecore-proxy table as the kernel holds it, without
// handles; "" when there is none.
func (h *host) listing(t testing.TB) string {
	t.Helper()
	c, err := nftables.New(nftables.WithNetNSFd(h.fd))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, fam := range []nftables.TableFamily{nftables.TableFamilyIPv4, nftables.TableFamilyIPv6} {
		tbl, err := c.ListTableOfFamily(proxy.TableName, fam)
		if err != nil {
			continue
		}
		chains, err := c.ListChainsOfTableFamily(fam)
		if err != nil {
			t.Fatal(err)
		}
		for _, ch := range chains {
			if ch.Table.Name != proxy.TableName {
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
