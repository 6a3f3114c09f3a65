// Package daemonset serves daemonsets with their status subresources
// through the generic Store.
package daemonset

import (
	"context"

	appsv1 "kubecore.io/api/apps/v1"

	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/apps/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
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

// NewStorage returns the storage of daemonsets.
func NewStorage(opts generic.StoreOptions) (*Storage, error) {
	st, err := strategy.NewWithStatus(opts, strategy.Resource[*appsv1.DaemonSet]{
		Resource:   appsv1.Resource("daemonsets"),
		Singular:   appsv1.Resource("daemonset"),
		NewObj:     func() runtime.Object { return &appsv1.DaemonSet{} },
		NewList:    func() runtime.Object { return &appsv1.DaemonSetList{} },
		ShortNames: []string{"ds"},
		Categories: []string{"all"},
		Strategy:   NewStrategy(),
	})
	if err != nil {
		return nil, err
	}
	return &Storage{DaemonSet: &REST{Store: st.Store}, Status: st.Status}, nil
}
