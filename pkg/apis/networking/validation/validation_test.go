package validation

import (
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	networkingv1 "kubecore.io/api/networking/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// expect checks that errs is empty when want is, or that its text holds
// want.
func expect(t *testing.T, name string, errs field.ErrorList, want string) {
	t.Helper()
	got := errs.ToAggregate()
	switch {
	case want == "" && got != nil:
		t.Errorf("%s: unexpected errors: %v", name, got)
	case want != "" && got == nil:
		t.Errorf("%s: no error, want %q", name, want)
	case want != "" && !strings.Contains(got.Error(), want):
		t.Errorf("%s: errors %q, want %q", name, got.Error(), want)
	}
}

func ptr[T any](v T) *T { return &v }

func TestValidateIngress(t *testing.T) {
	prefix := networkingv1.PathTypePrefix
	backend := func() networkingv1.IngressBackend {
		return networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: "web", Port: networkingv1.ServiceBackendPort{Number: 80}}}
	}
	ing := func(change func(*networkingv1.Ingress)) *networkingv1.Ingress {
		i := &networkingv1.Ingress{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
			Spec: networkingv1.IngressSpec{Rules: []networkingv1.IngressRule{{
				Host: "a.example.com",
				IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{
					{Path: "/", PathType: &prefix, Backend: backend()},
				}}},
			}}},
		}
		if change != nil {
			change(i)
		}
		return i
	}
	path := func(i *networkingv1.Ingress) *networkingv1.HTTPIngressPath { return &i.Spec.Rules[0].HTTP.Paths[0] }
	tests := []struct {
		name string
		ing  *networkingv1.Ingress
		want string
	}{
		{"valid", ing(nil), ""},
		{"wildcard host", ing(func(i *networkingv1.Ingress) { i.Spec.Rules[0].Host = "*.example.com" }), ""},
		{"default backend only", ing(func(i *networkingv1.Ingress) { b := backend(); i.Spec.Rules, i.Spec.DefaultBackend = nil, &b }), ""},
		{"nothing", ing(func(i *networkingv1.Ingress) { i.Spec.Rules = nil }), "either `defaultBackend` or `rules` must be specified"},
		{"IP host", ing(func(i *networkingv1.Ingress) { i.Spec.Rules[0].Host = "10.0.0.1" }), `spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address`},
		{"bad wildcard", ing(func(i *networkingv1.Ingress) { i.Spec.Rules[0].Host = "a.*.com" }), "a wildcard DNS-1123 subdomain must start with '*.'"},
		{"no path type", ing(func(i *networkingv1.Ingress) { path(i).PathType = nil }), "spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified"},
		{"unknown path type", ing(func(i *networkingv1.Ingress) { path(i).PathType = ptr(networkingv1.PathType("Regex")) }),
			`spec.rules[0].http.paths[0].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"`},
		{"relative path", ing(func(i *networkingv1.Ingress) { path(i).Path = "foo" }), `spec.rules[0].http.paths[0].path: Invalid value: "foo": must be an absolute path`},
		{"double slash", ing(func(i *networkingv1.Ingress) { path(i).Path = "/a//b" }), `must not contain '//'`},
		{"dot suffix", ing(func(i *networkingv1.Ingress) { path(i).Path = "/a/.." }), `cannot end with '/..'`},
		{"implementation specific relative", ing(func(i *networkingv1.Ingress) {
			path(i).PathType, path(i).Path = ptr(networkingv1.PathTypeImplementationSpecific), "x"
		}), "must be an absolute path"},
		{"no paths", ing(func(i *networkingv1.Ingress) { i.Spec.Rules[0].HTTP.Paths = nil }), "spec.rules[0].http.paths: Required value"},
		{"both backends", ing(func(i *networkingv1.Ingress) {
			path(i).Backend.Resource = &corev1.TypedLocalObjectReference{Kind: "Bucket", Name: "b"}
		}), "spec.rules[0].http.paths[0].backend: Invalid value: \"\": cannot set both resource and service backends"},
		{"no backend", ing(func(i *networkingv1.Ingress) { path(i).Backend = networkingv1.IngressBackend{} }), "resource or service backend is required"},
		{"no service name", ing(func(i *networkingv1.Ingress) { path(i).Backend.Service.Name = "" }), "spec.rules[0].http.paths[0].backend.service.name: Required value"},
		{"bad service name", ing(func(i *networkingv1.Ingress) { path(i).Backend.Service.Name = "Web" }), "backend.service.name: Invalid value: \"Web\""},
		{"name and number", ing(func(i *networkingv1.Ingress) { path(i).Backend.Service.Port.Name = "http" }), "cannot set both port name & port number"},
		{"no port", ing(func(i *networkingv1.Ingress) { path(i).Backend.Service.Port.Number = 0 }), "backend: Required value: port name or number is required"},
		{"bad port number", ing(func(i *networkingv1.Ingress) { path(i).Backend.Service.Port.Number = 70000 }), "backend.service.port.number: Invalid value: 70000: must be between 1 and 65535, inclusive"},
		{"resource without kind", ing(func(i *networkingv1.Ingress) {
			path(i).Backend = networkingv1.IngressBackend{Resource: &corev1.TypedLocalObjectReference{Name: "b"}}
		}), "backend.resource.kind: Required value: kind is required"},
		{"bad tls host", ing(func(i *networkingv1.Ingress) { i.Spec.TLS = []networkingv1.IngressTLS{{Hosts: []string{"A_B"}}} }), `spec.tls[0].hosts[0]: Invalid value: "A_B"`},
		{"bad secret name", ing(func(i *networkingv1.Ingress) { i.Spec.TLS = []networkingv1.IngressTLS{{SecretName: "Bad"}} }), `spec.tls[0].secretName: Invalid value: "Bad"`},
		{"bad class", ing(func(i *networkingv1.Ingress) { i.Spec.IngressClassName = ptr("Bad Class") }), `spec.ingressClassName: Invalid value: "Bad Class"`},
		{"class and annotation", ing(func(i *networkingv1.Ingress) {
			i.Spec.IngressClassName, i.Annotations = ptr("nginx"), map[string]string{"kubernetes.io/ingress.class": "nginx"}
		}), `annotations.kubernetes.io/ingress.class: Invalid value: "nginx": can not be set when the class field is also set`},
		{"bad name", ing(func(i *networkingv1.Ingress) { i.Name = "Web" }), `metadata.name: Invalid value: "Web"`},
	}
	for _, tt := range tests {
		expect(t, tt.name, ValidateIngress(tt.ing), tt.want)
	}

	st := ing(nil)
	st.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "10.0.0.300"}, {Hostname: "1.2.3.4"}, {IP: "10.0.0.1", Ports: []networkingv1.IngressPortStatus{{Port: 80, Protocol: "HTTP"}}}}
	errs := ValidateIngressStatusUpdate(st, ing(nil))
	expect(t, "status ip", errs, `status.loadBalancer.ingress[0].ip: Invalid value: "10.0.0.300": must be a valid IP address`)
	expect(t, "status hostname", errs, `status.loadBalancer.ingress[1].hostname: Invalid value: "1.2.3.4": must be a DNS name, not an IP address`)
	expect(t, "status port protocol", errs, `status.loadBalancer.ingress[2].ports[0].protocol: Unsupported value: "HTTP"`)
}

