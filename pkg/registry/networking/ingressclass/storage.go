// Package ingressclass serves ingressclasses through the generic Store.
package ingressclass

import (
	networkingv1 "kubecore.io/api/networking/v1"

	"kubecore.io/kubecore/pkg/apis/networking/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

type class = networkingv1.IngressClass

// NewStrategy returns the strategy of ingressclasses: cluster scoped,
// metadata.generation bumped when the spec changes.
func NewStrategy() *strategy.Strategy[*class] {
	return &strategy.Strategy[*class]{
		Generation:         true,
		ValidateFunc:       validation.ValidateIngressClass,
		ValidateUpdateFunc: validation.ValidateIngressClassUpdate,
	}
}

// NewREST returns the storage of ingressclasses.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	return strategy.NewStore(opts, strategy.Of[class, networkingv1.IngressClassList](networkingv1.Resource("ingressclasses"), "ingressclass", NewStrategy()))
}
