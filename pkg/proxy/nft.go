package proxy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/google/nftables"
	"github.com/google/nftables/binaryutil"
	"github.com/google/nftables/expr"
	"golang.org/x/sys/unix"

	corev1 "kubecore.io/api/core/v1"
)

// TableName is the proxy's own table, in the ip and ip6 families; the
// proxy touches nothing else.
const TableName = "kubecore-proxy"

// MasqueradeMark is the packet mark bit that asks the postrouting chain
// to masquerade (hairpin traffic, node port traffic of Cluster policy).
const MasqueradeMark = 0x4000

// Chains of the table.
const (
	chainServices    = "services"
	chainNoEndpoints = "reject-no-endpoints"
)

// rule is one rule of a chain: its nft-syntax text (for logs and tests)
// and its expressions.
type rule struct {
	text  []string
	exprs []expr.Any
}

func (r *rule) add(text string, e ...expr.Any) *rule {
	if text != "" {
		r.text = append(r.text, text)
	}
	r.exprs = append(r.exprs, e...)
	return r
}

func (r *rule) String() string { return strings.Join(r.text, " ") }

// chain is a base chain (hook set) or a regular one.
type chain struct {
	name     string
	typ      nftables.ChainType
	hook     *nftables.ChainHook
	priority int32
	rules    []*rule
}

func (c *chain) rule() *rule {
	r := &rule{}
	c.rules = append(c.rules, r)
	return r
}

// affinitySet is a set of client addresses with a timeout, one per
// endpoint of a service with ClientIP affinity.
type affinitySet struct {
	name    string
	id      uint32
	timeout time.Duration
}

// Program is the whole content of the proxy's table in one family, built
// from ServicePorts; applying it replaces the table in one transaction.
type Program struct {
	Family Family
	sets   []*affinitySet
	chains []*chain
}

// String renders the program in nft syntax, one line per chain and rule.
func (p *Program) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "table %s %s\n", p.familyName(), TableName)
	for _, s := range p.sets {
		fmt.Fprintf(&b, "set %s timeout %s\n", s.name, s.timeout)
	}
	for _, c := range p.chains {
		if c.hook != nil {
			fmt.Fprintf(&b, "chain %s { type %s hook %s priority %d }\n", c.name, c.typ, hookName(*c.hook), c.priority)
		} else {
			fmt.Fprintf(&b, "chain %s\n", c.name)
		}
		for _, r := range c.rules {
			fmt.Fprintf(&b, "  %s\n", r)
		}
	}
	return b.String()
}

func (p *Program) familyName() string {
	if p.Family == IPv6 {
		return "ip6"
	}
	return "ip"
}

func hookName(h nftables.ChainHook) string {
	switch h {
	case *nftables.ChainHookPrerouting:
		return "prerouting"
	case *nftables.ChainHookInput:
		return "input"
	case *nftables.ChainHookForward:
		return "forward"
	case *nftables.ChainHookOutput:
		return "output"
	case *nftables.ChainHookPostrouting:
		return "postrouting"
	}
	return fmt.Sprint(h)
}

// builder holds the family's header offsets.
type builder struct {
	fam                Family
	saddrOff, daddrOff uint32
	addrLen            uint32
	natFamily          uint32
	portUnreachCode    uint8
}

func newBuilder(fam Family) builder {
	if fam == IPv6 {
		return builder{fam: fam, saddrOff: 8, daddrOff: 24, addrLen: 16, natFamily: unix.NFPROTO_IPV6, portUnreachCode: 4}
	}
	return builder{fam: fam, saddrOff: 12, daddrOff: 16, addrLen: 4, natFamily: unix.NFPROTO_IPV4, portUnreachCode: 3}
}

func (b builder) ipWord() string {
	if b.fam == IPv6 {
		return "ip6"
	}
	return "ip"
}

func (b builder) addrMatch(r *rule, off uint32, what string, a netip.Addr) {
	r.add(fmt.Sprintf("%s %s %s", b.ipWord(), what, a),
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: off, Len: b.addrLen},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: a.AsSlice()})
}

func (b builder) daddr(r *rule, a netip.Addr) { b.addrMatch(r, b.daddrOff, "daddr", a) }
func (b builder) saddr(r *rule, a netip.Addr) { b.addrMatch(r, b.saddrOff, "saddr", a) }

// notLoopbackDest excludes loopback destinations, which cannot be
// DNATed to another host's address.
func (b builder) notLoopbackDest(r *rule) {
	if b.fam == IPv6 {
		r.add("ip6 daddr != ::1",
			&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: b.daddrOff, Len: 16},
			&expr.Cmp{Op: expr.CmpOpNeq, Register: 1, Data: netip.IPv6Loopback().AsSlice()})
		return
	}
	r.add("ip daddr != 127.0.0.0/8",
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: b.daddrOff, Len: 4},
		&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 4, Mask: []byte{255, 0, 0, 0}, Xor: []byte{0, 0, 0, 0}},
		&expr.Cmp{Op: expr.CmpOpNeq, Register: 1, Data: []byte{127, 0, 0, 0}})
}

