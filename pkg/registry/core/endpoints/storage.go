// Package endpoints serves endpoints: the addresses behind a service
// through the generic Store.
package endpoints

import (
	"context"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// REST serves endpoints.
type REST struct{ *generic.Store }

// NewStrategy returns the strategy of endpoints.
func NewStrategy() *strategy.Strategy[*corev1.Endpoints] {
	return &strategy.Strategy[*corev1.Endpoints]{
		Namespaced: true,
		ValidateFunc: func(_ context.Context, obj *corev1.Endpoints) field.ErrorList {
			return validation.ValidateEndpoints(obj)
		},
		ValidateUpdateFunc: func(_ context.Context, obj, old *corev1.Endpoints) field.ErrorList {
			return func(obj, _ *corev1.Endpoints) field.ErrorList { return validation.ValidateEndpoints(obj) }(obj, old)
		},
	}
}

// NewREST returns the storage of endpoints.
func NewREST(opts generic.StoreOptions) (*REST, error) {
	s := NewStrategy()
	store := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.Endpoints{} },
		NewListFunc:               func() runtime.Object { return &corev1.EndpointsList{} },
		DefaultQualifiedResource:  corev1.Resource("endpoints"),
		SingularQualifiedResource: corev1.Resource("endpoints"),
		CreateStrategy:            s,
		UpdateStrategy:            s,
		DeleteStrategy:            s,
		ShortNamesList:            []string{"ep"},
	}
	if err := store.CompleteWithOptions(opts); err != nil {
		return nil, err
	}
	return &REST{Store: store}, nil
}
