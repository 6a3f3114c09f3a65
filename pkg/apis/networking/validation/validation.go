// Package validation checks networking.k8s.io/v1 objects (Ingresses,
// IngressClasses, NetworkPolicies, IPAddresses, ServiceCIDRs) as the
// Kubernetes API server does, with its field paths and messages.
package validation

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	networkingv1 "kubecore.io/api/networking/v1"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"
	"kubecore.io/apimachinery/pkg/util/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// annotationIngressClass is the class annotation that predates
// spec.ingressClassName; an Ingress may not have both.
const annotationIngressClass = "kubernetes.io/ingress.class"

// maxControllerLength bounds an IngressClass's controller name.
const maxControllerLength = 250

var (
	pathTypes           = []string{string(networkingv1.PathTypeExact), string(networkingv1.PathTypeImplementationSpecific), string(networkingv1.PathTypePrefix)}
	badPathSequences    = []string{"//", "/./", "/../", "%2f", "%2F"}
	badPathSuffixes     = []string{"/..", "/."}
	parameterScopes     = []string{networkingv1.IngressClassParametersReferenceScopeCluster, networkingv1.IngressClassParametersReferenceScopeNamespace}
	protocols           = []string{string(corev1.ProtocolTCP), string(corev1.ProtocolUDP), string(corev1.ProtocolSCTP)}
	policyTypes         = []string{string(networkingv1.PolicyTypeIngress), string(networkingv1.PolicyTypeEgress)}
	metadata            = field.NewPath("metadata")
	spec                = field.NewPath("spec")
	wildcardSubdomainRE = `\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`
	httpPathRE          = `[A-Za-z0-9/\-._~%!$&'()*+,;=:]+`
)

// ValidateIngress checks a new Ingress.
func ValidateIngress(ing *networkingv1.Ingress) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&ing.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadata)
	errs = append(errs, validateIngressSpec(&ing.Spec, spec)...)
	if v, ok := ing.Annotations[annotationIngressClass]; ok && ing.Spec.IngressClassName != nil {
		errs = append(errs, field.Invalid(field.NewPath("annotations").Child(annotationIngressClass), v, "can not be set when the class field is also set"))
	}
	return errs
}

// ValidateIngressUpdate checks an Ingress update: the new spec must be
// valid. (The Store checks the metadata update.)
func ValidateIngressUpdate(ing, _ *networkingv1.Ingress) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&ing.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadata)
	return append(errs, validateIngressSpec(&ing.Spec, spec)...)
}

// ValidateIngressStatusUpdate checks the load balancer status an ingress
// controller writes.
func ValidateIngressStatusUpdate(ing, _ *networkingv1.Ingress) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("status", "loadBalancer", "ingress")
	for i, in := range ing.Status.LoadBalancer.Ingress {
		ip := p.Index(i)
		if in.IP != "" {
			errs = append(errs, validation.IsValidIP(ip.Child("ip"), in.IP)...)
		}
		if in.Hostname != "" {
			for _, msg := range validation.IsDNS1123Subdomain(in.Hostname) {
				errs = append(errs, field.Invalid(ip.Child("hostname"), in.Hostname, msg))
			}
			if _, err := netip.ParseAddr(in.Hostname); err == nil {
				errs = append(errs, field.Invalid(ip.Child("hostname"), in.Hostname, "must be a DNS name, not an IP address"))
			}
		}
		for j, port := range in.Ports {
			pp := ip.Child("ports").Index(j)
			for _, msg := range validation.IsValidPortNum(int(port.Port)) {
				errs = append(errs, field.Invalid(pp.Child("port"), port.Port, msg))
			}
			if !slices.Contains(protocols, string(port.Protocol)) {
				errs = append(errs, field.NotSupported(pp.Child("protocol"), port.Protocol, protocols))
			}
		}
	}
	return errs
}