// ProtocolNumber is the IP protocol number of a Kubernetes protocol (TCP
// when unset), as nft's "meta l4proto" compares it.
func ProtocolNumber(p corev1.Protocol) byte {
	switch p {
	case corev1.ProtocolUDP:
		return unix.IPPROTO_UDP
	case corev1.ProtocolSCTP:
		return unix.IPPROTO_SCTP
	}
	return unix.IPPROTO_TCP
}

// protoPort matches the transport protocol and destination port.
func protoPort(r *rule, p corev1.Protocol, port uint16) {
	r.add(fmt.Sprintf("meta l4proto %s th dport %d", strings.ToLower(string(p)), port),
		&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{ProtocolNumber(p)}},
		&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseTransportHeader, Offset: 2, Len: 2},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: binaryutil.BigEndian.PutUint16(port)})
}

// fibLocal matches packets whose source or destination is an address of
// this host.
func fibLocal(r *rule, source bool) {
	what := "daddr"
	if source {
		what = "saddr"
	}
	r.add(fmt.Sprintf("fib %s type local", what), FibLocal(source)...)
}

// FibLocal matches packets whose destination (or, with source, whose
// source) is an address of this host: nft's "fib daddr type local". The
// pod network's host port table shares it.
func FibLocal(source bool) []expr.Any {
	return []expr.Any{
		&expr.Fib{Register: 1, FlagDADDR: !source, FlagSADDR: source, ResultADDRTYPE: true},
		&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: binaryutil.NativeEndian.PutUint32(unix.RTN_LOCAL)},
	}
}

func setMasqueradeMark(r *rule) {
	r.add(fmt.Sprintf("meta mark set mark | %#x", MasqueradeMark),
		&expr.Meta{Key: expr.MetaKeyMARK, Register: 1},
		&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 4,
			Mask: binaryutil.NativeEndian.PutUint32(^uint32(MasqueradeMark)), Xor: binaryutil.NativeEndian.PutUint32(MasqueradeMark)},
		&expr.Meta{Key: expr.MetaKeyMARK, SourceRegister: true, Register: 1})
}

func verdict(r *rule, kind expr.VerdictKind, target string) {
	word := map[expr.VerdictKind]string{expr.VerdictJump: "jump", expr.VerdictGoto: "goto"}[kind]
	r.add(word+" "+target, &expr.Verdict{Kind: kind, Chain: target})
}

