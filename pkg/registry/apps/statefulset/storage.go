// Package statefulset serves statefulsets with their status and scale subresources
// through the generic Store.
package statefulset

import (
	appsv1 "kubecore.io/api/apps/v1"

	"kubecore.io/kubecore/pkg/apis/apps/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStorage returns the storage of statefulsets and their status and scale.
func NewStorage(opts generic.StoreOptions) (*strategy.WorkloadStorage[*appsv1.StatefulSet], error) {
	s := strategy.SpecAndStatus(validation.ValidateStatefulSet, validation.ValidateStatefulSetUpdate)
	return strategy.NewWorkload(opts, strategy.Of[appsv1.StatefulSet, appsv1.StatefulSetList](appsv1.Resource("statefulsets"), "statefulset", s).Short("sts"))
}
