package dns

import (
	"net/netip"
	"slices"
	"strings"

	mdns "github.com/miekg/dns"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
)

// Store is what the server reads the cluster from; the informers' caches
// provide it (see NewInformerStore).
type Store interface {
	// Service returns the service ns/name.
	Service(ns, name string) (*corev1.Service, bool)
	// EndpointSlices returns the slices of the service ns/name.
	EndpointSlices(ns, name string) []*discoveryv1.EndpointSlice
	// HasServices reports whether namespace ns holds a service.
	HasServices(ns string) bool
	// ServicesWithIP returns the services one of whose cluster IPs is ip
	// (in its canonical text form).
	ServicesWithIP(ip string) []*corev1.Service
	// EndpointSlicesWithAddress returns the slices with an endpoint of
	// address ip (in its canonical text form).
	EndpointSlicesWithAddress(ip string) []*discoveryv1.EndpointSlice
}

// Kubernetes' TTLs: records live 30 s, negative answers 5 s.
const (
	TTL         = 30
	NegativeTTL = 5
)

// result is the answer to one question in the cluster domain.
type result struct {
	rcode  int
	answer []mdns.RR
	extra  []mdns.RR
}

// endpoint is an address of a headless service with its DNS name label.
type endpoint struct {
	addr     netip.Addr
	hostname string
	ports    []discoveryv1.EndpointPort
}

// resolver answers questions in the cluster domain from a Store.
type resolver struct {
	store  Store
	domain string // "cluster.local." (fully qualified)
}

// inZone reports whether name is the cluster domain or under it.
func (r *resolver) inZone(name string) bool {
	return mdns.IsSubDomain(r.domain, name)
}

func (r *resolver) hdr(name string, t uint16) mdns.RR_Header {
	return mdns.RR_Header{Name: name, Rrtype: t, Class: mdns.ClassINET, Ttl: TTL}
}

func (r *resolver) soa() *mdns.SOA {
	return &mdns.SOA{Hdr: mdns.RR_Header{Name: r.domain, Rrtype: mdns.TypeSOA, Class: mdns.ClassINET, Ttl: NegativeTTL},
		Ns: "ns.dns." + r.domain, Mbox: "hostmaster." + r.domain, Serial: 1, Refresh: 7200, Retry: 1800, Expire: 86400, Minttl: NegativeTTL}
}

func (r *resolver) addrRR(name string, a netip.Addr) mdns.RR {
	if a.Is4() {
		return &mdns.A{Hdr: r.hdr(name, mdns.TypeA), A: a.AsSlice()}
	}
	return &mdns.AAAA{Hdr: r.hdr(name, mdns.TypeAAAA), AAAA: a.AsSlice()}
}

// filter keeps the address records of the question's type (A or AAAA;
// ANY keeps both).
func filter(rrs []mdns.RR, qtype uint16) []mdns.RR {
	var out []mdns.RR
	for _, rr := range rrs {
		if qtype == mdns.TypeANY || rr.Header().Rrtype == qtype {
			out = append(out, rr)
		}
	}
	return out
}

// resolve answers q, whose name is in the zone. A name that exists but
// has no record of the type gets NOERROR with no answer (NODATA), a name
// that does not exist NXDOMAIN, as CoreDNS's kubernetes plugin answers.
func (r *resolver) resolve(q mdns.Question) result {
	name := strings.ToLower(q.Name)
	rel := strings.TrimSuffix(strings.TrimSuffix(name, r.domain), ".")
	var labels []string
	if rel != "" {
		labels = strings.Split(rel, ".")
	}
	nodata := result{rcode: mdns.RcodeSuccess}
	nx := result{rcode: mdns.RcodeNameError}
	n := len(labels)
	switch {
	case n == 0:
		switch q.Qtype {
		case mdns.TypeSOA:
			return result{answer: []mdns.RR{r.soa()}}
		case mdns.TypeNS:
			return result{answer: []mdns.RR{&mdns.NS{Hdr: r.hdr(name, mdns.TypeNS), Ns: "ns.dns." + r.domain}}}
		}
		return nodata
	case labels[n-1] == "svc":
		return r.service(q, name, labels[:n-1])
	case labels[n-1] == "pod":
		switch len(labels) {
		case 1, 2:
			return nodata
		case 3:
			a, ok := podIP(labels[0])
			if !ok {
				return nx
			}
			return result{answer: filter([]mdns.RR{r.addrRR(name, a)}, q.Qtype)}
		}
		return nx
	case n == 2 && labels[0] == "ns" && labels[1] == "dns":
		// The name server of the SOA record has no address here.
		return nodata
	}
	return nx
}

// podIP reads the address of a pod name label: 10-1-2-3, or an IPv6
// address with its colons as dashes.
func podIP(label string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(strings.ReplaceAll(label, "-", ".")); err == nil && a.Is4() {
		return a, true
	}
	if a, err := netip.ParseAddr(strings.ReplaceAll(label, "-", ":")); err == nil && a.Is6() {
		return a, true
	}
	return netip.Addr{}, false
}

