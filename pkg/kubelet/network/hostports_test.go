package network

import (
	"context"
	"io"
	"net"
	"net/netip"
	"os/exec"
	"slices"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func TestPodHostPorts(t *testing.T) {
	pod := func(name, ip string, mut func(*corev1.Pod), ports ...corev1.ContainerPort) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Ports: ports}}},
			Status: corev1.PodStatus{PodIP: ip, Phase: corev1.PodRunning}}
		if mut != nil {
			mut(p)
		}
		return p
	}
	got := PodHostPorts([]*corev1.Pod{
		pod("local", "10.0.0.2", nil, corev1.ContainerPort{ContainerPort: 8080, HostPort: 54323, HostIP: "127.0.0.1"}),
		pod("node", "10.0.0.3", nil, corev1.ContainerPort{ContainerPort: 8080, HostPort: 54323, HostIP: "192.0.2.1", Protocol: corev1.ProtocolTCP},
			corev1.ContainerPort{ContainerPort: 9090}), // no host port
		pod("udp", "10.0.0.4", nil, corev1.ContainerPort{ContainerPort: 8080, HostPort: 54323, HostIP: "0.0.0.0", Protocol: corev1.ProtocolUDP}),
		pod("no-ip-yet", "", nil, corev1.ContainerPort{ContainerPort: 80, HostPort: 8000}),
		pod("host-network", "192.0.2.1", func(p *corev1.Pod) { p.Spec.HostNetwork = true }, corev1.ContainerPort{ContainerPort: 80, HostPort: 80}),
		pod("done", "10.0.0.5", func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }, corev1.ContainerPort{ContainerPort: 80, HostPort: 81}),
	})
	want := []HostPort{
		{Protocol: corev1.ProtocolTCP, HostIP: netip.MustParseAddr("127.0.0.1"), HostPort: 54323, PodIP: netip.MustParseAddr("10.0.0.2"), PodPort: 8080},
		{Protocol: corev1.ProtocolTCP, HostIP: netip.MustParseAddr("192.0.2.1"), HostPort: 54323, PodIP: netip.MustParseAddr("10.0.0.3"), PodPort: 8080},
		{Protocol: corev1.ProtocolUDP, HostPort: 54323, PodIP: netip.MustParseAddr("10.0.0.4"), PodPort: 8080},
	}
	if !slices.Equal(got, want) {
		t.Errorf("PodHostPorts:\n got %v\nwant %v", got, want)
	}
}

