// Package validation checks discovery.k8s.io/v1 EndpointSlices as the
// Kubernetes API server does.
package validation

import (
	"net"
	"slices"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	"kubecore.io/apimachinery/pkg/util/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// The limits of a slice, Kubernetes' own. Kubernetes' documentation says
// 100 ports, but its validation has accepted up to 20,000 since v1.20.
const (
	maxEndpoints      = 1000
	maxAddresses      = 100
	maxPorts          = 20000
	maxTopologyLabels = 16
	maxZoneHints      = 8
)

var (
	addressTypes = []discoveryv1.AddressType{discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6, discoveryv1.AddressTypeFQDN}
	protocols    = []corev1.Protocol{corev1.ProtocolSCTP, corev1.ProtocolTCP, corev1.ProtocolUDP}
)

// ValidateEndpointSlice checks a slice: its name (or generateName) is a
// DNS subdomain, its address type is known, its endpoints' addresses are
// of that type and its ports are well formed.
func ValidateEndpointSlice(s *discoveryv1.EndpointSlice) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&s.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	at := field.NewPath("addressType")
	switch {
	case s.AddressType == "":
		errs = append(errs, field.Required(at, ""))
	case !slices.Contains(addressTypes, s.AddressType):
		errs = append(errs, field.NotSupported(at, s.AddressType, addressTypes))
	}
	errs = append(errs, validateEndpoints(s.Endpoints, s.AddressType, field.NewPath("endpoints"))...)
	return append(errs, validatePorts(s.Ports, field.NewPath("ports"))...)
}

// ValidateEndpointSliceUpdate checks an update: the address type never
// changes. (The Store checks the metadata update.)
func ValidateEndpointSliceUpdate(s, old *discoveryv1.EndpointSlice) field.ErrorList {
	errs := ValidateEndpointSlice(s)
	return append(errs, apivalidation.ValidateImmutableField(s.AddressType, old.AddressType, field.NewPath("addressType"))...)
}

func validateEndpoints(endpoints []discoveryv1.Endpoint, typ discoveryv1.AddressType, p *field.Path) field.ErrorList {
	if len(endpoints) > maxEndpoints {
		return field.ErrorList{field.TooMany(p, len(endpoints), maxEndpoints)}
	}
	var errs field.ErrorList
	for i, ep := range endpoints {
		ip := p.Index(i)
		ap := ip.Child("addresses")
		switch n := len(ep.Addresses); {
		case n == 0:
			errs = append(errs, field.Required(ap, "must contain at least 1 address"))
		case n > maxAddresses:
			errs = append(errs, field.TooMany(ap, n, maxAddresses))
		}
		for j, addr := range ep.Addresses {
			errs = append(errs, validateAddress(addr, typ, ap.Index(j))...)
		}
		if ep.NodeName != nil {
			for _, msg := range validation.IsDNS1123Subdomain(*ep.NodeName) {
				errs = append(errs, field.Invalid(ip.Child("nodeName"), *ep.NodeName, msg))
			}
		}
		if ep.Hostname != nil {
			for _, msg := range validation.IsDNS1123Label(*ep.Hostname) {
				errs = append(errs, field.Invalid(ip.Child("hostname"), *ep.Hostname, msg))
			}
		}
		tp := ip.Child("deprecatedTopology")
		if len(ep.DeprecatedTopology) > maxTopologyLabels {
			errs = append(errs, field.TooMany(tp, len(ep.DeprecatedTopology), maxTopologyLabels))
		}
		errs = append(errs, apivalidation.ValidateLabels(ep.DeprecatedTopology, tp)...)
		if ep.Hints != nil {
			errs = append(errs, validateHints(ep.Hints, ip.Child("hints"))...)
		}
	}
	return errs
}

