// Package endpointslice serves endpointslices: the backends of services,
// a slice per address type and port set, through the generic Store.
package endpointslice

import (
	"context"
	"reflect"

	discoveryv1 "kubecore.io/api/discovery/v1"

	"kubecore.io/kubecore/pkg/apis/discovery/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

type slice = discoveryv1.EndpointSlice

// NewStrategy returns the strategy of endpointslices: metadata.generation
// starts at 1 and grows when the address type, endpoints or ports change.
func NewStrategy() *strategy.Strategy[*slice] {
	return &strategy.Strategy[*slice]{
		Namespaced:    true,
		PrepareCreate: func(_ context.Context, obj *slice) { obj.Generation = 1 },
		PrepareUpdate: func(_ context.Context, obj, old *slice) {
			obj.Generation = old.Generation
			if obj.AddressType != old.AddressType || !reflect.DeepEqual(obj.Endpoints, old.Endpoints) || !reflect.DeepEqual(obj.Ports, old.Ports) {
				obj.Generation++
			}
		},
		ValidateFunc:       validation.ValidateEndpointSlice,
		ValidateUpdateFunc: validation.ValidateEndpointSliceUpdate,
	}
}

// NewREST returns the storage of endpointslices.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	return strategy.NewStore(opts, strategy.Of[slice, discoveryv1.EndpointSliceList](discoveryv1.Resource("endpointslices"), "endpointslice", NewStrategy()))
}