func validateIngressSpec(s *networkingv1.IngressSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(s.Rules) == 0 && s.DefaultBackend == nil {
		errs = append(errs, field.Invalid(p, s.Rules, "either `defaultBackend` or `rules` must be specified"))
	}
	if s.DefaultBackend != nil {
		errs = append(errs, validateBackend(s.DefaultBackend, p.Child("defaultBackend"))...)
	}
	for i, r := range s.Rules {
		rp := p.Child("rules").Index(i)
		if r.Host != "" {
			hp := rp.Child("host")
			if _, err := netip.ParseAddr(r.Host); err == nil {
				errs = append(errs, field.Invalid(hp, r.Host, "must be a DNS name, not an IP address"))
			}
			errs = append(errs, validateHost(r.Host, hp)...)
		}
		if r.HTTP != nil {
			errs = append(errs, validateHTTPRule(r.HTTP, rp.Child("http"))...)
		}
	}
	for i, tls := range s.TLS {
		tp := p.Child("tls").Index(i)
		for j, h := range tls.Hosts {
			errs = append(errs, validateHost(h, tp.Child("hosts").Index(j))...)
		}
		if tls.SecretName != "" {
			for _, msg := range apivalidation.NameIsDNSSubdomain(tls.SecretName, false) {
				errs = append(errs, field.Invalid(tp.Child("secretName"), tls.SecretName, msg))
			}
		}
	}
	if s.IngressClassName != nil {
		for _, msg := range apivalidation.NameIsDNSSubdomain(*s.IngressClassName, false) {
			errs = append(errs, field.Invalid(p.Child("ingressClassName"), *s.IngressClassName, msg))
		}
	}
	return errs
}

// validateHost checks a host name, which may start with "*." .
func validateHost(host string, p *field.Path) field.ErrorList {
	var msgs []string
	if strings.Contains(host, "*") {
		msgs = isWildcardSubdomain(host)
	} else {
		msgs = validation.IsDNS1123Subdomain(host)
	}
	var errs field.ErrorList
	for _, msg := range msgs {
		errs = append(errs, field.Invalid(p, host, msg))
	}
	return errs
}

// isWildcardSubdomain checks "*." followed by a DNS subdomain.
func isWildcardSubdomain(v string) []string {
	var errs []string
	if len(v) > validation.DNS1123SubdomainMaxLength {
		errs = append(errs, validation.MaxLenError(validation.DNS1123SubdomainMaxLength))
	}
	rest, ok := strings.CutPrefix(v, "*.")
	if !ok || len(validation.IsDNS1123Subdomain(rest)) != 0 {
		errs = append(errs, validation.RegexError("a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character", wildcardSubdomainRE, "*.example.com"))
	}
	return errs
}

func validateHTTPRule(h *networkingv1.HTTPIngressRuleValue, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	pp := p.Child("paths")
	if len(h.Paths) == 0 {
		errs = append(errs, field.Required(pp, ""))
	}
	for i := range h.Paths {
		errs = append(errs, validateHTTPPath(&h.Paths[i], pp.Index(i))...)
	}
	return errs
}

func validateHTTPPath(path *networkingv1.HTTPIngressPath, p *field.Path) field.ErrorList {
	if path.PathType == nil {
		return field.ErrorList{field.Required(p.Child("pathType"), "pathType must be specified")}
	}
	var errs field.ErrorList
	vp := p.Child("path")
	switch *path.PathType {
	case networkingv1.PathTypeExact, networkingv1.PathTypePrefix:
		if !strings.HasPrefix(path.Path, "/") {
			errs = append(errs, field.Invalid(vp, path.Path, "must be an absolute path"))
		}
		for _, seq := range badPathSequences {
			if strings.Contains(path.Path, seq) {
				errs = append(errs, field.Invalid(vp, path.Path, fmt.Sprintf("must not contain '%s'", seq)))
			}
		}
		for _, suffix := range badPathSuffixes {
			if strings.HasSuffix(path.Path, suffix) {
				errs = append(errs, field.Invalid(vp, path.Path, fmt.Sprintf("cannot end with '%s'", suffix)))
			}
		}
	case networkingv1.PathTypeImplementationSpecific:
		if path.Path != "" && !strings.HasPrefix(path.Path, "/") {
			errs = append(errs, field.Invalid(vp, path.Path, "must be an absolute path"))
		}
	default:
		errs = append(errs, field.NotSupported(p.Child("pathType"), *path.PathType, pathTypes))
	}
	return append(errs, validateBackend(&path.Backend, p.Child("backend"))...)
}

