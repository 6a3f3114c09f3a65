// Package runtimeclass serves runtimeclasses through the generic Store.
package runtimeclass

import (
	nodev1 "kubecore.io/api/node/v1"

	"kubecore.io/kubecore/pkg/apis/node/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewREST returns the storage of runtimeclasses: cluster scoped, the
// handler immutable.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	s := strategy.ClusterScoped(validation.ValidateRuntimeClass, validation.ValidateRuntimeClassUpdate)
	return strategy.NewStore(opts, strategy.Of[nodev1.RuntimeClass, nodev1.RuntimeClassList](nodev1.Resource("runtimeclasses"), "runtimeclass", s))
}
