package validation

import (
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func TestValidateEndpointSlice(t *testing.T) {
	str := func(s string) *string { return &s }
	tcp := corev1.ProtocolTCP
	slice := func(typ discoveryv1.AddressType, change func(*discoveryv1.EndpointSlice), addrs ...string) *discoveryv1.EndpointSlice {
		s := &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Namespace: "ns", Name: "web-abc"},
			AddressType: typ,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: addrs}},
			Ports:       []discoveryv1.EndpointPort{{Name: str("http"), Protocol: &tcp}},
		}
		if change != nil {
			change(s)
		}
		return s
	}
	tests := []struct {
		name  string
		slice *discoveryv1.EndpointSlice
		want  string // "" for valid
	}{
		{"IPv4", slice(discoveryv1.AddressTypeIPv4, nil, "10.0.0.1"), ""},
		{"IPv4 loopback (process runtime)", slice(discoveryv1.AddressTypeIPv4, nil, "127.0.0.1"), ""},
		{"IPv6", slice(discoveryv1.AddressTypeIPv6, nil, "fd00::1"), ""},
		{"IPv4 in IPv6", slice(discoveryv1.AddressTypeIPv6, nil, "10.0.0.1"), "must be a valid IPv6 address"},
		{"unspecified", slice(discoveryv1.AddressTypeIPv4, nil, "0.0.0.0"), "may not be unspecified"},
		{"link-local IPv6", slice(discoveryv1.AddressTypeIPv6, nil, "fe80::1"), "link-local range"},
		{"link-local multicast", slice(discoveryv1.AddressTypeIPv4, nil, "224.0.0.1"), "link-local multicast"},
		{"FQDN", slice(discoveryv1.AddressTypeFQDN, nil, "db.example.com."), ""},
		{"FQDN upper case", slice(discoveryv1.AddressTypeFQDN, nil, "DB.example.com"), "lowercase"},
		{"empty FQDN", slice(discoveryv1.AddressTypeFQDN, nil, ""), "endpoints[0].addresses[0]: Required value"},
		{"port without name", slice(discoveryv1.AddressTypeIPv4, func(s *discoveryv1.EndpointSlice) { s.Ports[0].Name = nil }, "10.0.0.1"), ""},
		{"no protocol", slice(discoveryv1.AddressTypeIPv4, func(s *discoveryv1.EndpointSlice) { s.Ports[0].Protocol = nil }, "10.0.0.1"), "ports[0].protocol: Required value"},
		{"bad app protocol", slice(discoveryv1.AddressTypeIPv4, func(s *discoveryv1.EndpointSlice) { s.Ports[0].AppProtocol = str("a b") }, "10.0.0.1"), "ports[0].appProtocol"},
		{"bad hostname", slice(discoveryv1.AddressTypeIPv4, func(s *discoveryv1.EndpointSlice) { s.Endpoints[0].Hostname = str("web.0") }, "10.0.0.1"), "endpoints[0].hostname"},
		{"bad node name", slice(discoveryv1.AddressTypeIPv4, func(s *discoveryv1.EndpointSlice) { s.Endpoints[0].NodeName = str("Node_1") }, "10.0.0.1"), "endpoints[0].nodeName"},
		{"duplicate zone hint", slice(discoveryv1.AddressTypeIPv4, func(s *discoveryv1.EndpointSlice) {
			s.Endpoints[0].Hints = &discoveryv1.EndpointHints{ForZones: []discoveryv1.ForZone{{Name: "a"}, {Name: "a"}}}
		}, "10.0.0.1"), `endpoints[0].hints.forZones[1].name: Duplicate value: "a"`},
		{"nine zone hints", slice(discoveryv1.AddressTypeIPv4, func(s *discoveryv1.EndpointSlice) {
			s.Endpoints[0].Hints = &discoveryv1.EndpointHints{ForZones: make([]discoveryv1.ForZone, 9)}
		}, "10.0.0.1"), "endpoints[0].hints.forZones: Too many: 9: must have at most 8 items"},
		{"bad topology label", slice(discoveryv1.AddressTypeIPv4, func(s *discoveryv1.EndpointSlice) {
			s.Endpoints[0].DeprecatedTopology = map[string]string{"a/b/c": "x"}
		}, "10.0.0.1"), "endpoints[0].deprecatedTopology"},
		// The Store names a slice from its generateName before validation.
		{"generateName", slice(discoveryv1.AddressTypeIPv4, func(s *discoveryv1.EndpointSlice) { s.GenerateName = "web-" }, "10.0.0.1"), ""},
		{"bad generateName", slice(discoveryv1.AddressTypeIPv4, func(s *discoveryv1.EndpointSlice) { s.GenerateName = "Web-" }, "10.0.0.1"), "metadata.generateName"},
	}
	for _, tt := range tests {
		errs := ValidateEndpointSlice(tt.slice)
		got := errs.ToAggregate()
		switch {
		case tt.want == "" && got != nil:
			t.Errorf("%s: unexpected errors: %v", tt.name, got)
		case tt.want != "" && (got == nil || !strings.Contains(got.Error(), tt.want)):
			t.Errorf("%s: errors %v, want one about %q", tt.name, got, tt.want)
		}
	}
}

func TestValidateEndpointSliceUpdate(t *testing.T) {
	old := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web-abc"}, AddressType: discoveryv1.AddressTypeIPv4}
	if errs := ValidateEndpointSliceUpdate(old.DeepCopy(), old); len(errs) != 0 {
		t.Errorf("unchanged: %v", errs)
	}
	changed := old.DeepCopy()
	changed.AddressType = discoveryv1.AddressTypeIPv6
	if errs := ValidateEndpointSliceUpdate(changed, old); len(errs) != 1 || !strings.Contains(errs[0].Error(), "addressType: Invalid value: \"IPv6\": field is immutable") {
		t.Errorf("address type change: %v", errs)
	}
}