func validateBackend(b *networkingv1.IngressBackend, p *field.Path) field.ErrorList {
	switch {
	case b.Resource != nil && b.Service != nil:
		return field.ErrorList{field.Invalid(p, "", "cannot set both resource and service backends")}
	case b.Resource != nil:
		return validateTypedReference(b.Resource.APIGroup, b.Resource.Kind, b.Resource.Name, p.Child("resource"))
	case b.Service == nil:
		return field.ErrorList{field.Invalid(p, "", "resource or service backend is required")}
	}
	var errs field.ErrorList
	svc := b.Service
	np := p.Child("service", "name")
	if svc.Name == "" {
		errs = append(errs, field.Required(np, ""))
	} else {
		for _, msg := range apivalidation.NameIsDNS1035Label(svc.Name, false) {
			errs = append(errs, field.Invalid(np, svc.Name, msg))
		}
	}
	pp := p.Child("service", "port")
	switch port := svc.Port; {
	case port.Name != "" && port.Number != 0:
		errs = append(errs, field.Invalid(p, "", "cannot set both port name & port number"))
	case port.Name != "":
		for _, msg := range validation.IsValidPortName(port.Name) {
			errs = append(errs, field.Invalid(pp.Child("name"), port.Name, msg))
		}
	case port.Number != 0:
		for _, msg := range validation.IsValidPortNum(int(port.Number)) {
			errs = append(errs, field.Invalid(pp.Child("number"), port.Number, msg))
		}
	default:
		errs = append(errs, field.Required(p, "port name or number is required"))
	}
	return errs
}

// validateTypedReference checks the group, kind and name an Ingress
// backend or an IngressClass's parameters point at.
func validateTypedReference(group *string, kind, name string, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if group != nil {
		for _, msg := range validation.IsDNS1123Subdomain(*group) {
			errs = append(errs, field.Invalid(p.Child("apiGroup"), *group, msg))
		}
	}
	if kind == "" {
		errs = append(errs, field.Required(p.Child("kind"), "kind is required"))
	} else {
		for _, msg := range pathSegmentName(kind) {
			errs = append(errs, field.Invalid(p.Child("kind"), kind, msg))
		}
	}
	if name == "" {
		errs = append(errs, field.Required(p.Child("name"), "name is required"))
	} else {
		for _, msg := range pathSegmentName(name) {
			errs = append(errs, field.Invalid(p.Child("name"), name, msg))
		}
	}
	return errs
}

// pathSegmentName refuses the names that cannot be one segment of a URL
// path.
func pathSegmentName(name string) []string {
	if name == "." || name == ".." {
		return []string{fmt.Sprintf(`may not be '%s'`, name)}
	}
	var errs []string
	for _, bad := range []string{"/", "%"} {
		if strings.Contains(name, bad) {
			errs = append(errs, fmt.Sprintf(`may not contain '%s'`, bad))
		}
	}
	return errs
}

// ValidateIngressClass checks a new IngressClass.
func ValidateIngressClass(c *networkingv1.IngressClass) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&c.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadata)
	cp := spec.Child("controller")
	if len(c.Spec.Controller) > maxControllerLength {
		errs = append(errs, field.TooLong(cp, "", maxControllerLength))
	}
	errs = append(errs, domainPrefixedPath(cp, c.Spec.Controller)...)
	if params := c.Spec.Parameters; params != nil {
		pp := spec.Child("parameters")
		errs = append(errs, validateTypedReference(params.APIGroup, params.Kind, params.Name, pp)...)
		switch {
		case params.Scope == nil:
			errs = append(errs, field.Required(pp.Child("scope"), ""))
		case !slices.Contains(parameterScopes, *params.Scope):
			errs = append(errs, field.NotSupported(pp.Child("scope"), *params.Scope, parameterScopes))
		case *params.Scope == networkingv1.IngressClassParametersReferenceScopeNamespace && params.Namespace == nil:
			errs = append(errs, field.Required(pp.Child("namespace"), "`parameters.scope` is set to 'Namespace'"))
		case *params.Scope == networkingv1.IngressClassParametersReferenceScopeNamespace:
			for _, msg := range apivalidation.ValidateNamespaceName(*params.Namespace, false) {
				errs = append(errs, field.Invalid(pp.Child("namespace"), *params.Namespace, msg))
			}
		case params.Namespace != nil:
			errs = append(errs, field.Forbidden(pp.Child("namespace"), "`parameters.scope` is set to 'Cluster'"))
		}
	}
	return errs
}

