package v1

import (
	"reflect"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	networkingv1 "kubecore.io/api/networking/v1"
)

func TestSetDefaultsNetworkPolicy(t *testing.T) {
	tcp, udp := corev1.ProtocolTCP, corev1.ProtocolUDP
	in := networkingv1.NetworkPolicy{Spec: networkingv1.NetworkPolicySpec{
		Ingress: []networkingv1.NetworkPolicyIngressRule{{Ports: []networkingv1.NetworkPolicyPort{{}, {Protocol: &udp}}}},
	}}
	SetDefaultsNetworkPolicy(&in)
	if got := in.Spec.PolicyTypes; !reflect.DeepEqual(got, []networkingv1.PolicyType{"Ingress"}) {
		t.Errorf("policyTypes = %v", got)
	}
	if p := in.Spec.Ingress[0].Ports; *p[0].Protocol != tcp || *p[1].Protocol != udp {
		t.Errorf("protocols = %s, %s", *p[0].Protocol, *p[1].Protocol)
	}

	eg := networkingv1.NetworkPolicy{Spec: networkingv1.NetworkPolicySpec{Egress: []networkingv1.NetworkPolicyEgressRule{{}}}}
	SetDefaultsNetworkPolicy(&eg)
	if got := eg.Spec.PolicyTypes; !reflect.DeepEqual(got, []networkingv1.PolicyType{"Ingress", "Egress"}) {
		t.Errorf("policyTypes with egress = %v", got)
	}

	set := networkingv1.NetworkPolicy{Spec: networkingv1.NetworkPolicySpec{PolicyTypes: []networkingv1.PolicyType{"Egress"}}}
	SetDefaultsNetworkPolicy(&set)
	if got := set.Spec.PolicyTypes; !reflect.DeepEqual(got, []networkingv1.PolicyType{"Egress"}) {
		t.Errorf("given policyTypes changed to %v", got)
	}
}

func TestSetDefaultsIngressClass(t *testing.T) {
	c := networkingv1.IngressClass{Spec: networkingv1.IngressClassSpec{Parameters: &networkingv1.IngressClassParametersReference{Kind: "K", Name: "n"}}}
	SetDefaultsIngressClass(&c)
	if s := c.Spec.Parameters.Scope; s == nil || *s != "Cluster" {
		t.Errorf("scope = %v, want Cluster", s)
	}
	none := networkingv1.IngressClass{}
	SetDefaultsIngressClass(&none)
	if none.Spec.Parameters != nil {
		t.Error("parameters were made up")
	}
}
