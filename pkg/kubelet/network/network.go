// Package network is the kubelet's pod network for the process runtime: a
// bridge holding the node's first pod CIDR address, a network namespace per
// pod (pinned under the kubelet's root dir) joined to the bridge by a veth
// pair, an address per pod from the node's pod CIDR (recorded in files, so a
// restarted kubelet keeps its pods' addresses), routes to the other nodes'
// pod CIDRs through their InternalIP, and masquerade (nftables) for traffic
// leaving the cluster CIDR.
//
// Links, addresses and routes are made with ip(8) and nsenter(1) (iproute2
// and util-linux, which the process runtime already needs); the masquerade
// rule is written over netlink with github.com/google/nftables, as no nft
// or iptables command need be installed.
package network

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"

	"k8s.io/klog/v2"
)

// Defaults.
const (
	DefaultBridge = "kubecore0"
	// RouteProtocol marks the routes to other nodes' pod CIDRs as this
	// package's (ip route ... proto 75), so that those of Nodes gone are
	// found and removed, also after a restart.
	RouteProtocol = "75"
	// TableName is the nftables table of the masquerade rule.
	TableName = "kubecore-podnet"
)

// Options configure a Network.
type Options struct {
	// Dir holds the state: netns/<sandbox> (the pinned namespaces),
	// pods/<sandbox>.json and ips/<address>.
	Dir string
	// Bridge is the bridge's name; DefaultBridge when empty.
	Bridge string
	// ClusterCIDR is the pods' range of the whole cluster: traffic from
	// it to anywhere else is masqueraded.
	ClusterCIDR netip.Prefix
}

// Network is one node's pod network. SetPodCIDR makes the bridge once the
// Node has a pod CIDR; SetUpPod and TearDownPod give a sandbox its network
// namespace; SyncRoutes keeps the routes to the other nodes.
type Network struct {
	opts Options

	mu      sync.Mutex
	podCIDR netip.Prefix
	ready   chan struct{} // closed once podCIDR is set
}

// Pod is the network of one sandbox, as recorded in pods/<id>.json.
type Pod struct {
	// IP is the pod's address.
	IP string `json:"ip"`
	// NetNS is the pinned network namespace's path.
	NetNS string `json:"netns"`
	// HostVeth is the host end of the veth pair.
	HostVeth string `json:"hostVeth"`
}

// New returns the network of the node, keeping its state under o.Dir.
func New(o Options) (*Network, error) {
	if o.Dir == "" {
		return nil, errors.New("pod network: a state dir is required")
	}
	if !o.ClusterCIDR.IsValid() || !o.ClusterCIDR.Addr().Is4() {
		return nil, fmt.Errorf("pod network: an IPv4 cluster CIDR is required, not %q", o.ClusterCIDR)
	}
	if o.Bridge == "" {
		o.Bridge = DefaultBridge
	}
	for _, d := range []string{"netns", "pods", "ips"} {
		if err := os.MkdirAll(filepath.Join(o.Dir, d), 0o700); err != nil {
			return nil, fmt.Errorf("pod network state dir: %w", err)
		}
	}
	return &Network{opts: o, ready: make(chan struct{})}, nil
}

// Supported reports why this process cannot make pod networks, or nil:
// it needs root, ip(8) and nsenter(1).
func Supported() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("the kubelet runs as uid %d, not root", os.Geteuid())
	}
	for _, p := range []string{"ip", "nsenter", "unshare"} {
		if _, err := exec.LookPath(p); err != nil {
			return fmt.Errorf("%s is not installed: %w", p, err)
		}
	}
	return nil
}

