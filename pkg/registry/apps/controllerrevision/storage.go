// Package controllerrevision serves controllerrevisions: immutable snapshots of workload templates
// through the generic Store.
package controllerrevision

import (
	"context"

	appsv1 "kubecore.io/api/apps/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/apps/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// REST serves controllerrevisions.
type REST struct{ *generic.Store }

// NewStrategy returns the strategy of controllerrevisions.
func NewStrategy() *strategy.Strategy[*appsv1.ControllerRevision] {
	return &strategy.Strategy[*appsv1.ControllerRevision]{
		Namespaced: true,
		ValidateFunc: func(_ context.Context, obj *appsv1.ControllerRevision) field.ErrorList {
			return validation.ValidateControllerRevision(obj)
		},
		ValidateUpdateFunc: func(_ context.Context, obj, old *appsv1.ControllerRevision) field.ErrorList {
			return validation.ValidateControllerRevisionUpdate(obj, old)
		},
	}
}

// NewREST returns the storage of controllerrevisions.
func NewREST(opts generic.StoreOptions) (*REST, error) {
	s := NewStrategy()
	store := &generic.Store{
		NewFunc:                   func() runtime.Object { return &appsv1.ControllerRevision{} },
		NewListFunc:               func() runtime.Object { return &appsv1.ControllerRevisionList{} },
		DefaultQualifiedResource:  appsv1.Resource("controllerrevisions"),
		SingularQualifiedResource: appsv1.Resource("controllerrevision"),
		CreateStrategy:            s,
		UpdateStrategy:            s,
		DeleteStrategy:            s,
	}
	if err := store.CompleteWithOptions(opts); err != nil {
		return nil, err
	}
	return &REST{Store: store}, nil
}
