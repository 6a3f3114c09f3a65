// Package daemonset serves daemonsets with their status subresources
// through the generic Store.
package daemonset

import (
	"context"

	appsv1 "kubecore.io/api/apps/v1"

	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/apps/validation"
	"kubecore.io/kubecore/pkg/apis/strategy"
	"kubecore.io/kubecore/pkg/registry/generic"
)

// Storage is the storage of daemonsets and their subresources.
type Storage struct {
	DaemonSet *REST
	Status    *strategy.StatusREST
}

// REST serves daemonsets.
type REST struct{ *generic.Store }

// NewStrategy returns the strategy of daemonsets: status only through /status,
// generation bumped on spec changes.
func NewStrategy() *strategy.Strategy[*appsv1.DaemonSet] {
	return &strategy.Strategy[*appsv1.DaemonSet]{
		Namespaced:        true,
		StatusSubresource: true,
		Generation:        true,
		ValidateFunc: func(_ context.Context, obj *appsv1.DaemonSet) field.ErrorList {
			return validation.ValidateDaemonSet(obj)
		},
		ValidateUpdateFunc: func(_ context.Context, obj, old *appsv1.DaemonSet) field.ErrorList {
			return validation.ValidateDaemonSetUpdate(obj, old)
		},
	}
}

// NewStatusStrategy returns the strategy of daemonsets/status.
func NewStatusStrategy() *strategy.StatusStrategy[*appsv1.DaemonSet] {
	return &strategy.StatusStrategy[*appsv1.DaemonSet]{Namespaced: true}
}

// NewStorage returns the storage of daemonsets.
func NewStorage(opts generic.StoreOptions) (*Storage, error) {
	s := NewStrategy()
	store := &generic.Store{
		NewFunc:                   func() runtime.Object { return &appsv1.DaemonSet{} },
		NewListFunc:               func() runtime.Object { return &appsv1.DaemonSetList{} },
		DefaultQualifiedResource:  appsv1.Resource("daemonsets"),
		SingularQualifiedResource: appsv1.Resource("daemonset"),
		CreateStrategy:            s,
		UpdateStrategy:            s,
		DeleteStrategy:            s,
		ShortNamesList:            []string{"ds"},
		CategoriesList:            []string{"all"},
	}
	if err := store.CompleteWithOptions(opts); err != nil {
		return nil, err
	}

	return &Storage{DaemonSet: &REST{Store: store}, Status: strategy.NewStatusREST(store, NewStatusStrategy())}, nil
}