// service answers names under svc.<domain>; labels are those before
// "svc".
func (r *resolver) service(q mdns.Question, name string, labels []string) result {
	nodata := result{rcode: mdns.RcodeSuccess}
	nx := result{rcode: mdns.RcodeNameError}
	n := len(labels)
	if n == 0 {
		return nodata
	}
	ns := labels[n-1]
	if n == 1 {
		if r.store.HasServices(ns) {
			return nodata
		}
		return nx
	}
	svcName := labels[n-2]
	svc, ok := r.store.Service(ns, svcName)
	if !ok {
		return nx
	}
	svcFQDN := svcName + "." + ns + ".svc." + r.domain
	switch n {
	case 2:
		// <svc>.<ns>.svc
		if svc.Spec.Type == corev1.ServiceTypeExternalName {
			target := mdns.Fqdn(strings.ToLower(svc.Spec.ExternalName))
			return result{answer: []mdns.RR{&mdns.CNAME{Hdr: r.hdr(name, mdns.TypeCNAME), Target: target}}}
		}
		switch q.Qtype {
		case mdns.TypeSRV:
			return r.srv(svc, name, svcFQDN, "", "")
		case mdns.TypeA, mdns.TypeAAAA, mdns.TypeANY:
		default:
			return nodata
		}
		if headless(svc) {
			var rrs []mdns.RR
			for _, e := range r.endpoints(svc) {
				rrs = append(rrs, r.addrRR(name, e.addr))
			}
			return result{answer: filter(rrs, q.Qtype)}
		}
		var rrs []mdns.RR
		for _, ip := range clusterIPs(svc) {
			rrs = append(rrs, r.addrRR(name, ip))
		}
		return result{answer: filter(rrs, q.Qtype)}
	case 3:
		// <hostname>.<svc>.<ns>.svc: an endpoint of a headless service.
		if !headless(svc) {
			return nx
		}
		var rrs []mdns.RR
		for _, e := range r.endpoints(svc) {
			if e.hostname == labels[0] {
				rrs = append(rrs, r.addrRR(name, e.addr))
			}
		}
		if len(rrs) == 0 {
			return nx
		}
		if q.Qtype != mdns.TypeA && q.Qtype != mdns.TypeAAAA && q.Qtype != mdns.TypeANY {
			return nodata
		}
		return result{answer: filter(rrs, q.Qtype)}
	case 4:
		// _<port>._<proto>.<svc>.<ns>.svc
		if !strings.HasPrefix(labels[0], "_") || !strings.HasPrefix(labels[1], "_") {
			return nx
		}
		res := r.srv(svc, name, svcFQDN, labels[0][1:], labels[1][1:])
		if res.rcode == mdns.RcodeSuccess && len(res.answer) == 0 {
			return nx
		}
		if q.Qtype != mdns.TypeSRV && q.Qtype != mdns.TypeANY {
			return nodata
		}
		return res
	}
	return nx
}

func headless(svc *corev1.Service) bool { return svc.Spec.ClusterIP == corev1.ClusterIPNone }

func clusterIPs(svc *corev1.Service) []netip.Addr {
	ips := svc.Spec.ClusterIPs
	if len(ips) == 0 && svc.Spec.ClusterIP != "" {
		ips = []string{svc.Spec.ClusterIP}
	}
	var out []netip.Addr
	for _, s := range ips {
		if a, err := netip.ParseAddr(s); err == nil {
			out = append(out, a.Unmap())
		}
	}
	return out
}

// endpoints are the addresses a headless service publishes: the ready
// ones, every one with publishNotReadyAddresses; sorted.
func (r *resolver) endpoints(svc *corev1.Service) []endpoint {
	var out []endpoint
	seen := map[netip.Addr]bool{}
	for _, s := range r.store.EndpointSlices(svc.Namespace, svc.Name) {
		for _, e := range s.Endpoints {
			if !svc.Spec.PublishNotReadyAddresses && e.Conditions.Ready != nil && !*e.Conditions.Ready {
				continue
			}
			for _, addr := range e.Addresses {
				a, err := netip.ParseAddr(addr)
				if err != nil || seen[a] {
					continue
				}
				seen[a] = true
				ep := endpoint{addr: a.Unmap(), ports: s.Ports}
				if e.Hostname != nil {
					ep.hostname = strings.ToLower(*e.Hostname)
				}
				out = append(out, ep)
			}
		}
	}
	slices.SortFunc(out, func(a, b endpoint) int { return a.addr.Compare(b.addr) })
	return out
}

