// Package ingress serves ingresses and their status subresource through
// the generic Store.
package ingress

import (
	networkingv1 "kubecore.io/api/networking/v1"

	"kubecore.io/kubecore/pkg/apis/networking/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

type ingress = networkingv1.Ingress

// NewStrategy returns the strategy of ingresses: status only through
// /status, metadata.generation bumped when the spec changes.
func NewStrategy() *strategy.Strategy[*ingress] {
	return &strategy.Strategy[*ingress]{
		Namespaced:         true,
		StatusSubresource:  true,
		Generation:         true,
		ValidateFunc:       validation.ValidateIngress,
		ValidateUpdateFunc: validation.ValidateIngressUpdate,
	}
}

// NewStorage returns the storage of ingresses and their status.
func NewStorage(opts generic.StoreOptions) (*strategy.WithStatus, error) {
	r := strategy.Of[ingress, networkingv1.IngressList](networkingv1.Resource("ingresses"), "ingress", NewStrategy()).Short("ing")
	return strategy.NewWithStatus(opts, r.StatusBy(&strategy.StatusStrategy[*ingress]{ValidateStatus: validation.ValidateIngressStatusUpdate}))
}
