// Package deployment serves deployments with their status and scale subresources
// through the generic Store.
package deployment

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

// Storage is the storage of deployments and their subresources.
type Storage struct {
	Deployment *REST
	Status     *strategy.StatusREST
	Scale      *strategy.ScaleREST[*appsv1.Deployment]
}

// REST serves deployments.
type REST struct{ *generic.Store }

// NewStrategy returns the strategy of deployments: status only through /status,
// generation bumped on spec changes.
func NewStrategy() *strategy.Strategy[*appsv1.Deployment] {
	return &strategy.Strategy[*appsv1.Deployment]{
		Namespaced:        true,
		StatusSubresource: true,
		Generation:        true,
		ValidateFunc: func(_ context.Context, obj *appsv1.Deployment) field.ErrorList {
			return validation.ValidateDeployment(obj)
		},
		ValidateUpdateFunc: func(_ context.Context, obj, old *appsv1.Deployment) field.ErrorList {
			return validation.ValidateDeploymentUpdate(obj, old)
		},
	}
}

// NewStatusStrategy returns the strategy of deployments/status.
func NewStatusStrategy() *strategy.StatusStrategy[*appsv1.Deployment] {
	return &strategy.StatusStrategy[*appsv1.Deployment]{Namespaced: true}
}

// NewStorage returns the storage of deployments.
func NewStorage(opts generic.StoreOptions) (*Storage, error) {
	s := NewStrategy()
	store := &generic.Store{
		NewFunc:                   func() runtime.Object { return &appsv1.Deployment{} },
		NewListFunc:               func() runtime.Object { return &appsv1.DeploymentList{} },
		DefaultQualifiedResource:  appsv1.Resource("deployments"),
		SingularQualifiedResource: appsv1.Resource("deployment"),
		CreateStrategy:            s,
		UpdateStrategy:            s,
		DeleteStrategy:            s,
		ShortNamesList:            []string{"deploy"},
		CategoriesList:            []string{"all"},
	}
	if err := store.CompleteWithOptions(opts); err != nil {
		return nil, err
	}
	scale := strategy.NewScaleREST(store, strategy.Scalable[*appsv1.Deployment]{
		Replicas:       func(o *appsv1.Deployment) int32 { return replicasOf(o.Spec.Replicas) },
		SetReplicas:    func(o *appsv1.Deployment, n int32) { o.Spec.Replicas = &n },
		StatusReplicas: func(o *appsv1.Deployment) int32 { return o.Status.Replicas },
		Selector:       func(o *appsv1.Deployment) *metav1.LabelSelector { return o.Spec.Selector },
	})
	return &Storage{Deployment: &REST{Store: store}, Status: strategy.NewStatusREST(store, NewStatusStrategy()), Scale: scale}, nil
}

// replicasOf is spec.replicas, 1 when unset as its default says.
func replicasOf(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}