// validateAddress checks one address against the slice's type; addresses
// of an unknown type (already refused) are not checked.
func validateAddress(addr string, typ discoveryv1.AddressType, p *field.Path) field.ErrorList {
	switch typ {
	case discoveryv1.AddressTypeIPv4:
		if errs := validation.IsValidIPv4Address(p, addr); errs != nil {
			return errs
		}
		return validateEndpointIP(addr, p)
	case discoveryv1.AddressTypeIPv6:
		if errs := validation.IsValidIPv6Address(p, addr); errs != nil {
			return errs
		}
		return validateEndpointIP(addr, p)
	case discoveryv1.AddressTypeFQDN:
		return validateFQDN(addr, p)
	}
	return nil
}

// validateEndpointIP refuses the addresses no backend can have: the
// unspecified address and the link-local ranges. Unlike Kubernetes it
// accepts loopback addresses: kubecore's process runtime runs pods on the
// host's network, whose only address may be 127.0.0.1.
func validateEndpointIP(addr string, p *field.Path) field.ErrorList {
	ip := net.ParseIP(addr)
	if ip == nil {
		// An IPv4 address with leading zeros, which only the lenient
		// parser reads: not one of the refused ranges.
		return nil
	}
	var msg string
	switch {
	case ip.IsUnspecified():
		msg = "may not be unspecified (0.0.0.0 or ::)"
	case ip.IsLinkLocalUnicast():
		msg = "may not be in the link-local range (169.254.0.0/16, fe80::/10)"
	case ip.IsLinkLocalMulticast():
		msg = "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"
	default:
		return nil
	}
	return field.ErrorList{field.Invalid(p, addr, msg)}
}

// validateFQDN checks a fully qualified domain name: a DNS subdomain of at
// least two labels, with an optional final dot.
func validateFQDN(name string, p *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	name = strings.TrimSuffix(name, ".")
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(name) {
		errs = append(errs, field.Invalid(p, name, msg))
	}
	if !strings.Contains(name, ".") {
		errs = append(errs, field.Invalid(p, name, "should be a domain with at least two segments separated by dots"))
	}
	return errs
}

func validatePorts(ports []discoveryv1.EndpointPort, p *field.Path) field.ErrorList {
	if len(ports) > maxPorts {
		return field.ErrorList{field.TooMany(p, len(ports), maxPorts)}
	}
	var errs field.ErrorList
	names := map[string]bool{}
	for i, port := range ports {
		ip := p.Index(i)
		var name string
		if port.Name != nil {
			name = *port.Name
		}
		if name != "" {
			for _, msg := range validation.IsDNS1123Label(name) {
				errs = append(errs, field.Invalid(ip.Child("name"), name, msg))
			}
		}
		if names[name] {
			errs = append(errs, field.Duplicate(ip.Child("name"), name))
		}
		names[name] = true
		switch {
		case port.Protocol == nil:
			errs = append(errs, field.Required(ip.Child("protocol"), ""))
		case !slices.Contains(protocols, *port.Protocol):
			errs = append(errs, field.NotSupported(ip.Child("protocol"), *port.Protocol, protocols))
		}
		if port.AppProtocol != nil {
			for _, msg := range validation.IsQualifiedName(*port.AppProtocol) {
				errs = append(errs, field.Invalid(ip.Child("appProtocol"), *port.AppProtocol, msg))
			}
		}
	}
	return errs
}

func validateHints(h *discoveryv1.EndpointHints, p *field.Path) field.ErrorList {
	zp := p.Child("forZones")
	if len(h.ForZones) > maxZoneHints {
		return field.ErrorList{field.TooMany(zp, len(h.ForZones), maxZoneHints)}
	}
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, z := range h.ForZones {
		np := zp.Index(i).Child("name")
		if seen[z.Name] {
			errs = append(errs, field.Duplicate(np, z.Name))
		}
		seen[z.Name] = true
		for _, msg := range validation.IsValidLabelValue(z.Name) {
			errs = append(errs, field.Invalid(np, z.Name, msg))
		}
	}
	return errs
}
