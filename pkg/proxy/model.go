package proxy

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
)

// Family is an IP family the proxy programs a table for.
type Family int

// The two families, each with its own table.
const (
	IPv4 Family = 4
	IPv6 Family = 6
)

// Endpoint is one backend of a service port.
type Endpoint struct {
	IP   netip.Addr
	Port uint16
	// Local is true for an endpoint on this node.
	Local bool
}

func (e Endpoint) String() string { return netip.AddrPortFrom(e.IP, e.Port).String() }

// ServicePort is what the proxy programs for one port of one service in
// one family: the addresses it is reached on and the endpoints it is
// balanced to.
type ServicePort struct {
	// Name is namespace/name/protocol/port, unique in the table.
	Name      string
	Protocol  corev1.Protocol
	ClusterIP netip.Addr
	Port      uint16
	// ExternalIPs are spec.externalIPs of this family, reached on Port
	// like the cluster IP, by traffic from anywhere.
	ExternalIPs []netip.Addr
	// NodePort is 0 unless the service has one.
	NodePort uint16
	// LocalOnly is externalTrafficPolicy Local: node port traffic goes to
	// this node's endpoints only, with the client address kept.
	LocalOnly bool
	// AffinitySeconds is the ClientIP session affinity timeout; 0 when
	// the service has no affinity.
	AffinitySeconds int32
	// Endpoints are the usable backends (ready ones, or serving
	// terminating ones when none is ready), sorted.
	Endpoints []Endpoint
}

// chainID is a short, stable name suffix for the port's chains.
func (sp *ServicePort) chainID() string {
	h := sha256.Sum256([]byte(sp.Name))
	return strings.ToUpper(hex.EncodeToString(h[:])[:12])
}

// LocalEndpoints are the endpoints on this node.
func (sp *ServicePort) LocalEndpoints() []Endpoint {
	var out []Endpoint
	for _, e := range sp.Endpoints {
		if e.Local {
			out = append(out, e)
		}
	}
	return out
}

// DefaultAffinitySeconds is Kubernetes' default ClientIP affinity timeout
// (three hours).
const DefaultAffinitySeconds = 10800

