// Package replicaset serves replicasets with their status and scale subresources
// through the generic Store.
package replicaset

import (
	appsv1 "kubecore.io/api/apps/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/apis/apps/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Storage is the storage of replicasets and their subresources.
type Storage struct {
	ReplicaSet *REST
	Status     *strategy.StatusREST
	Scale      *strategy.ScaleREST[*appsv1.ReplicaSet]
}

// REST serves replicasets.
type REST struct{ *generic.Store }

// workload describes replicasets.
func workload() strategy.Workload[*appsv1.ReplicaSet] {
	return strategy.Workload[*appsv1.ReplicaSet]{
		Resource:       appsv1.Resource("replicasets"),
		Singular:       appsv1.Resource("replicaset"),
		NewObj:         func() runtime.Object { return &appsv1.ReplicaSet{} },
		NewList:        func() runtime.Object { return &appsv1.ReplicaSetList{} },
		ShortNames:     []string{"rs"},
		Validate:       validation.ValidateReplicaSet,
		ValidateUpdate: validation.ValidateReplicaSetUpdate,
		Scale: strategy.Scalable[*appsv1.ReplicaSet]{
			Replicas:       func(o *appsv1.ReplicaSet) int32 { return strategy.ReplicasOf(o.Spec.Replicas) },
			SetReplicas:    func(o *appsv1.ReplicaSet, n int32) { o.Spec.Replicas = &n },
			StatusReplicas: func(o *appsv1.ReplicaSet) int32 { return o.Status.Replicas },
			Selector:       func(o *appsv1.ReplicaSet) *metav1.LabelSelector { return o.Spec.Selector },
		},
	}
}

// NewStorage returns the storage of replicasets.
func NewStorage(opts generic.StoreOptions) (*Storage, error) {
	w, err := strategy.NewWorkload(opts, workload())
	if err != nil {
		return nil, err
	}
	return &Storage{ReplicaSet: &REST{Store: w.Store}, Status: w.Status, Scale: w.Scale}, nil
}
