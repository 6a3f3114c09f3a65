package v1

import (
	"encoding/json"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func TestEncoding(t *testing.T) {
	yes, no := true, false
	name, port, node, tcp := "http", int32(8080), "n1", corev1.ProtocolTCP
	tests := []struct {
		name string
		in   any
		want string
	}{
		// endpoints and ports are written even when empty, as in Kubernetes.
		{"EndpointSlice zero", EndpointSlice{}, `{"metadata":{"creationTimestamp":null},"addressType":"","endpoints":null,"ports":null}`},
		{"EndpointSlice", EndpointSlice{
			TypeMeta:    metav1.TypeMeta{Kind: "EndpointSlice", APIVersion: "discovery.k8s.io/v1"},
			ObjectMeta:  metav1.ObjectMeta{Name: "web-abcde", Labels: map[string]string{LabelServiceName: "web"}},
			AddressType: AddressTypeIPv4,
			Endpoints: []Endpoint{{
				Addresses:  []string{"10.0.0.1"},
				Conditions: EndpointConditions{Ready: &yes, Serving: &yes, Terminating: &no},
				NodeName:   &node,
				TargetRef:  &corev1.ObjectReference{Kind: "Pod", Name: "web-0"},
				Hints:      &EndpointHints{ForZones: []ForZone{{Name: "z1"}}},
			}},
			Ports: []EndpointPort{{Name: &name, Protocol: &tcp, Port: &port}},
		}, `{"kind":"EndpointSlice","apiVersion":"discovery.k8s.io/v1","metadata":{"name":"web-abcde","creationTimestamp":null,"labels":{"kubernetes.io/service-name":"web"}},` +
			`"addressType":"IPv4","endpoints":[{"addresses":["10.0.0.1"],"conditions":{"ready":true,"serving":true,"terminating":false},` +
			`"targetRef":{"kind":"Pod","name":"web-0"},"nodeName":"n1","hints":{"forZones":[{"name":"z1"}]}}],"ports":[{"name":"http","protocol":"TCP","port":8080}]}`},
		{"Endpoint conditions unknown", Endpoint{Addresses: []string{"a.example.com"}}, `{"addresses":["a.example.com"],"conditions":{}}`},
		{"EndpointSliceList", EndpointSliceList{}, `{"metadata":{},"items":null}`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(tt.in)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if string(got) != tt.want {
			t.Errorf("%s:\n got: %s\nwant: %s", tt.name, got, tt.want)
		}
	}
}

func TestResource(t *testing.T) {
	if got := Resource("endpointslices").String(); got != "endpointslices.discovery.k8s.io" {
		t.Errorf("Resource = %q", got)
	}
}