// Build makes the program of one family from its service ports.
func Build(fam Family, ports []*ServicePort) *Program {
	b := newBuilder(fam)
	p := &Program{Family: fam}
	base := func(name string, typ nftables.ChainType, hook *nftables.ChainHook, prio int32) *chain {
		c := &chain{name: name, typ: typ, hook: hook, priority: prio}
		p.chains = append(p.chains, c)
		return c
	}
	// DNAT for packets arriving (pods, other hosts) and for packets the
	// host's own processes send.
	for _, c := range []*chain{
		base("nat-prerouting", nftables.ChainTypeNAT, nftables.ChainHookPrerouting, -100),
		base("nat-output", nftables.ChainTypeNAT, nftables.ChainHookOutput, -100),
	} {
		verdict(c.rule(), expr.VerdictJump, chainServices)
	}
	post := base("nat-postrouting", nftables.ChainTypeNAT, nftables.ChainHookPostrouting, 100)
	post.rule().add(fmt.Sprintf("meta mark & %#x != 0 masquerade", MasqueradeMark),
		&expr.Meta{Key: expr.MetaKeyMARK, Register: 1},
		&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 4,
			Mask: binaryutil.NativeEndian.PutUint32(MasqueradeMark), Xor: binaryutil.NativeEndian.PutUint32(0)},
		&expr.Cmp{Op: expr.CmpOpNeq, Register: 1, Data: binaryutil.NativeEndian.PutUint32(0)},
		&expr.Masq{})
	// New connections to a service without endpoints are refused before
	// any NAT: filter chains ahead of dstnat (priority -110).
	for _, c := range []*chain{
		base("filter-input", nftables.ChainTypeFilter, nftables.ChainHookInput, -110),
		base("filter-forward", nftables.ChainTypeFilter, nftables.ChainHookForward, -110),
		base("filter-output", nftables.ChainTypeFilter, nftables.ChainHookOutput, -110),
	} {
		r := c.rule().add("ct state new",
			&expr.Ct{Register: 1, Key: expr.CtKeySTATE},
			&expr.Bitwise{SourceRegister: 1, DestRegister: 1, Len: 4,
				Mask: binaryutil.NativeEndian.PutUint32(expr.CtStateBitNEW), Xor: binaryutil.NativeEndian.PutUint32(0)},
			&expr.Cmp{Op: expr.CmpOpNeq, Register: 1, Data: binaryutil.NativeEndian.PutUint32(0)})
		verdict(r, expr.VerdictJump, chainNoEndpoints)
	}
	services := base(chainServices, "", nil, 0)
	reject := base(chainNoEndpoints, "", nil, 0)
	var nodePorts []*rule
	for _, sp := range ports {
		id := sp.chainID()
		svcChain, extChain := "svc-"+id+"-"+sp.Name, "ext-"+id+"-"+sp.Name
		addrs := append([]netip.Addr{sp.ClusterIP}, sp.ExternalIPs...)
		if len(sp.Endpoints) == 0 {
			for _, a := range addrs {
				r := reject.rule()
				b.daddr(r, a)
				protoPort(r, sp.Protocol, sp.Port)
				b.reject(r, sp.Protocol)
			}
			if sp.NodePort != 0 {
				r := reject.rule()
				fibLocal(r, false)
				protoPort(r, sp.Protocol, sp.NodePort)
				b.reject(r, sp.Protocol)
			}
			continue
		}
		for _, a := range addrs {
			r := services.rule()
			b.daddr(r, a)
			protoPort(r, sp.Protocol, sp.Port)
			verdict(r, expr.VerdictGoto, svcChain)
		}
		// The endpoint chains: hairpin masquerade, affinity, DNAT.
		epChains := make([]string, len(sp.Endpoints))
		var sets []*affinitySet
		for i, ep := range sp.Endpoints {
			epChains[i] = fmt.Sprintf("ep-%s-%d-%s", id, i, ep)
			c := base(epChains[i], "", nil, 0)
			r := c.rule()
			b.saddr(r, ep.IP)
			setMasqueradeMark(r)
			if sp.AffinitySeconds > 0 {
				// Named after the endpoint, not its place in the list, so
				// that the next program finds the clients it remembers
				// (see queue) whatever endpoints come and go.
				s := &affinitySet{name: fmt.Sprintf("affinity-%s-%s", id, endpointID(ep)), id: uint32(len(p.sets) + 1), timeout: time.Duration(sp.AffinitySeconds) * time.Second}
				p.sets = append(p.sets, s)
				sets = append(sets, s)
				c.rule().add(fmt.Sprintf("update @%s { %s saddr }", s.name, b.ipWord()),
					&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: b.saddrOff, Len: b.addrLen},
					&expr.Dynset{SrcRegKey: 1, SetName: s.name, SetID: s.id, Operation: unix.NFT_DYNSET_OP_UPDATE, Timeout: s.timeout})
			}
			c.rule().add(fmt.Sprintf("meta l4proto %s dnat to %s", strings.ToLower(string(sp.Protocol)), ep),
				&expr.Meta{Key: expr.MetaKeyL4PROTO, Register: 1},
				&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: []byte{ProtocolNumber(sp.Protocol)}},
				&expr.Immediate{Register: 1, Data: ep.IP.AsSlice()},
				&expr.Immediate{Register: 2, Data: binaryutil.BigEndian.PutUint16(ep.Port)},
				&expr.NAT{Type: expr.NATTypeDestNAT, Family: b.natFamily, RegAddrMin: 1, RegProtoMin: 2, Specified: true})
		}
		svc := base(svcChain, "", nil, 0)
		for i, s := range sets {
			r := svc.rule().add(fmt.Sprintf("%s saddr @%s", b.ipWord(), s.name),
				&expr.Payload{DestRegister: 1, Base: expr.PayloadBaseNetworkHeader, Offset: b.saddrOff, Len: b.addrLen},
				&expr.Lookup{SourceRegister: 1, SetName: s.name, SetID: s.id})
			verdict(r, expr.VerdictGoto, epChains[i])
		}
		balance(svc, epChains)
		if sp.NodePort == 0 {
			continue
		}
		r := &rule{}
		fibLocal(r, false)
		b.notLoopbackDest(r)
		protoPort(r, sp.Protocol, sp.NodePort)
		verdict(r, expr.VerdictGoto, extChain)
		nodePorts = append(nodePorts, r)
		ext := base(extChain, "", nil, 0)
		if !sp.LocalOnly {
			// Cluster policy: any endpoint, the client masqueraded so
			// that replies come back through this node.
			setMasqueradeMark(ext.rule())
			verdict(ext.rule(), expr.VerdictGoto, svcChain)
			continue
		}
		// Local policy: the host's own traffic is treated as Cluster;
		// the rest goes to local endpoints with its source kept, or is
		// dropped when there is none here.
		r = ext.rule()
		fibLocal(r, true)
		verdict(r, expr.VerdictGoto, svcChain)
		var local []string
		for i, ep := range sp.Endpoints {
			if ep.Local {
				local = append(local, epChains[i])
			}
		}
		if len(local) == 0 {
			ext.rule().add("drop", &expr.Verdict{Kind: expr.VerdictDrop})
			continue
		}
		balance(ext, local)
	}
	// Node ports last, after every cluster and external IP.
	services.rules = append(services.rules, nodePorts...)
	return p
}

