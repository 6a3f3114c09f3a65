// Package statefulset serves statefulsets with their status and scale subresources
// through the generic Store.
package statefulset

import (
	"context"

	appsv1 "kubecore.io/api/apps/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/apps/validation"
	"kubecore.io/kubecore/pkg/apis/strategy"
	"kubecore.io/kubecore/pkg/registry/generic"
)

// Storage is the storage of statefulsets and their subresources.
type Storage struct {
	StatefulSet *REST
	Status      *strategy.StatusREST
	Scale       *strategy.ScaleREST[*appsv1.StatefulSet]
}

// REST serves statefulsets.
type REST struct{ *generic.Store }

// NewStrategy returns the strategy of statefulsets: status only through /status,
// generation bumped on spec changes.
func NewStrategy() *strategy.Strategy[*appsv1.StatefulSet] {
	return &strategy.Strategy[*appsv1.StatefulSet]{
		Namespaced:        true,
		StatusSubresource: true,
		Generation:        true,
		ValidateFunc: func(_ context.Context, obj *appsv1.StatefulSet) field.ErrorList {
			return validation.ValidateStatefulSet(obj)
		},
		ValidateUpdateFunc: func(_ context.Context, obj, old *appsv1.StatefulSet) field.ErrorList {
			return validation.ValidateStatefulSetUpdate(obj, old)
		},
	}
}

// NewStatusStrategy returns the strategy of statefulsets/status.
func NewStatusStrategy() *strategy.StatusStrategy[*appsv1.StatefulSet] {
	return &strategy.StatusStrategy[*appsv1.StatefulSet]{Namespaced: true}
}

// NewStorage returns the storage of statefulsets.
func NewStorage(opts generic.StoreOptions) (*Storage, error) {
	s := NewStrategy()
	store := &generic.Store{
		NewFunc:                   func() runtime.Object { return &appsv1.StatefulSet{} },
		NewListFunc:               func() runtime.Object { return &appsv1.StatefulSetList{} },
		DefaultQualifiedResource:  appsv1.Resource("statefulsets"),
		SingularQualifiedResource: appsv1.Resource("statefulset"),
		CreateStrategy:            s,
		UpdateStrategy:            s,
		DeleteStrategy:            s,
		ShortNamesList:            []string{"sts"},
		CategoriesList:            []string{"all"},
	}
	if err := store.CompleteWithOptions(opts); err != nil {
		return nil, err
	}
	scale := strategy.NewScaleREST(store, strategy.Scalable[*appsv1.StatefulSet]{
		Replicas:       func(o *appsv1.StatefulSet) int32 { return replicasOf(o.Spec.Replicas) },
		SetReplicas:    func(o *appsv1.StatefulSet, n int32) { o.Spec.Replicas = &n },
		StatusReplicas: func(o *appsv1.StatefulSet) int32 { return o.Status.Replicas },
		Selector:       func(o *appsv1.StatefulSet) *metav1.LabelSelector { return o.Spec.Selector },
	})
	return &Storage{StatefulSet: &REST{Store: store}, Status: strategy.NewStatusREST(store, NewStatusStrategy()), Scale: scale}, nil
}

// replicasOf is spec.replicas, 1 when unset as its default says.
func replicasOf(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}
