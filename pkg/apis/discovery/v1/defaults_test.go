package v1

import (
	"testing"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

func TestEndpointSliceDefaults(t *testing.T) {
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	name, udp := "dns", corev1.ProtocolUDP
	slice := &discoveryv1.EndpointSlice{Ports: []discoveryv1.EndpointPort{{}, {Name: &name, Protocol: &udp}}}
	s.Default(slice)
	p := slice.Ports
	if p[0].Name == nil || *p[0].Name != "" || p[0].Protocol == nil || *p[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("unset port defaulted to %+v, want name \"\" and TCP", p[0])
	}
	if *p[1].Name != "dns" || *p[1].Protocol != corev1.ProtocolUDP {
		t.Errorf("set port changed to %+v", p[1])
	}
}