// ValidateIngressClassUpdate checks an IngressClass update: the
// controller never changes.
func ValidateIngressClassUpdate(c, old *networkingv1.IngressClass) field.ErrorList {
	errs := apivalidation.ValidateImmutableField(c.Spec.Controller, old.Spec.Controller, spec.Child("controller"))
	return append(errs, ValidateIngressClass(c)...)
}

// domainPrefixedPath checks a name such as "example.com/controller".
func domainPrefixedPath(p *field.Path, v string) field.ErrorList {
	if v == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	host, path, ok := strings.Cut(v, "/")
	if !ok || host == "" || path == "" {
		return field.ErrorList{field.Invalid(p, v, `must be a domain-prefixed path (such as "acme.io/foo")`)}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Subdomain(host) {
		errs = append(errs, field.Invalid(p, host, msg))
	}
	if strings.TrimLeft(path, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/-._~%!$&'()*+,;=:") != "" {
		errs = append(errs, field.Invalid(p, path, validation.RegexError("Invalid path", httpPathRE)))
	}
	return errs
}

// ValidateNetworkPolicy checks a NetworkPolicy.
func ValidateNetworkPolicy(np *networkingv1.NetworkPolicy) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&np.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadata)
	errs = append(errs, apivalidation.ValidateLabelSelector(&np.Spec.PodSelector, spec.Child("podSelector"))...)
	for i, r := range np.Spec.Ingress {
		rp := spec.Child("ingress").Index(i)
		for j := range r.Ports {
			errs = append(errs, validatePolicyPort(&r.Ports[j], rp.Child("ports").Index(j))...)
		}
		for j := range r.From {
			errs = append(errs, validatePeer(&r.From[j], rp.Child("from").Index(j))...)
		}
	}
	for i, r := range np.Spec.Egress {
		rp := spec.Child("egress").Index(i)
		for j := range r.Ports {
			errs = append(errs, validatePolicyPort(&r.Ports[j], rp.Child("ports").Index(j))...)
		}
		for j := range r.To {
			errs = append(errs, validatePeer(&r.To[j], rp.Child("to").Index(j))...)
		}
	}
	tp := spec.Child("policyTypes")
	if len(np.Spec.PolicyTypes) > len(policyTypes) {
		return append(errs, field.Invalid(tp, np.Spec.PolicyTypes, "may not specify more than two policyTypes"))
	}
	for i, t := range np.Spec.PolicyTypes {
		if !slices.Contains(policyTypes, string(t)) {
			errs = append(errs, field.NotSupported(tp.Index(i), t, policyTypes))
		}
	}
	return errs
}

// ValidateNetworkPolicyUpdate checks a NetworkPolicy update: the new
// policy must be valid.
func ValidateNetworkPolicyUpdate(np, _ *networkingv1.NetworkPolicy) field.ErrorList {
	return ValidateNetworkPolicy(np)
}

func validatePolicyPort(port *networkingv1.NetworkPolicyPort, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if port.Protocol != nil && !slices.Contains(protocols, string(*port.Protocol)) {
		errs = append(errs, field.NotSupported(p.Child("protocol"), *port.Protocol, protocols))
	}
	ep := p.Child("endPort")
	switch {
	case port.Port == nil:
		if port.EndPort != nil {
			errs = append(errs, field.Invalid(ep, *port.EndPort, "may not be specified when `port` is not specified"))
		}
	case port.Port.Type == intstr.Int:
		for _, msg := range validation.IsValidPortNum(int(port.Port.IntVal)) {
			errs = append(errs, field.Invalid(p.Child("port"), port.Port.IntVal, msg))
		}
		if port.EndPort != nil {
			if *port.EndPort < port.Port.IntVal {
				errs = append(errs, field.Invalid(ep, port.Port.IntVal, "must be greater than or equal to `port`"))
			}
			for _, msg := range validation.IsValidPortNum(int(*port.EndPort)) {
				errs = append(errs, field.Invalid(ep, *port.EndPort, msg))
			}
		}
	default:
		if port.EndPort != nil {
			errs = append(errs, field.Invalid(ep, *port.EndPort, "may not be specified when `port` is non-numeric"))
		}
		for _, msg := range validation.IsValidPortName(port.Port.StrVal) {
			errs = append(errs, field.Invalid(p.Child("port"), port.Port.StrVal, msg))
		}
	}
	return errs
}