// BuildServicePorts computes what the proxy programs in family fam from
// the cluster's services and endpoint slices. Services without a cluster
// IP of the family (headless, ExternalName) are skipped. The result is
// sorted, so that the same state always gives the same rules.
func BuildServicePorts(fam Family, nodeName string, services []*corev1.Service, slices_ []*discoveryv1.EndpointSlice) []*ServicePort {
	// Slices by namespace/service.
	bySvc := map[string][]*discoveryv1.EndpointSlice{}
	for _, s := range slices_ {
		name := s.Labels[discoveryv1.LabelServiceName]
		if name == "" {
			continue
		}
		if (fam == IPv4) != (s.AddressType == discoveryv1.AddressTypeIPv4) {
			continue
		}
		k := s.Namespace + "/" + name
		bySvc[k] = append(bySvc[k], s)
	}
	var out []*ServicePort
	for _, svc := range services {
		if svc.Spec.Type == corev1.ServiceTypeExternalName {
			continue
		}
		clusterIP, ok := familyIP(fam, svc)
		if !ok {
			continue
		}
		var externals []netip.Addr
		for _, s := range svc.Spec.ExternalIPs {
			if a, err := netip.ParseAddr(s); err == nil && inFamily(fam, a) {
				externals = append(externals, a)
			}
		}
		slices.SortFunc(externals, netip.Addr.Compare)
		affinity := int32(0)
		if svc.Spec.SessionAffinity == corev1.ServiceAffinityClientIP {
			affinity = DefaultAffinitySeconds
			if c := svc.Spec.SessionAffinityConfig; c != nil && c.ClientIP != nil && c.ClientIP.TimeoutSeconds != nil && *c.ClientIP.TimeoutSeconds > 0 {
				affinity = *c.ClientIP.TimeoutSeconds
			}
		}
		hasNodePort := svc.Spec.Type == corev1.ServiceTypeNodePort || svc.Spec.Type == corev1.ServiceTypeLoadBalancer
		for _, p := range svc.Spec.Ports {
			proto := p.Protocol
			if proto == "" {
				proto = corev1.ProtocolTCP
			}
			if proto != corev1.ProtocolTCP && proto != corev1.ProtocolUDP && proto != corev1.ProtocolSCTP {
				continue
			}
			sp := &ServicePort{
				Name:     fmt.Sprintf("%s/%s/%s/%d", svc.Namespace, svc.Name, strings.ToLower(string(proto)), p.Port),
				Protocol: proto, ClusterIP: clusterIP, Port: uint16(p.Port), ExternalIPs: externals,
				LocalOnly:       svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal,
				AffinitySeconds: affinity,
			}
			if hasNodePort && p.NodePort > 0 {
				sp.NodePort = uint16(p.NodePort)
			}
			sp.Endpoints = endpointsFor(p.Name, proto, nodeName, bySvc[svc.Namespace+"/"+svc.Name])
			out = append(out, sp)
		}
	}
	slices.SortFunc(out, func(a, b *ServicePort) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

// familyIP is the service's cluster IP of family fam.
func familyIP(fam Family, svc *corev1.Service) (netip.Addr, bool) {
	ips := svc.Spec.ClusterIPs
	if len(ips) == 0 && svc.Spec.ClusterIP != "" {
		ips = []string{svc.Spec.ClusterIP}
	}
	for _, s := range ips {
		if s == corev1.ClusterIPNone {
			return netip.Addr{}, false
		}
		if a, err := netip.ParseAddr(s); err == nil && inFamily(fam, a) {
			return a, true
		}
	}
	return netip.Addr{}, false
}

func inFamily(fam Family, a netip.Addr) bool {
	if fam == IPv4 {
		return a.Unmap().Is4()
	}
	return a.Is6() && !a.Is4In6()
}

// endpointsFor picks the endpoints of the service port named portName
// from the slices, as kube-proxy does: the ready endpoints; when none is
// ready, the serving ones that are terminating (so that connections keep
// working during a rolling update); never the others.
func endpointsFor(portName string, proto corev1.Protocol, nodeName string, eps []*discoveryv1.EndpointSlice) []Endpoint {
	var ready, terminating []Endpoint
	seen := map[Endpoint]bool{}
	for _, s := range eps {
		var port *int32
		for _, sp := range s.Ports {
			name := ""
			if sp.Name != nil {
				name = *sp.Name
			}
			p := corev1.ProtocolTCP
			if sp.Protocol != nil {
				p = *sp.Protocol
			}
			if name == portName && p == proto && sp.Port != nil {
				port = sp.Port
				break
			}
		}
		if port == nil || *port <= 0 || *port > 65535 {
			continue
		}
		for _, e := range s.Endpoints {
			if len(e.Addresses) == 0 {
				continue
			}
			a, err := netip.ParseAddr(e.Addresses[0])
			if err != nil {
				continue
			}
			ep := Endpoint{IP: a.Unmap(), Port: uint16(*port), Local: e.NodeName != nil && *e.NodeName == nodeName}
			if seen[ep] {
				continue
			}
			c := e.Conditions
			switch {
			// A nil ready condition means ready.
			case c.Ready == nil || *c.Ready:
				seen[ep] = true
				ready = append(ready, ep)
			case c.Serving != nil && *c.Serving && c.Terminating != nil && *c.Terminating:
				seen[ep] = true
				terminating = append(terminating, ep)
			}
		}
	}
	out := ready
	if len(out) == 0 {
		out = terminating
	}
	slices.SortFunc(out, func(a, b Endpoint) int {
		return cmp.Or(a.IP.Compare(b.IP), cmp.Compare(a.Port, b.Port))
	})
	return out
}
