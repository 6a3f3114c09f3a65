// Package lease serves leases: leader election and node heartbeats
// through the generic Store.
package lease

import (
	"context"

	coordinationv1 "kubecore.io/api/coordination/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/coordination/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// REST serves leases.
type REST struct{ *generic.Store }

// NewStrategy returns the strategy of leases.
func NewStrategy() *strategy.Strategy[*coordinationv1.Lease] {
	return &strategy.Strategy[*coordinationv1.Lease]{
		Namespaced: true,
		ValidateFunc: func(_ context.Context, obj *coordinationv1.Lease) field.ErrorList {
			return validation.ValidateLease(obj)
		},
		ValidateUpdateFunc: func(_ context.Context, obj, old *coordinationv1.Lease) field.ErrorList {
			return validation.ValidateLeaseUpdate(obj, old)
		},
	}
}

// NewREST returns the storage of leases.
func NewREST(opts generic.StoreOptions) (*REST, error) {
	s := NewStrategy()
	store := &generic.Store{
		NewFunc:                   func() runtime.Object { return &coordinationv1.Lease{} },
		NewListFunc:               func() runtime.Object { return &coordinationv1.LeaseList{} },
		DefaultQualifiedResource:  coordinationv1.Resource("leases"),
		SingularQualifiedResource: coordinationv1.Resource("lease"),
		CreateStrategy:            s,
		UpdateStrategy:            s,
		DeleteStrategy:            s,
	}
	if err := store.CompleteWithOptions(opts); err != nil {
		return nil, err
	}
	return &REST{Store: store}, nil
}
