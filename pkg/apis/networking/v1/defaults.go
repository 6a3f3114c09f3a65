// Package v1 registers the networking.k8s.io/v1 kinds with a server's
// scheme together with their defaults.
package v1

import (
	corev1 "kubecore.io/api/core/v1"
	networkingv1 "kubecore.io/api/networking/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

// AddToScheme registers the networking.k8s.io/v1 kinds and their defaults.
func AddToScheme(s *runtime.Scheme) error {
	if err := networkingv1.AddToScheme(s); err != nil {
		return err
	}
	runtime.AddDefaultingFunc(s, SetDefaultsNetworkPolicy)
	runtime.AddDefaultingFunc(s, SetDefaultsIngressClass)
	return nil
}

// SetDefaultsNetworkPolicy: a port without a protocol is TCP; a policy
// naming no policy types governs ingress, and egress too when it has
// egress rules.
func SetDefaultsNetworkPolicy(np *networkingv1.NetworkPolicy) {
	setPorts := func(ports []networkingv1.NetworkPolicyPort) {
		for i := range ports {
			if ports[i].Protocol == nil {
				tcp := corev1.ProtocolTCP
				ports[i].Protocol = &tcp
			}
		}
	}
	for i := range np.Spec.Ingress {
		setPorts(np.Spec.Ingress[i].Ports)
	}
	for i := range np.Spec.Egress {
		setPorts(np.Spec.Egress[i].Ports)
	}
	if len(np.Spec.PolicyTypes) == 0 {
		np.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
		if len(np.Spec.Egress) != 0 {
			np.Spec.PolicyTypes = append(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
		}
	}
}

// SetDefaultsIngressClass: parameters naming no scope are cluster scoped.
func SetDefaultsIngressClass(c *networkingv1.IngressClass) {
	if p := c.Spec.Parameters; p != nil && p.Scope == nil {
		scope := networkingv1.IngressClassParametersReferenceScopeCluster
		p.Scope = &scope
	}
}
