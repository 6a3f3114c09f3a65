package network

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/netip"
	"slices"

	"github.com/google/nftables"
	"github.com/google/nftables/binaryutil"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"

	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/proxy"
)

// HostPort is one container port of a pod published on the node: traffic
// to HostIP:HostPort (any address of the node when HostIP is not valid)
// is sent to PodIP:PodPort.
type HostPort struct {
	Protocol corev1.Protocol
	HostIP   netip.Addr
	HostPort uint16
	PodIP    netip.Addr
	PodPort  uint16
}

func (h HostPort) String() string {
	host := "*"
	if h.HostIP.IsValid() {
		host = h.HostIP.String()
	}
	return fmt.Sprintf("%s %s:%d -> %s", h.Protocol, host, h.HostPort, netip.AddrPortFrom(h.PodIP, h.PodPort))
}

// PodHostPorts lists the host ports of the pods that have a network of
// their own and an IPv4 address and are not finished, sorted. A hostIP of
// 0.0.0.0 (or none) means every address of the node.
func PodHostPorts(pods []*corev1.Pod) []HostPort {
	var out []HostPort
	for _, p := range pods {
		if p.Spec.HostNetwork || p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
			continue
		}
		podIP, err := netip.ParseAddr(p.Status.PodIP)
		if err != nil || !podIP.Unmap().Is4() {
			continue
		}
		for _, c := range slices.Concat(p.Spec.InitContainers, p.Spec.Containers) {
			for _, cp := range c.Ports {
				if cp.HostPort <= 0 || cp.HostPort > 65535 || cp.ContainerPort <= 0 || cp.ContainerPort > 65535 {
					continue
				}
				proto := cp.Protocol
				if proto == "" {
					proto = corev1.ProtocolTCP
				}
				h := HostPort{Protocol: proto, HostPort: uint16(cp.HostPort), PodIP: podIP.Unmap(), PodPort: uint16(cp.ContainerPort)}
				if a, err := netip.ParseAddr(cp.HostIP); err == nil && !a.IsUnspecified() {
					if !a.Unmap().Is4() {
						continue // IPv6 host ports need an IPv6 pod address
					}
					h.HostIP = a.Unmap()
				}
				out = append(out, h)
			}
		}
	}
	slices.SortFunc(out, func(a, b HostPort) int {
		return cmp.Or(cmp.Compare(a.Protocol, b.Protocol), cmp.Compare(a.HostPort, b.HostPort), a.HostIP.Compare(b.HostIP), a.PodIP.Compare(b.PodIP))
	})
	return slices.Compact(out)
}

// hostPortTable is the nftables table of a node's host ports: one per
// node, since two kubelets may share a host (conformance runs do).
func hostPortTable(node string) *nftables.Table {
	h := sha256.Sum256([]byte(node))
	return &nftables.Table{Family: nftables.TableFamilyIPv4, Name: "kubecore-hostports-" + hex.EncodeToString(h[:])[:10]}
}

// writeHostPorts replaces, in one transaction, the node's host port
// table with one DNAT rule per mapping, applied to packets arriving
// (prerouting) and to those the node's own processes send to one of its
// addresses (output):
//
//	table ip kubecore-hostports-<hash> {
//		chain prerouting { type nat hook prerouting priority dstnat; jump hostports }
//		chain output { type nat hook output priority dstnat; fib daddr type local jump hostports }
//		chain hostports {
//			ip daddr <hostIP> meta l4proto <proto> th dport <hostPort> dnat to <podIP>:<port>
//			fib daddr type local meta l4proto <proto> th dport <hostPort> dnat to <podIP>:<port>
//		}
//	}
//
// With no mapping the table is removed. A connection from the node's
// loopback address (127.0.0.1 as source) is not rewritten to reach the
// pod: as with IPv6 in Kubernetes, the client names a node address as its
// source.
func writeHostPorts(node string, ports []HostPort) error {
	c, err := nftables.New()
	if err != nil {
		return fmt.Errorf("nftables: %w", err)
	}
	t := hostPortTable(node)
	c.AddTable(t)
	c.DelTable(t)
	if len(ports) > 0 {
		writeHostPortChains(c, t, ports)
	}
	if err := c.Flush(); err != nil {
		return fmt.Errorf("write the nftables table %s: %w", t.Name, err)
	}
	return nil
}

func writeHostPortChains(c *nftables.Conn, t *nftables.Table, ports []HostPort) {
	c.AddTable(t)
	dnat := c.AddChain(&nftables.Chain{Name: "hostports", Table: t})
	pre := c.AddChain(&nftables.Chain{Name: "prerouting", Table: t, Type: nftables.ChainTypeNAT,
		Hooknum: nftables.ChainHookPrerouting, Priority: nftables.ChainPriorityNATDest})
	out := c.AddChain(&nftables.Chain{Name: "output", Table: t, Type: nftables.ChainTypeNAT,
		Hooknum: nftables.ChainHookOutput, Priority: nftables.ChainPriorityNATDest})
	jump := &expr.Verdict{Kind: expr.VerdictJump, Chain: dnat.Name}
	c.AddRule(&nftables.Rule{Table: t, Chain: pre, Exprs: []expr.Any{jump}})
	c.AddRule(&nftables.Rule{Table: t, Chain: out, Exprs: append(proxy.FibLocal(false), jump)})
	for _, h := range ports {
		var exprs []expr.Any
		if h.HostIP.IsValid() {
			exprs = append(exprs,
				&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: 16, Len: 4},
				&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: h.HostIP.AsSlice()})
		} else {
			exprs = append(exprs, proxy.FibLocal(false)...)
		}
		exprs = append(exprs,
			&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{proxy.ProtocolNumber(h.Protocol)}},
			&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 2, Len: 2},
			&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: binaryutil.BigEndian.PutUint16(h.HostPort)},
			&expr.Immediate{Register: 1, Data: h.PodIP.AsSlice()},
			&expr.Immediate{Register: 2, Data: binaryutil.BigEndian.PutUint16(h.PodPort)},
			&expr.NAT{Type: expr.NATTypeDestNAT, Family: unix.NFPROTO_IPV4, RegAddrMin: 1, RegProtoMin: 2, Specified: true})
		c.AddRule(&nftables.Rule{Table: t, Chain: dnat, Exprs: exprs})
	}
}

// deleteHostPorts removes the node's host port table, if there is one.
func deleteHostPorts(node string) error {
	c, err := nftables.New()
	if err != nil {
		return fmt.Errorf("nftables: %w", err)
	}
	c.DelTable(hostPortTable(node))
	if err := c.Flush(); err != nil && !errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("delete the nftables table %s: %w", hostPortTable(node).Name, err)
	}
	return nil
}