func TestValidateIngressClass(t *testing.T) {
	class := func(change func(*networkingv1.IngressClass)) *networkingv1.IngressClass {
		c := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: "nginx"}, Spec: networkingv1.IngressClassSpec{Controller: "k8s.io/ingress-nginx"}}
		if change != nil {
			change(c)
		}
		return c
	}
	params := func(scope, ns *string) func(*networkingv1.IngressClass) {
		return func(c *networkingv1.IngressClass) {
			c.Spec.Parameters = &networkingv1.IngressClassParametersReference{APIGroup: ptr("example.com"), Kind: "Params", Name: "p", Scope: scope, Namespace: ns}
		}
	}
	tests := []struct {
		name string
		c    *networkingv1.IngressClass
		want string
	}{
		{"valid", class(nil), ""},
		{"cluster parameters", class(params(ptr("Cluster"), nil)), ""},
		{"namespace parameters", class(params(ptr("Namespace"), ptr("ns"))), ""},
		{"no controller", class(func(c *networkingv1.IngressClass) { c.Spec.Controller = "" }), "spec.controller: Required value"},
		{"controller not prefixed", class(func(c *networkingv1.IngressClass) { c.Spec.Controller = "nginx" }), `spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")`},
		{"controller bad path", class(func(c *networkingv1.IngressClass) { c.Spec.Controller = "k8s.io/a b" }), `spec.controller: Invalid value: "a b": Invalid path`},
		{"controller too long", class(func(c *networkingv1.IngressClass) { c.Spec.Controller = "k8s.io/" + strings.Repeat("a", 250) }), "spec.controller: Too long"},
		{"no scope", class(params(nil, nil)), "spec.parameters.scope: Required value"},
		{"bad scope", class(params(ptr("Global"), nil)), `spec.parameters.scope: Unsupported value: "Global": supported values: "Cluster", "Namespace"`},
		{"namespace scope without namespace", class(params(ptr("Namespace"), nil)), "spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'"},
		{"cluster scope with namespace", class(params(ptr("Cluster"), ptr("ns"))), "spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'"},
	}
	for _, tt := range tests {
		expect(t, tt.name, ValidateIngressClass(tt.c), tt.want)
	}
	changed := class(func(c *networkingv1.IngressClass) { c.Spec.Controller = "example.com/other" })
	expect(t, "controller update", ValidateIngressClassUpdate(changed, class(nil)), "spec.controller: Invalid value: \"example.com/other\": field is immutable")
}

