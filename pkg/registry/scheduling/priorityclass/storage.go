// Package priorityclass serves priorityclasses: named pod priorities
// through the generic Store.
package priorityclass

import (
	"context"

	schedulingv1 "kubecore.io/api/scheduling/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/scheduling/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// REST serves priorityclasses.
type REST struct{ *generic.Store }

// NewStrategy returns the strategy of priorityclasses.
func NewStrategy() *strategy.Strategy[*schedulingv1.PriorityClass] {
	return &strategy.Strategy[*schedulingv1.PriorityClass]{
		Namespaced: false,
		ValidateFunc: func(_ context.Context, obj *schedulingv1.PriorityClass) field.ErrorList {
			return validation.ValidatePriorityClass(obj)
		},
		ValidateUpdateFunc: func(_ context.Context, obj, old *schedulingv1.PriorityClass) field.ErrorList {
			return validation.ValidatePriorityClassUpdate(obj, old)
		},
	}
}

// NewREST returns the storage of priorityclasses.
func NewREST(opts generic.StoreOptions) (*REST, error) {
	s := NewStrategy()
	store := &generic.Store{
		NewFunc:                   func() runtime.Object { return &schedulingv1.PriorityClass{} },
		NewListFunc:               func() runtime.Object { return &schedulingv1.PriorityClassList{} },
		DefaultQualifiedResource:  schedulingv1.Resource("priorityclasses"),
		SingularQualifiedResource: schedulingv1.Resource("priorityclass"),
		CreateStrategy:            s,
		UpdateStrategy:            s,
		DeleteStrategy:            s,
		ShortNamesList:            []string{"pc"},
	}
	if err := store.CompleteWithOptions(opts); err != nil {
		return nil, err
	}
	return &REST{Store: store}, nil
}