// run runs a command and returns its error with its output.
func run(ctx context.Context, stdin string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

// PodCIDR returns the node's pod CIDR, invalid until SetPodCIDR.
func (n *Network) PodCIDR() netip.Prefix {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.podCIDR
}

// gateway is the bridge's address: the pod CIDR's first.
func gateway(p netip.Prefix) netip.Addr { return p.Masked().Addr().Next() }

// SetPodCIDR makes (or checks) the bridge with the first address of the
// node's pod CIDR, turns IPv4 forwarding on and writes the masquerade
// rule. It is idempotent; a different pod CIDR later is an error (the
// Node's podCIDR cannot change).
func (n *Network) SetPodCIDR(ctx context.Context, p netip.Prefix) error {
	if !p.IsValid() || !p.Addr().Is4() || p.Bits() > 30 {
		return fmt.Errorf("pod CIDR %s: an IPv4 range of at least 4 addresses is required", p)
	}
	p = p.Masked()
	n.mu.Lock()
	cur := n.podCIDR
	n.mu.Unlock()
	if cur.IsValid() {
		if cur != p {
			return fmt.Errorf("the node's pod CIDR changed from %s to %s", cur, p)
		}
		return nil
	}
	br := n.opts.Bridge
	if err := run(ctx, "", "ip", "link", "show", "dev", br); err != nil {
		if err := run(ctx, "", "ip", "link", "add", "name", br, "type", "bridge"); err != nil {
			return fmt.Errorf("make bridge: %w", err)
		}
	}
	gw := netip.PrefixFrom(gateway(p), p.Bits())
	if err := run(ctx, "", "ip", "addr", "replace", gw.String(), "dev", br); err != nil {
		return fmt.Errorf("bridge address: %w", err)
	}
	if err := run(ctx, "", "ip", "link", "set", "dev", br, "up"); err != nil {
		return fmt.Errorf("bridge up: %w", err)
	}
	if err := os.WriteFile("/proc/sys/net/ipv4/ip_forward", []byte("1\n"), 0o644); err != nil {
		return fmt.Errorf("turn on IPv4 forwarding: %w", err)
	}
	if err := writeMasquerade(n.opts.ClusterCIDR); err != nil {
		return err
	}
	n.mu.Lock()
	if !n.podCIDR.IsValid() {
		n.podCIDR = p
		close(n.ready)
	}
	n.mu.Unlock()
	klog.InfoS("Pod network ready", "bridge", br, "podCIDR", p, "gateway", gw.Addr(), "clusterCIDR", n.opts.ClusterCIDR)
	return nil
}

// Close removes the masquerade table; the bridge, the pods' namespaces
// and the routes stay for pods left running and for the next kubelet.
func (n *Network) Close() error { return deleteMasquerade() }

// Ready is closed once the node's pod CIDR is known.
func (n *Network) Ready() <-chan struct{} { return n.ready }

// vethName is the host end's name for a sandbox: at most 15 bytes.
func vethName(id string) string {
	h := sha256.Sum256([]byte(id))
	return "kc" + hex.EncodeToString(h[:])[:11]
}

func (n *Network) podFile(id string) string { return filepath.Join(n.opts.Dir, "pods", id+".json") }
func (n *Network) nsPath(id string) string  { return filepath.Join(n.opts.Dir, "netns", id) }

// Pod returns the recorded network of a sandbox.
func (n *Network) Pod(id string) (Pod, bool) {
	var p Pod
	b, err := os.ReadFile(n.podFile(id))
	if err != nil || json.Unmarshal(b, &p) != nil {
		return Pod{}, false
	}
	return p, true
}

// SetUpPod gives the sandbox its network namespace, veth pair and address,
// waiting (as long as ctx allows) for the node's pod CIDR. It returns the
// address and the namespace's path; a sandbox set up already gets what it
// has.
func (n *Network) SetUpPod(ctx context.Context, id string) (Pod, error) {
	if p, ok := n.Pod(id); ok {
		return p, nil
	}
	select {
	case <-n.ready:
	case <-ctx.Done():
		return Pod{}, fmt.Errorf("pod network not ready: the node has no pod CIDR yet (is the controller-manager's node IPAM on?): %w", ctx.Err())
	}
	cidr := n.PodCIDR()
	ip, err := n.allocate(cidr, id)
	if err != nil {
		return Pod{}, err
	}
	p := Pod{IP: ip.String(), NetNS: n.nsPath(id), HostVeth: vethName(id)}
	if err := n.plumb(ctx, p, cidr); err != nil {
		n.cleanUp(ctx, id, p)
		return Pod{}, fmt.Errorf("set up the network of sandbox %s: %w", id, err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return Pod{}, err
	}
	if err := os.WriteFile(n.podFile(id), b, 0o600); err != nil {
		n.cleanUp(ctx, id, p)
		return Pod{}, fmt.Errorf("record the network of sandbox %s: %w", id, err)
	}
	klog.V(2).InfoS("Set up a pod network namespace", "sandbox", id, "ip", p.IP, "netns", p.NetNS, "veth", p.HostVeth)
	return p, nil
}

// plumb makes the namespace, the veth pair into it and the addresses and
// routes inside.
func (n *Network) plumb(ctx context.Context, p Pod, cidr netip.Prefix) error {
	f, err := os.OpenFile(p.NetNS, os.O_CREATE|os.O_RDONLY, 0o600)
	if err != nil {
		return fmt.Errorf("network namespace file: %w", err)
	}
	_ = f.Close()
	if err := run(ctx, "", "unshare", "--net="+p.NetNS, "true"); err != nil {
		return fmt.Errorf("make network namespace: %w", err)
	}
	_ = run(ctx, "", "ip", "link", "del", "dev", p.HostVeth) // a leftover of a failed attempt
	if err := run(ctx, "", "ip", "link", "add", "name", p.HostVeth, "type", "veth", "peer", "name", "eth0", "netns", p.NetNS); err != nil {
		return fmt.Errorf("make veth pair: %w", err)
	}
	if err := run(ctx, "", "ip", "link", "set", "dev", p.HostVeth, "master", n.opts.Bridge, "up"); err != nil {
		return fmt.Errorf("attach veth to the bridge: %w", err)
	}
	inside := fmt.Sprintf("link set dev lo up\naddr add %s/%d dev eth0\nlink set dev eth0 up\nroute add default via %s dev eth0\n",
		p.IP, cidr.Bits(), gateway(cidr))
	if err := run(ctx, inside, "nsenter", "--net="+p.NetNS, "ip", "-batch", "-"); err != nil {
		return fmt.Errorf("configure the pod's interfaces: %w", err)
	}
	return nil
}

// TearDownPod removes the sandbox's namespace, veth pair and address; a
// sandbox without a network is no error.
func (n *Network) TearDownPod(ctx context.Context, id string) error {
	p, ok := n.Pod(id)
	if !ok {
		p = Pod{NetNS: n.nsPath(id), HostVeth: vethName(id)}
	}
	if err := n.cleanUp(ctx, id, p); err != nil {
		return fmt.Errorf("tear down the network of sandbox %s: %w", id, err)
	}
	if err := os.Remove(n.podFile(id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("tear down the network of sandbox %s: %w", id, err)
	}
	klog.V(2).InfoS("Tore down a pod network namespace", "sandbox", id, "ip", p.IP)
	return nil
}

// cleanUp undoes plumb and releases the address.
func (n *Network) cleanUp(ctx context.Context, id string, p Pod) error {
	_ = run(ctx, "", "ip", "link", "del", "dev", p.HostVeth)
	var errs []error
	if err := syscall.Unmount(p.NetNS, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOENT) {
		errs = append(errs, fmt.Errorf("unmount %s: %w", p.NetNS, err))
	}
	if err := os.Remove(p.NetNS); err != nil && !errors.Is(err, os.ErrNotExist) {
		errs = append(errs, err)
	}
	errs = append(errs, n.release(id))
	return errors.Join(errs...)
}

// allocate takes the first free address of cidr (after the gateway,
// before the broadcast address) for the sandbox, as ips/<address> holding
// its ID.
func (n *Network) allocate(cidr netip.Prefix, id string) (netip.Addr, error) {
	last := lastAddr(cidr)
	for a := gateway(cidr).Next(); a.IsValid() && a.Less(last); a = a.Next() {
		f, err := os.OpenFile(filepath.Join(n.opts.Dir, "ips", a.String()), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if errors.Is(err, os.ErrExist) {
			continue
		}
		if err != nil {
			return netip.Addr{}, fmt.Errorf("allocate a pod IP: %w", err)
		}
		_, err = f.WriteString(id)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return netip.Addr{}, fmt.Errorf("allocate a pod IP: %w", err)
		}
		return a, nil
	}
	return netip.Addr{}, fmt.Errorf("allocate a pod IP: every address of %s is taken", cidr)
}

// release frees the addresses held by the sandbox.
func (n *Network) release(id string) error {
	dir := filepath.Join(n.opts.Dir, "ips")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("release pod IP: %w", err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err == nil && string(b) == id {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("release pod IP %s: %w", e.Name(), err)
			}
		}
	}
	return nil
}

// lastAddr is the broadcast address of p.
func lastAddr(p netip.Prefix) netip.Addr {
	b := p.Masked().Addr().As4()
	host := uint32(1)<<(32-p.Bits()) - 1
	v := uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])
	v |= host
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
}

