package endpointslicemirroring

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/util/validation"

	"kubecore.io/kubecore/pkg/controller/sliceplan"
)

// contents is what the slices of an Endpoints object list.
type contents struct {
	// groups are the endpoints by address type and port set, in key
	// order; one slice each.
	groups []*sliceplan.Group
	// invalid counts the addresses that are not IPs; skipped counts
	// those left out, the invalid ones included.
	invalid, skipped int
}

// mirror computes the slice groups of subsets: once repacked (see repack),
// the first maxPerSubset valid addresses of each subset, ready ones first,
// as endpoints of their address type, ready as the subset lists them.
func mirror(subsets []corev1.EndpointSubset, maxPerSubset int) contents {
	var m contents
	byKey := map[string]*sliceplan.Group{}
	for _, s := range repack(subsets) {
		ports := slicePorts(s.Ports)
		added := 0
		add := func(a corev1.EndpointAddress, ready bool) {
			if added >= maxPerSubset {
				return
			}
			ep, addressType, ok := sliceEndpoint(a, ready)
			if !ok {
				m.invalid++
				return
			}
			added++
			g := &sliceplan.Group{AddressType: addressType, Ports: ports}
			if have, ok := byKey[g.Key()]; ok {
				g = have
			} else {
				byKey[g.Key()] = g
			}
			g.Endpoints = append(g.Endpoints, ep)
		}
		for _, a := range s.Addresses {
			add(a, true)
		}
		for _, a := range s.NotReadyAddresses {
			add(a, false)
		}
		m.skipped += len(s.Addresses) + len(s.NotReadyAddresses) - added
	}
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		m.groups = append(m.groups, byKey[k])
	}
	return m
}

// sliceEndpoint is the endpoint of address a, of the address type of its
// IP (written in canonical form); ok is false when a's IP is not one.
func sliceEndpoint(a corev1.EndpointAddress, ready bool) (ep discoveryv1.Endpoint, addressType discoveryv1.AddressType, ok bool) {
	ip := validation.ParseIPSloppy(a.IP)
	if ip == nil {
		return ep, "", false
	}
	addressType = discoveryv1.AddressTypeIPv4
	if ip.To4() == nil {
		addressType = discoveryv1.AddressTypeIPv6
	}
	ep = discoveryv1.Endpoint{
		Addresses:  []string{ip.String()},
		Conditions: discoveryv1.EndpointConditions{Ready: &ready},
	}
	if a.TargetRef != nil {
		ep.TargetRef = a.TargetRef.DeepCopy()
	}
	if a.NodeName != nil {
		node := *a.NodeName
		ep.NodeName = &node
	}
	if a.Hostname != "" {
		hostname := a.Hostname
		ep.Hostname = &hostname
	}
	return ep, addressType, true
}

// endpointID identifies a mirrored endpoint as repack identifies an
// address: by IP and the UID of the object it names.
func endpointID(ep discoveryv1.Endpoint) string {
	id := strings.Join(ep.Addresses, ",")
	if ep.TargetRef != nil {
		id += "/" + string(ep.TargetRef.UID)
	}
	return id
}

// slicePorts converts an Endpoints subset's ports to a slice's, a port
// without a protocol being TCP.
func slicePorts(ports []corev1.EndpointPort) []discoveryv1.EndpointPort {
	out := make([]discoveryv1.EndpointPort, 0, len(ports))
	for _, p := range ports {
		name, proto, port := p.Name, protocolOf(p.Protocol), p.Port
		var appProtocol *string
		if p.AppProtocol != nil {
			ap := *p.AppProtocol
			appProtocol = &ap
		}
		out = append(out, discoveryv1.EndpointPort{Name: &name, Protocol: &proto, Port: &port, AppProtocol: appProtocol})
	}
	return out
}

func protocolOf(p corev1.Protocol) corev1.Protocol {
	if p == "" {
		return corev1.ProtocolTCP
	}
	return p
}

