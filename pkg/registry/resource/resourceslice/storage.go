// Package resourceslice serves resourceslices: the devices drivers
// publish, pool by pool, through the generic Store.
package resourceslice

import (
	resourcev1 "kubecore.io/api/resource/v1"

	"kubecore.io/kubecore/pkg/apis/resource/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewREST returns the storage of resourceslices; a spec change bumps the
// generation.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	s := &strategy.Strategy[*resourcev1.ResourceSlice]{Generation: true, ValidateFunc: validation.ValidateResourceSlice, ValidateUpdateFunc: validation.ValidateResourceSliceUpdate}
	return strategy.NewStore(opts, strategy.Of[resourcev1.ResourceSlice, resourcev1.ResourceSliceList](resourcev1.Resource("resourceslices"), "resourceslice", s))
}
