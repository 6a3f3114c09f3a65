package v1

import (
	"encoding/json"
	"reflect"
	"testing"

	"kubecore.io/apimachinery/pkg/runtime/protobuf"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

// TestProtobuf checks that every kind has a protobuf encoding, as kubectl
// and client-go send built-in kinds in protobuf.
func TestProtobuf(t *testing.T) {
	c := protobuf.NewCodec()
	for _, o := range []any{&IngressList{}, &IngressClassList{}, &NetworkPolicyList{}, &IPAddressList{}, &ServiceCIDRList{}} {
		if err := c.Supports(reflect.TypeOf(o)); err != nil {
			t.Errorf("%T: %v", o, err)
		}
	}
}

func TestEncoding(t *testing.T) {
	exact, port := PathTypeExact, intstr.FromInt32(80)
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"Ingress rule", IngressRule{Host: "a.example.com", IngressRuleValue: IngressRuleValue{HTTP: &HTTPIngressRuleValue{Paths: []HTTPIngressPath{{
			Path: "/", PathType: &exact, Backend: IngressBackend{Service: &IngressServiceBackend{Name: "web", Port: ServiceBackendPort{Number: 80}}},
		}}}}}, `{"host":"a.example.com","http":{"paths":[{"path":"/","pathType":"Exact","backend":{"service":{"name":"web","port":{"number":80}}}}]}}`},
		{"NetworkPolicy spec", NetworkPolicySpec{Ingress: []NetworkPolicyIngressRule{{Ports: []NetworkPolicyPort{{Port: &port}}}}},
			`{"podSelector":{},"ingress":[{"ports":[{"port":80}]}]}`},
		{"IPAddress", IPAddressSpec{ParentRef: &ParentReference{Resource: "services", Namespace: "default", Name: "kubernetes"}},
			`{"parentRef":{"resource":"services","namespace":"default","name":"kubernetes"}}`},
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
