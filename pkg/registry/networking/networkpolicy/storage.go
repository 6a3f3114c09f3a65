// Package networkpolicy serves networkpolicies through the generic
// Store. Enforcing them is the network plugin's business.
package networkpolicy

import (
	networkingv1 "kubecore.io/api/networking/v1"

	"kubecore.io/kubecore/pkg/apis/networking/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

type policy = networkingv1.NetworkPolicy

// NewStrategy returns the strategy of networkpolicies:
// metadata.generation bumped when the spec changes.
func NewStrategy() *strategy.Strategy[*policy] {
	return &strategy.Strategy[*policy]{
		Namespaced:         true,
		Generation:         true,
		ValidateFunc:       validation.ValidateNetworkPolicy,
		ValidateUpdateFunc: validation.ValidateNetworkPolicyUpdate,
	}
}

// NewREST returns the storage of networkpolicies.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	return strategy.NewStore(opts, strategy.Of[policy, networkingv1.NetworkPolicyList](networkingv1.Resource("networkpolicies"), "networkpolicy", NewStrategy()).Short("netpol"))
}
