// Package replicaset serves replicasets with their status and scale subresources
// through the generic Store.
package replicaset

import (
	appsv1 "kubecore.io/api/apps/v1"

	"kubecore.io/kubecore/pkg/apis/apps/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStorage returns the storage of replicasets and their status and scale.
func NewStorage(opts generic.StoreOptions) (*strategy.WorkloadStorage[*appsv1.ReplicaSet], error) {
	s := strategy.SpecAndStatus(validation.ValidateReplicaSet, validation.ValidateReplicaSetUpdate)
	return strategy.NewWorkload(opts, strategy.Of[appsv1.ReplicaSet, appsv1.ReplicaSetList](appsv1.Resource("replicasets"), "replicaset", s).Short("rs"))
}