func validatePeer(peer *networkingv1.NetworkPolicyPeer, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	n := 0
	if peer.PodSelector != nil {
		n++
		errs = append(errs, apivalidation.ValidateLabelSelector(peer.PodSelector, p.Child("podSelector"))...)
	}
	if peer.NamespaceSelector != nil {
		n++
		errs = append(errs, apivalidation.ValidateLabelSelector(peer.NamespaceSelector, p.Child("namespaceSelector"))...)
	}
	if peer.IPBlock != nil {
		n++
		errs = append(errs, validateIPBlock(peer.IPBlock, p.Child("ipBlock"))...)
	}
	switch {
	case n == 0:
		errs = append(errs, field.Required(p, "must specify a peer"))
	case n > 1 && peer.IPBlock != nil:
		errs = append(errs, field.Forbidden(p, "may not specify both ipBlock and another peer"))
	}
	return errs
}

func validateIPBlock(b *networkingv1.IPBlock, p *field.Path) field.ErrorList {
	if b.CIDR == "" {
		return field.ErrorList{field.Required(p.Child("cidr"), "")}
	}
	cidr, err := netip.ParsePrefix(b.CIDR)
	if err != nil {
		return validation.IsValidCIDR(p.Child("cidr"), b.CIDR)
	}
	var errs field.ErrorList
	for i, e := range b.Except {
		xp := p.Child("except").Index(i)
		except, err := netip.ParsePrefix(e)
		if err != nil {
			return append(errs, validation.IsValidCIDR(xp, e)...)
		}
		if !cidr.Masked().Contains(except.Addr()) || cidr.Bits() >= except.Bits() {
			errs = append(errs, field.Invalid(xp, e, "must be a strict subset of `cidr`"))
		}
	}
	return errs
}

// ValidateIPAddress checks an IPAddress: its name is an address in
// canonical form and it names its parent.
func ValidateIPAddress(ip *networkingv1.IPAddress) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&ip.ObjectMeta, false, ipAddressName, metadata)
	ref := ip.Spec.ParentRef
	rp := spec.Child("parentRef")
	if ref == nil {
		return append(errs, field.Required(rp, ""))
	}
	if ref.Group != "" {
		for _, msg := range validation.IsDNS1123Subdomain(ref.Group) {
			errs = append(errs, field.Invalid(rp.Child("group"), ref.Group, msg))
		}
	}
	if ref.Resource == "" {
		errs = append(errs, field.Required(rp.Child("resource"), ""))
	} else {
		for _, msg := range pathSegmentName(ref.Resource) {
			errs = append(errs, field.Invalid(rp.Child("resource"), ref.Resource, msg))
		}
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(rp.Child("name"), ""))
	} else {
		for _, msg := range pathSegmentName(ref.Name) {
			errs = append(errs, field.Invalid(rp.Child("name"), ref.Name, msg))
		}
	}
	if ref.Namespace != "" {
		for _, msg := range apivalidation.ValidateNamespaceName(ref.Namespace, false) {
			errs = append(errs, field.Invalid(rp.Child("namespace"), ref.Namespace, msg))
		}
	}
	return errs
}

// ValidateIPAddressUpdate checks an IPAddress update: the parent never
// changes.
func ValidateIPAddressUpdate(ip, old *networkingv1.IPAddress) field.ErrorList {
	errs := ValidateIPAddress(ip)
	return append(errs, apivalidation.ValidateImmutableField(ip.Spec.ParentRef, old.Spec.ParentRef, spec.Child("parentRef"))...)
}