// endpointID is a short name for an endpoint, fit for a set name (at
// most 256 bytes with the prefix).
func endpointID(ep Endpoint) string {
	h := sha256.Sum256([]byte(ep.String()))
	return strings.ToUpper(hex.EncodeToString(h[:])[:12])
}

// balance spreads new connections evenly over targets: rule i takes
// 1/(n-i) of what reaches it, the last takes the rest.
func balance(c *chain, targets []string) {
	n := len(targets)
	for i, t := range targets {
		r := c.rule()
		if i < n-1 {
			r.add(fmt.Sprintf("numgen random mod %d == 0", n-i),
				&expr.Numgen{Register: 1, Modulus: uint32(n - i), Type: unix.NFT_NG_RANDOM},
				&expr.Cmp{Op: expr.CmpOpEq, Register: 1, Data: binaryutil.NativeEndian.PutUint32(0)})
		}
		verdict(r, expr.VerdictGoto, t)
	}
}

// reject refuses: a TCP reset, or ICMP port unreachable for UDP and SCTP.
func (b builder) reject(r *rule, p corev1.Protocol) {
	if p == corev1.ProtocolTCP {
		r.add("reject with tcp reset", &expr.Reject{Type: unix.NFT_REJECT_TCP_RST})
		return
	}
	r.add("reject with port-unreachable", &expr.Reject{Type: unix.NFT_REJECT_ICMP_UNREACH, Code: b.portUnreachCode})
}

func (p *Program) table() *nftables.Table {
	fam := nftables.TableFamilyIPv4
	if p.Family == IPv6 {
		fam = nftables.TableFamilyIPv6
	}
	return &nftables.Table{Name: TableName, Family: fam}
}

// queue adds the transaction that replaces the table with the program to
// c: adding the table first makes the delete valid when it is missing.
// The clients the current table's affinity sets remember are carried into
// the new sets of the same name with the time they have left, as
// kube-proxy keeps affinity across updates: a change of any service must
// not send the clients of another to a new endpoint. (A client first seen
// between this read and the transaction is forgotten: at worst it picks
// an endpoint anew once.)
func (p *Program) queue(c *nftables.Conn) {
	t := p.table()
	keyType := nftables.TypeIPAddr
	if p.Family == IPv6 {
		keyType = nftables.TypeIP6Addr
	}
	kept := make([][]nftables.SetElement, len(p.sets))
	for i, s := range p.sets {
		kept[i] = rememberedClients(c, t, s)
	}
	c.AddTable(t)
	c.DelTable(t)
	c.AddTable(t)
	for i, s := range p.sets {
		// AddSet fails only on bad element data; these are the kernel's.
		_ = c.AddSet(&nftables.Set{Table: t, Name: s.name, ID: s.id, KeyType: keyType, HasTimeout: true, Timeout: s.timeout, Dynamic: true}, kept[i])
	}
	chains := make(map[string]*nftables.Chain, len(p.chains))
	for _, ch := range p.chains {
		nc := &nftables.Chain{Name: ch.name, Table: t}
		if ch.hook != nil {
			prio := nftables.ChainPriority(ch.priority)
			nc.Type, nc.Hooknum, nc.Priority = ch.typ, ch.hook, &prio
		}
		chains[ch.name] = c.AddChain(nc)
	}
	for _, ch := range p.chains {
		for _, r := range ch.rules {
			c.AddRule(&nftables.Rule{Table: t, Chain: chains[ch.name], Exprs: r.exprs})
		}
	}
}

// rememberedClients reads the elements of the current table's set named
// as s, each with the time it has left (at most s's timeout) as its
// timeout; none when there is no such set.
func rememberedClients(c *nftables.Conn, t *nftables.Table, s *affinitySet) []nftables.SetElement {
	elems, err := c.GetSetElements(&nftables.Set{Table: t, Name: s.name})
	if err != nil {
		return nil
	}
	out := make([]nftables.SetElement, 0, len(elems))
	for _, e := range elems {
		left := min(e.Expires, s.timeout)
		if left < time.Millisecond {
			continue // expired, or no expiry reported
		}
		out = append(out, nftables.SetElement{Key: e.Key, Timeout: left})
	}
	return out
}

// queueDelete adds the transaction that removes the table to c.
func (p *Program) queueDelete(c *nftables.Conn) {
	t := p.table()
	c.AddTable(t)
	c.DelTable(t)
}