// srv answers SRV questions: every named port (or the port and protocol
// asked for) of a service, pointing at the service name, or at each
// endpoint of a headless service (its hostname, else its address with
// dashes), with the targets' addresses as extra records.
func (r *resolver) srv(svc *corev1.Service, name, svcFQDN, port, proto string) result {
	var res result
	match := func(pname string, pproto corev1.Protocol) bool {
		if pproto == "" {
			pproto = corev1.ProtocolTCP
		}
		if port == "" {
			return pname != ""
		}
		return strings.EqualFold(pname, port) && strings.EqualFold(string(pproto), proto)
	}
	if !headless(svc) {
		for _, p := range svc.Spec.Ports {
			if !match(p.Name, p.Protocol) {
				continue
			}
			res.answer = append(res.answer, &mdns.SRV{Hdr: r.hdr(name, mdns.TypeSRV), Priority: 0, Weight: 100, Port: uint16(p.Port), Target: svcFQDN})
		}
		if len(res.answer) > 0 {
			for _, ip := range clusterIPs(svc) {
				res.extra = append(res.extra, r.addrRR(svcFQDN, ip))
			}
		}
		return res
	}
	for _, e := range r.endpoints(svc) {
		label := e.hostname
		if label == "" {
			label = strings.NewReplacer(".", "-", ":", "-").Replace(e.addr.String())
		}
		target := label + "." + svcFQDN
		added := false
		for _, p := range e.ports {
			pname := ""
			if p.Name != nil {
				pname = *p.Name
			}
			var pproto corev1.Protocol
			if p.Protocol != nil {
				pproto = *p.Protocol
			}
			if p.Port == nil || !match(pname, pproto) {
				continue
			}
			res.answer = append(res.answer, &mdns.SRV{Hdr: r.hdr(name, mdns.TypeSRV), Priority: 0, Weight: 100, Port: uint16(*p.Port), Target: target})
			added = true
		}
		if added {
			res.extra = append(res.extra, r.addrRR(target, e.addr))
		}
	}
	return res
}

// reverseAddr reads the address of a reverse lookup name:
// 4.3.2.1.in-addr.arpa. is 1.2.3.4, and ip6.arpa. names hold 32 nibbles.
func reverseAddr(name string) (netip.Addr, bool) {
	name = strings.ToLower(mdns.Fqdn(name))
	if rest, ok := strings.CutSuffix(name, ".in-addr.arpa."); ok {
		labels := strings.Split(rest, ".")
		if len(labels) != 4 {
			return netip.Addr{}, false
		}
		slices.Reverse(labels)
		a, err := netip.ParseAddr(strings.Join(labels, "."))
		return a, err == nil && a.Is4()
	}
	if rest, ok := strings.CutSuffix(name, ".ip6.arpa."); ok {
		labels := strings.Split(rest, ".")
		if len(labels) != 32 {
			return netip.Addr{}, false
		}
		slices.Reverse(labels)
		var b strings.Builder
		for i, l := range labels {
			if len(l) != 1 || !strings.Contains("0123456789abcdef", l) {
				return netip.Addr{}, false
			}
			if i > 0 && i%4 == 0 {
				b.WriteByte(':')
			}
			b.WriteString(l)
		}
		a, err := netip.ParseAddr(b.String())
		return a, err == nil && a.Is6()
	}
	return netip.Addr{}, false
}

// reverse answers a PTR question for an address of the cluster, as
// CoreDNS's kubernetes plugin does: a service's cluster IP names the
// service (<svc>.<ns>.svc.<domain>), an endpoint's address the endpoint
// (<hostname, else the address with dashes>.<svc>.<ns>.svc.<domain>).
// ok is false for a name that is not such an address (or a question of
// another type): those go upstream.
func (r *resolver) reverse(q mdns.Question) (result, bool) {
	if q.Qtype != mdns.TypePTR && q.Qtype != mdns.TypeANY {
		return result{}, false
	}
	a, ok := reverseAddr(q.Name)
	if !ok {
		return result{}, false
	}
	ip := a.String()
	var targets []string
	for _, svc := range r.store.ServicesWithIP(ip) {
		targets = append(targets, svc.Name+"."+svc.Namespace+".svc."+r.domain)
	}
	for _, s := range r.store.EndpointSlicesWithAddress(ip) {
		svcName := s.Labels[discoveryv1.LabelServiceName]
		if svcName == "" {
			continue
		}
		for _, e := range s.Endpoints {
			if !slices.ContainsFunc(e.Addresses, func(a string) bool { return canonicalIP(a) == ip }) ||
				(e.Conditions.Ready != nil && !*e.Conditions.Ready) {
				continue
			}
			label := strings.NewReplacer(".", "-", ":", "-").Replace(ip)
			if e.Hostname != nil && *e.Hostname != "" {
				label = strings.ToLower(*e.Hostname)
			}
			targets = append(targets, label+"."+svcName+"."+s.Namespace+".svc."+r.domain)
		}
	}
	if len(targets) == 0 {
		return result{}, false
	}
	slices.Sort(targets)
	targets = slices.Compact(targets)
	var res result
	for _, t := range targets {
		res.answer = append(res.answer, &mdns.PTR{Hdr: r.hdr(strings.ToLower(q.Name), mdns.TypePTR), Ptr: t})
	}
	return res, true
}