// TestHostPorts publishes pods' ports on the node as the HostPort
// conformance spec does: the same host port on 127.0.0.1 and on the node's
// address for TCP, and on the node's address for UDP, each reaching its
// own pod; a host port on every address; from the node and from a pod.
func TestHostPorts(t *testing.T) {
	ctx := context.Background()
	// The node's address, on one end of a veth pair (as a NIC).
	output(t, "ip", "link", "add", "kchp0", "type", "veth", "peer", "name", "kchp1")
	t.Cleanup(func() { _ = runQuiet("ip", "link", "del", "kchp0") })
	output(t, "ip", "addr", "add", "192.0.2.1/24", "dev", "kchp0")
	output(t, "ip", "link", "set", "kchp0", "up")
	output(t, "ip", "link", "set", "kchp1", "up")
	nodeIP := netip.MustParseAddr("192.0.2.1")

	n, err := New(Options{Dir: t.TempDir(), Bridge: "kctest5", ClusterCIDR: netip.MustParsePrefix("10.95.0.0/16")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = runQuiet("ip", "link", "del", "kctest5") })
	if err := n.SetPodCIDR(ctx, netip.MustParsePrefix("10.95.1.0/24")); err != nil {
		t.Fatal(err)
	}
	pods := map[string]Pod{}
	for _, id := range []string{"a", "b", "c"} {
		p, err := n.SetUpPod(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = n.TearDownPod(ctx, id) })
		pods[id] = p
	}
	for _, id := range []string{"a", "b"} {
		var ln net.Listener
		inNetns(t, pods[id].NetNS, func() { ln, err = net.Listen("tcp", ":8080") })
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				_, _ = io.WriteString(c, id)
				_ = c.Close()
			}
		}()
	}
	var pc net.PacketConn
	inNetns(t, pods["c"].NetNS, func() { pc, err = net.ListenPacket("udp", ":8080") })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pc.Close() })
	go func() {
		buf := make([]byte, 64)
		for {
			_, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			_, _ = pc.WriteTo([]byte("c"), from)
		}
	}()

	ip := func(id string) netip.Addr { return netip.MustParseAddr(pods[id].IP) }
	ports := []HostPort{
		{Protocol: corev1.ProtocolTCP, HostIP: netip.MustParseAddr("127.0.0.1"), HostPort: 54323, PodIP: ip("a"), PodPort: 8080},
		{Protocol: corev1.ProtocolTCP, HostIP: nodeIP, HostPort: 54323, PodIP: ip("b"), PodPort: 8080},
		{Protocol: corev1.ProtocolUDP, HostIP: nodeIP, HostPort: 54323, PodIP: ip("c"), PodPort: 8080},
		{Protocol: corev1.ProtocolTCP, HostPort: 54324, PodIP: ip("a"), PodPort: 8080},
	}
	const node = "node-hp"
	if err := writeHostPorts(node, ports); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = deleteHostPorts(node) })
	// Written again (a restart, a pod change): replaced, not added to.
	if err := writeHostPorts(node, ports); err != nil {
		t.Fatal(err)
	}

	dialTCP := func(from netip.Addr, to string) (string, error) {
		d := net.Dialer{Timeout: 3 * time.Second}
		if from.IsValid() {
			d.LocalAddr = &net.TCPAddr{IP: from.AsSlice()}
		}
		c, err := d.Dial("tcp", to)
		if err != nil {
			return "", err
		}
		defer func() { _ = c.Close() }()
		_ = c.SetDeadline(time.Now().Add(3 * time.Second))
		b, err := io.ReadAll(c)
		return string(b), err
	}
	for _, tc := range []struct {
		from netip.Addr
		to   string
		want string
	}{
		{nodeIP, "127.0.0.1:54323", "a"}, // curl --interface <node IP> http://127.0.0.1:54323
		{netip.Addr{}, "192.0.2.1:54323", "b"},
		{netip.Addr{}, "192.0.2.1:54324", "a"},
		{netip.Addr{}, "10.95.1.1:54324", "a"}, // any node address
	} {
		if got, err := dialTCP(tc.from, tc.to); err != nil || got != tc.want {
			t.Errorf("TCP to %s (from %v): %q, %v; want %q", tc.to, tc.from, got, err, tc.want)
		}
	}
	if _, err := dialTCP(netip.Addr{}, "10.95.1.1:54323"); err == nil {
		t.Error("a host port of one address answered on another")
	}
	// UDP on the node's address, as `echo hostname | nc -u <node IP> 54323`.
	uc, err := net.Dial("udp", "192.0.2.1:54323")
	if err != nil {
		t.Fatal(err)
	}
	_ = uc.SetDeadline(time.Now().Add(3 * time.Second))
	buf := make([]byte, 8)
	if _, err := uc.Write([]byte("hostname")); err != nil {
		t.Fatal(err)
	}
	if k, err := uc.Read(buf); err != nil || string(buf[:k]) != "c" {
		t.Errorf("UDP to 192.0.2.1:54323: %q, %v; want \"c\"", buf[:k], err)
	}
	_ = uc.Close()
	// From a pod (prerouting): pod b reaches the node's port of pod a.
	var fromB string
	inNetns(t, pods["b"].NetNS, func() { fromB, err = dialTCP(netip.Addr{}, "192.0.2.1:54324") })
	if err != nil || fromB != "a" {
		t.Errorf("pod b to the node's host port 54324: %q, %v; want \"a\"", fromB, err)
	}

	// No host ports: the table goes.
	if err := writeHostPorts(node, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := dialTCP(netip.Addr{}, "192.0.2.1:54323"); err == nil {
		t.Error("the host port answered after its removal")
	}
	if err := deleteHostPorts(node); err != nil {
		t.Errorf("deleting an absent table: %v", err)
	}
}

func runQuiet(name string, args ...string) error {
	return exec.Command(name, args...).Run()
}
