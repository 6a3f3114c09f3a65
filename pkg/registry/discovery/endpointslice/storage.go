// Package endpointslice serves endpointslices: the backends of services,
// a slice per address type and port set, through the generic Store.
package endpointslice

import (
	"context"
	"reflect"

	discoveryv1 "kubecore.io/api/discovery/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/discovery/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

type slice = discoveryv1.EndpointSlice

// REST serves endpointslices.
type REST struct{ *generic.Store }

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
		ValidateFunc: func(_ context.Context, obj *slice) field.ErrorList { return validation.ValidateEndpointSlice(obj) },
		ValidateUpdateFunc: func(_ context.Context, obj, old *slice) field.ErrorList {
			return validation.ValidateEndpointSliceUpdate(obj, old)
		},
	}
}

// NewREST returns the storage of endpointslices.
func NewREST(opts generic.StoreOptions) (*REST, error) {
	store, err := strategy.NewStore(opts, strategy.Resource[*slice]{
		Resource: discoveryv1.Resource("endpointslices"),
		Singular: discoveryv1.Resource("endpointslice"),
		NewObj:   func() runtime.Object { return &slice{} },
		NewList:  func() runtime.Object { return &discoveryv1.EndpointSliceList{} },
		Strategy: NewStrategy(),
	})
	if err != nil {
		return nil, err
	}
	return &REST{Store: store}, nil
}