// ipAddressName checks that a name is an IP address written canonically.
func ipAddressName(name string, _ bool) []string {
	ip, err := netip.ParseAddr(name)
	switch {
	case err != nil:
		return []string{err.Error()}
	case ip.String() != name:
		return []string{"must be a canonical format IP address"}
	}
	return nil
}

// ValidateServiceCIDR checks a ServiceCIDR: one or two ranges, of
// different families, each in canonical form.
func ValidateServiceCIDR(c *networkingv1.ServiceCIDR) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&c.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, metadata)
	cp := spec.Child("cidrs")
	cidrs := c.Spec.CIDRs
	switch {
	case len(cidrs) == 0:
		return append(errs, field.Required(cp, "at least one CIDR required"))
	case len(cidrs) > 2:
		return append(errs, field.Invalid(cp, c.Spec, "may only hold up to 2 values"))
	}
	var families []bool
	for i, s := range cidrs {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			errs = append(errs, validation.IsValidCIDR(cp.Index(i), s)...)
			continue
		}
		if p.Masked().String() != s {
			errs = append(errs, field.Invalid(cp.Index(i), s, fmt.Sprintf("must be in canonical form (%q)", p.Masked().String())))
		}
		families = append(families, p.Addr().Is4())
	}
	if len(families) == 2 && families[0] == families[1] {
		errs = append(errs, field.Invalid(cp, cidrs, "may specify no more than one IP for each IP family, i.e 192.168.0.0/24 and 2001:db8::/64"))
	}
	return errs
}

// ValidateServiceCIDRUpdate checks a ServiceCIDR update: the ranges
// never change, except that a single-stack range may gain a second range
// of the other family.
func ValidateServiceCIDRUpdate(c, old *networkingv1.ServiceCIDR) field.ErrorList {
	errs := ValidateServiceCIDR(c)
	cp := spec.Child("cidrs")
	if len(old.Spec.CIDRs) == 1 && len(c.Spec.CIDRs) == 2 && c.Spec.CIDRs[0] == old.Spec.CIDRs[0] {
		return errs
	}
	return append(errs, apivalidation.ValidateImmutableField(c.Spec.CIDRs, old.Spec.CIDRs, cp)...)
}

// ValidateServiceCIDRStatusUpdate checks the conditions of a ServiceCIDR.
func ValidateServiceCIDRStatusUpdate(c, _ *networkingv1.ServiceCIDR) field.ErrorList {
	return ValidateConditions(c.Status.Conditions, field.NewPath("status", "conditions"))
}

// ValidateConditions checks metav1.Conditions: each has a unique
// qualified type, a known status, a reason and a transition time.
func ValidateConditions(conds []metav1.Condition, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	statuses := []string{string(metav1.ConditionTrue), string(metav1.ConditionFalse), string(metav1.ConditionUnknown)}
	for i, c := range conds {
		cp := p.Index(i)
		if c.Type == "" {
			errs = append(errs, field.Required(cp.Child("type"), "must be set"))
		} else {
			for _, msg := range validation.IsQualifiedName(c.Type) {
				errs = append(errs, field.Invalid(cp.Child("type"), c.Type, msg))
			}
		}
		if seen[c.Type] {
			errs = append(errs, field.Duplicate(cp.Child("type"), c.Type))
		}
		seen[c.Type] = true
		if !slices.Contains(statuses, string(c.Status)) {
			errs = append(errs, field.NotSupported(cp.Child("status"), c.Status, statuses))
		}
		if c.ObservedGeneration < 0 {
			errs = append(errs, field.Invalid(cp.Child("observedGeneration"), c.ObservedGeneration, "must be greater than or equal to zero"))
		}
		if c.LastTransitionTime.IsZero() {
			errs = append(errs, field.Required(cp.Child("lastTransitionTime"), "must be set"))
		}
		if c.Reason == "" {
			errs = append(errs, field.Required(cp.Child("reason"), "must be set"))
		}
		if len(c.Message) > 32768 {
			errs = append(errs, field.TooLong(cp.Child("message"), "", 32768))
		}
	}
	return errs
}
