// Package statefulset serves statefulsets with their status and scale subresources
// through the generic Store.
package statefulset

import (
	appsv1 "kubecore.io/api/apps/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/apis/apps/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Storage is the storage of statefulsets and their subresources.
type Storage struct {
	StatefulSet *REST
	Status      *strategy.StatusREST
	Scale       *strategy.ScaleREST[*appsv1.StatefulSet]
}

// REST serves statefulsets.
type REST struct{ *generic.Store }

// workload describes statefulsets.
func workload() strategy.Workload[*appsv1.StatefulSet] {
	return strategy.Workload[*appsv1.StatefulSet]{
		Resource:       appsv1.Resource("statefulsets"),
		Singular:       appsv1.Resource("statefulset"),
		NewObj:         func() runtime.Object { return &appsv1.StatefulSet{} },
		NewList:        func() runtime.Object { return &appsv1.StatefulSetList{} },
		ShortNames:     []string{"sts"},
		Validate:       validation.ValidateStatefulSet,
		ValidateUpdate: validation.ValidateStatefulSetUpdate,
		Scale: strategy.Scalable[*appsv1.StatefulSet]{
			Replicas:       func(o *appsv1.StatefulSet) int32 { return strategy.ReplicasOf(o.Spec.Replicas) },
			SetReplicas:    func(o *appsv1.StatefulSet, n int32) { o.Spec.Replicas = &n },
			StatusReplicas: func(o *appsv1.StatefulSet) int32 { return o.Status.Replicas },
			Selector:       func(o *appsv1.StatefulSet) *metav1.LabelSelector { return o.Spec.Selector },
		},
	}
}

// NewStorage returns the storage of statefulsets.
func NewStorage(opts generic.StoreOptions) (*Storage, error) {
	w, err := strategy.NewWorkload(opts, workload())
	if err != nil {
		return nil, err
	}
	return &Storage{StatefulSet: &REST{Store: w.Store}, Status: w.Status, Scale: w.Scale}, nil
}
