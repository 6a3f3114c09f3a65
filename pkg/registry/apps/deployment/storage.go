// Package deployment serves deployments with their status and scale subresources
// through the generic Store.
package deployment

import (
	appsv1 "kubecore.io/api/apps/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/apis/apps/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Storage is the storage of deployments and their subresources.
type Storage struct {
	Deployment *REST
	Status     *strategy.StatusREST
	Scale      *strategy.ScaleREST[*appsv1.Deployment]
}

// REST serves deployments.
type REST struct{ *generic.Store }

// workload describes deployments.
func workload() strategy.Workload[*appsv1.Deployment] {
	return strategy.Workload[*appsv1.Deployment]{
		Resource:       appsv1.Resource("deployments"),
		Singular:       appsv1.Resource("deployment"),
		NewObj:         func() runtime.Object { return &appsv1.Deployment{} },
		NewList:        func() runtime.Object { return &appsv1.DeploymentList{} },
		ShortNames:     []string{"deploy"},
		Validate:       validation.ValidateDeployment,
		ValidateUpdate: validation.ValidateDeploymentUpdate,
		Scale: strategy.Scalable[*appsv1.Deployment]{
			Replicas:       func(o *appsv1.Deployment) int32 { return strategy.ReplicasOf(o.Spec.Replicas) },
			SetReplicas:    func(o *appsv1.Deployment, n int32) { o.Spec.Replicas = &n },
			StatusReplicas: func(o *appsv1.Deployment) int32 { return o.Status.Replicas },
			Selector:       func(o *appsv1.Deployment) *metav1.LabelSelector { return o.Spec.Selector },
		},
	}
}

// NewStorage returns the storage of deployments.
func NewStorage(opts generic.StoreOptions) (*Storage, error) {
	w, err := strategy.NewWorkload(opts, workload())
	if err != nil {
		return nil, err
	}
	return &Storage{Deployment: &REST{Store: w.Store}, Status: w.Status, Scale: w.Scale}, nil
}
