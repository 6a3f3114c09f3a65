// Package replicaset serves replicasets with their status and scale subresources
// through the generic Store.
package replicaset

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

// Storage is the storage of replicasets and their subresources.
type Storage struct {
	ReplicaSet *REST
	Status     *strategy.StatusREST
	Scale      *strategy.ScaleREST[*appsv1.ReplicaSet]
}

// REST serves replicasets.
type REST struct{ *generic.Store }

// NewStrategy returns the strategy of replicasets: status only through /status,
// generation bumped on spec changes.
func NewStrategy() *strategy.Strategy[*appsv1.ReplicaSet] {
	return &strategy.Strategy[*appsv1.ReplicaSet]{
		Namespaced:        true,
		StatusSubresource: true,
		Generation:        true,
		ValidateFunc: func(_ context.Context, obj *appsv1.ReplicaSet) field.ErrorList {
			return validation.ValidateReplicaSet(obj)
		},
		ValidateUpdateFunc: func(_ context.Context, obj, old *appsv1.ReplicaSet) field.ErrorList {
			return validation.ValidateReplicaSetUpdate(obj, old)
		},
	}
}

// NewStatusStrategy returns the strategy of replicasets/status.
func NewStatusStrategy() *strategy.StatusStrategy[*appsv1.ReplicaSet] {
	return &strategy.StatusStrategy[*appsv1.ReplicaSet]{Namespaced: true}
}

// NewStorage returns the storage of replicasets.
func NewStorage(opts generic.StoreOptions) (*Storage, error) {
	s := NewStrategy()
	store := &generic.Store{
		NewFunc:                   func() runtime.Object { return &appsv1.ReplicaSet{} },
		NewListFunc:               func() runtime.Object { return &appsv1.ReplicaSetList{} },
		DefaultQualifiedResource:  appsv1.Resource("replicasets"),
		SingularQualifiedResource: appsv1.Resource("replicaset"),
		CreateStrategy:            s,
		UpdateStrategy:            s,
		DeleteStrategy:            s,
		ShortNamesList:            []string{"rs"},
		CategoriesList:            []string{"all"},
	}
	if err := store.CompleteWithOptions(opts); err != nil {
		return nil, err
	}
	scale := strategy.NewScaleREST(store, strategy.Scalable[*appsv1.ReplicaSet]{
		Replicas:       func(o *appsv1.ReplicaSet) int32 { return replicasOf(o.Spec.Replicas) },
		SetReplicas:    func(o *appsv1.ReplicaSet, n int32) { o.Spec.Replicas = &n },
		StatusReplicas: func(o *appsv1.ReplicaSet) int32 { return o.Status.Replicas },
		Selector:       func(o *appsv1.ReplicaSet) *metav1.LabelSelector { return o.Spec.Selector },
	})
	return &Storage{ReplicaSet: &REST{Store: store}, Status: strategy.NewStatusREST(store, NewStatusStrategy()), Scale: scale}, nil
}

// replicasOf is spec.replicas, 1 when unset as its default says.
func replicasOf(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}