func TestValidateNetworkPolicy(t *testing.T) {
	tcp, http := corev1.ProtocolTCP, corev1.Protocol("HTTP")
	port, named := intstr.FromInt32(80), intstr.FromString("http")
	np := func(change func(*networkingv1.NetworkPolicy)) *networkingv1.NetworkPolicy {
		p := &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "deny"}}
		if change != nil {
			change(p)
		}
		return p
	}
	ingress := func(ports []networkingv1.NetworkPolicyPort, from ...networkingv1.NetworkPolicyPeer) func(*networkingv1.NetworkPolicy) {
		return func(p *networkingv1.NetworkPolicy) {
			p.Spec.Ingress = []networkingv1.NetworkPolicyIngressRule{{Ports: ports, From: from}}
		}
	}
	tests := []struct {
		name string
		np   *networkingv1.NetworkPolicy
		want string
	}{
		{"deny all", np(nil), ""},
		{"port range", np(ingress([]networkingv1.NetworkPolicyPort{{Protocol: &tcp, Port: &port, EndPort: ptr(int32(90))}})), ""},
		{"peer", np(ingress(nil, networkingv1.NetworkPolicyPeer{PodSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}})), ""},
		{"ip block", np(ingress(nil, networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/16", Except: []string{"10.0.1.0/24"}}})), ""},
		{"bad protocol", np(ingress([]networkingv1.NetworkPolicyPort{{Protocol: &http}})), `spec.ingress[0].ports[0].protocol: Unsupported value: "HTTP": supported values: "TCP", "UDP", "SCTP"`},
		{"end before port", np(ingress([]networkingv1.NetworkPolicyPort{{Port: &port, EndPort: ptr(int32(79))}})), "spec.ingress[0].ports[0].endPort: Invalid value: 80: must be greater than or equal to `port`"},
		{"end without port", np(ingress([]networkingv1.NetworkPolicyPort{{EndPort: ptr(int32(79))}})), "may not be specified when `port` is not specified"},
		{"end with named port", np(ingress([]networkingv1.NetworkPolicyPort{{Port: &named, EndPort: ptr(int32(79))}})), "may not be specified when `port` is non-numeric"},
		{"empty peer", np(ingress(nil, networkingv1.NetworkPolicyPeer{})), "spec.ingress[0].from[0]: Required value: must specify a peer"},
		{"ip block and selector", np(ingress(nil, networkingv1.NetworkPolicyPeer{PodSelector: &metav1.LabelSelector{}, IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/8"}})),
			"spec.ingress[0].from[0]: Forbidden: may not specify both ipBlock and another peer"},
		{"bad cidr", np(ingress(nil, networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/33"}})), `spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.0/33"`},
		{"except outside", np(ingress(nil, networkingv1.NetworkPolicyPeer{IPBlock: &networkingv1.IPBlock{CIDR: "10.0.0.0/16", Except: []string{"10.1.0.0/24"}}})),
			"spec.ingress[0].from[0].ipBlock.except[0]: Invalid value: \"10.1.0.0/24\": must be a strict subset of `cidr`"},
		{"bad policy type", np(func(p *networkingv1.NetworkPolicy) { p.Spec.PolicyTypes = []networkingv1.PolicyType{"Both"} }), `spec.policyTypes[0]: Unsupported value: "Both": supported values: "Ingress", "Egress"`},
		{"three policy types", np(func(p *networkingv1.NetworkPolicy) {
			p.Spec.PolicyTypes = []networkingv1.PolicyType{"Ingress", "Egress", "Ingress"}
		}), "may not specify more than two policyTypes"},
		{"bad selector", np(func(p *networkingv1.NetworkPolicy) { p.Spec.PodSelector.MatchLabels = map[string]string{"a": "b c"} }), "spec.podSelector.matchLabels"},
	}
	for _, tt := range tests {
		expect(t, tt.name, ValidateNetworkPolicy(tt.np), tt.want)
	}
}

func TestValidateIPAddress(t *testing.T) {
	ip := func(name string, ref *networkingv1.ParentReference) *networkingv1.IPAddress {
		return &networkingv1.IPAddress{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: networkingv1.IPAddressSpec{ParentRef: ref}}
	}
	svc := &networkingv1.ParentReference{Resource: "services", Namespace: "default", Name: "web"}
	tests := []struct {
		name string
		ip   *networkingv1.IPAddress
		want string
	}{
		{"IPv4", ip("10.96.0.10", svc), ""},
		{"IPv6", ip("2001:db8::1", svc), ""},
		{"not an IP", ip("web", svc), `metadata.name: Invalid value: "web"`},
		{"not canonical", ip("2001:db8:0::1", svc), `metadata.name: Invalid value: "2001:db8:0::1": must be a canonical format IP address`},
		{"leading zeros", ip("10.096.0.1", svc), `metadata.name: Invalid value: "10.096.0.1"`},
		{"no parent", ip("10.96.0.10", nil), "spec.parentRef: Required value"},
		{"parent without resource", ip("10.96.0.10", &networkingv1.ParentReference{Name: "web"}), "spec.parentRef.resource: Required value"},
		{"parent without name", ip("10.96.0.10", &networkingv1.ParentReference{Resource: "services"}), "spec.parentRef.name: Required value"},
		{"bad parent namespace", ip("10.96.0.10", &networkingv1.ParentReference{Resource: "services", Name: "a", Namespace: "Bad"}), `spec.parentRef.namespace: Invalid value: "Bad"`},
		{"bad parent group", ip("10.96.0.10", &networkingv1.ParentReference{Group: "a_b", Resource: "services", Name: "a"}), `spec.parentRef.group: Invalid value: "a_b"`},
	}
	for _, tt := range tests {
		expect(t, tt.name, ValidateIPAddress(tt.ip), tt.want)
	}
	moved := ip("10.96.0.10", &networkingv1.ParentReference{Resource: "services", Namespace: "default", Name: "other"})
	expect(t, "parent update", ValidateIPAddressUpdate(moved, ip("10.96.0.10", svc)), "spec.parentRef: Invalid value")
}

func TestValidateServiceCIDR(t *testing.T) {
	cidr := func(cidrs ...string) *networkingv1.ServiceCIDR {
		return &networkingv1.ServiceCIDR{ObjectMeta: metav1.ObjectMeta{Name: "extra"}, Spec: networkingv1.ServiceCIDRSpec{CIDRs: cidrs}}
	}
	tests := []struct {
		name string
		c    *networkingv1.ServiceCIDR
		want string
	}{
		{"IPv4", cidr("10.96.0.0/12"), ""},
		{"dual stack", cidr("10.96.0.0/12", "fd00::/108"), ""},
		{"none", cidr(), "spec.cidrs: Required value: at least one CIDR required"},
		{"three", cidr("10.0.0.0/8", "fd00::/108", "192.168.0.0/16"), "may only hold up to 2 values"},
		{"not a CIDR", cidr("10.0.0.0"), `spec.cidrs[0]: Invalid value: "10.0.0.0": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)`},
		{"host bits set", cidr("10.96.0.1/12"), `spec.cidrs[0]: Invalid value: "10.96.0.1/12": must be in canonical form ("10.96.0.0/12")`},
		{"two IPv4", cidr("10.0.0.0/8", "192.168.0.0/16"), "may specify no more than one IP for each IP family"},
	}
	for _, tt := range tests {
		expect(t, tt.name, ValidateServiceCIDR(tt.c), tt.want)
	}
	expect(t, "add a family", ValidateServiceCIDRUpdate(cidr("10.96.0.0/12", "fd00::/108"), cidr("10.96.0.0/12")), "")
	expect(t, "change", ValidateServiceCIDRUpdate(cidr("10.97.0.0/16"), cidr("10.96.0.0/12")), "spec.cidrs: Invalid value")

	st := cidr("10.96.0.0/12")
	st.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: "Yes"}}
	errs := ValidateServiceCIDRStatusUpdate(st, cidr("10.96.0.0/12"))
	expect(t, "status value", errs, `status.conditions[0].status: Unsupported value: "Yes"`)
	expect(t, "status time", errs, "status.conditions[0].lastTransitionTime: Required value")
	expect(t, "status reason", errs, "status.conditions[0].reason: Required value")
	st.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Ready", LastTransitionTime: metav1.NewTime(time.Now())}}
	expect(t, "valid status", ValidateServiceCIDRStatusUpdate(st, cidr("10.96.0.0/12")), "")
}