// repack puts subsets in their canonical form, as Kubernetes reads
// Endpoints before mirroring them: every address (by IP and target UID)
// is listed once per port, not ready if any subset lists it not ready for
// that port; ports offered by exactly the same addresses with the same
// readiness share one subset. Subsets without ports keep their addresses
// in one subset without ports. Ports, addresses and subsets come sorted.
func repack(subsets []corev1.EndpointSubset) []corev1.EndpointSubset {
	type portSet struct {
		port  corev1.EndpointPort
		ready map[addressKey]bool
	}
	first := map[addressKey]corev1.EndpointAddress{}
	byPort := map[string]*portSet{}
	// The subsets without ports gather under one port-less entry.
	const noPort = ""
	for _, s := range subsets {
		keys := []string{noPort}
		if len(s.Ports) > 0 {
			keys = keys[:0]
			for _, p := range s.Ports {
				p.Protocol = protocolOf(p.Protocol)
				k := portKey(p)
				if byPort[k] == nil {
					byPort[k] = &portSet{port: p, ready: map[addressKey]bool{}}
				}
				keys = append(keys, k)
			}
		} else if byPort[noPort] == nil {
			byPort[noPort] = &portSet{ready: map[addressKey]bool{}}
		}
		record := func(a corev1.EndpointAddress, ready bool) {
			k := keyOf(a)
			if _, ok := first[k]; !ok {
				first[k] = a
			}
			for _, pk := range keys {
				if was, seen := byPort[pk].ready[k]; !seen || was {
					byPort[pk].ready[k] = ready
				}
			}
		}
		for _, a := range s.Addresses {
			record(a, true)
		}
		for _, a := range s.NotReadyAddresses {
			record(a, false)
		}
	}
	// Ports with the same addresses and readiness make one subset.
	bySignature := map[string]*corev1.EndpointSubset{}
	for _, pk := range slices.Sorted(maps.Keys(byPort)) {
		ps := byPort[pk]
		addrs := slices.SortedFunc(maps.Keys(ps.ready), addressKey.compare)
		var sig strings.Builder
		for _, k := range addrs {
			fmt.Fprintf(&sig, "%s/%s/%t;", k.ip, k.uid, ps.ready[k])
		}
		s := bySignature[sig.String()]
		if s == nil {
			s = &corev1.EndpointSubset{}
			for _, k := range addrs {
				if ps.ready[k] {
					s.Addresses = append(s.Addresses, first[k])
				} else {
					s.NotReadyAddresses = append(s.NotReadyAddresses, first[k])
				}
			}
			bySignature[sig.String()] = s
		}
		if pk != noPort {
			s.Ports = append(s.Ports, ps.port)
		}
	}
	out := make([]corev1.EndpointSubset, 0, len(bySignature))
	for _, sig := range slices.Sorted(maps.Keys(bySignature)) {
		out = append(out, *bySignature[sig])
	}
	return out
}

// addressKey identifies an address of an Endpoints object: the same IP
// may stand for distinct objects (pods on the host network of one node).
type addressKey struct {
	ip  string
	uid types.UID
}

func keyOf(a corev1.EndpointAddress) addressKey {
	k := addressKey{ip: a.IP}
	if ip := validation.ParseIPSloppy(a.IP); ip != nil {
		k.ip = ip.String()
	}
	if a.TargetRef != nil {
		k.uid = a.TargetRef.UID
	}
	return k
}

func (k addressKey) compare(o addressKey) int {
	return cmp.Or(strings.Compare(k.ip, o.ip), strings.Compare(string(k.uid), string(o.uid)))
}

// portKey identifies an Endpoints port by its values.
func portKey(p corev1.EndpointPort) string {
	appProtocol := "<nil>"
	if p.AppProtocol != nil {
		appProtocol = *p.AppProtocol
	}
	return fmt.Sprintf("%s/%d/%s/%s", p.Name, p.Port, p.Protocol, appProtocol)
}
