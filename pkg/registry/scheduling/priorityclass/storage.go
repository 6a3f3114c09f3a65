// Package priorityclass serves priorityclasses: named pod priorities
// through the generic Store.
package priorityclass

import (
	schedulingv1 "kubecore.io/api/scheduling/v1"

	"kubecore.io/kubecore/pkg/apis/scheduling/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewREST returns the storage of priorityclasses.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	s := strategy.ClusterScoped(validation.ValidatePriorityClass, validation.ValidatePriorityClassUpdate)
	return strategy.NewStore(opts, strategy.Of[schedulingv1.PriorityClass, schedulingv1.PriorityClassList](schedulingv1.Resource("priorityclasses"), "priorityclass", s).Short("pc"))
}