// Route is a route to another node's pod CIDR through its address.
type Route struct {
	Dst netip.Prefix
	Via netip.Addr
}

// SyncRoutes makes the routes of this package exactly want: missing or
// changed ones are replaced, those of Nodes gone are removed.
func (n *Network) SyncRoutes(ctx context.Context, want []Route) error {
	out, err := exec.CommandContext(ctx, "ip", "-4", "route", "show", "proto", RouteProtocol).Output()
	if err != nil {
		return fmt.Errorf("list pod routes: %w", err)
	}
	have := map[string]string{} // destination -> gateway
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[1] == "via" {
			have[f[0]] = f[2]
		}
	}
	wanted := map[string]bool{}
	var errs []error
	for _, r := range want {
		dst, via := r.Dst.Masked().String(), r.Via.String()
		wanted[dst] = true
		if have[dst] == via {
			continue
		}
		if err := run(ctx, "", "ip", "route", "replace", dst, "via", via, "proto", RouteProtocol); err != nil {
			errs = append(errs, err)
			continue
		}
		klog.V(2).InfoS("Set the route to a node's pods", "podCIDR", dst, "via", via)
	}
	for _, dst := range slices.Sorted(maps.Keys(have)) {
		if wanted[dst] {
			continue
		}
		if err := run(ctx, "", "ip", "route", "del", dst, "proto", RouteProtocol); err != nil {
			errs = append(errs, err)
			continue
		}
		klog.V(2).InfoS("Removed the route to a node's pods", "podCIDR", dst, "via", have[dst])
	}
	return errors.Join(errs...)
}
