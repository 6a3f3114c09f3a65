// Package poddisruptionbudget serves poddisruptionbudgets: limits on voluntary disruptions
// and their status subresource through the generic Store.
package poddisruptionbudget

import (
	policyv1 "kubecore.io/api/policy/v1"

	"kubecore.io/kubecore/pkg/apis/policy/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStrategy returns the strategy of poddisruptionbudgets: status only through /status.
func NewStrategy() *strategy.Strategy[*policyv1.PodDisruptionBudget] {
	return &strategy.Strategy[*policyv1.PodDisruptionBudget]{
		Namespaced:        true,
		StatusSubresource: true,
		// The eviction check trusts a status computed for the current
		// generation only (status.observedGeneration).
		Generation:         true,
		ValidateFunc:       validation.ValidatePodDisruptionBudget,
		ValidateUpdateFunc: validation.ValidatePodDisruptionBudgetUpdate,
	}
}

// NewStorage returns the storage of poddisruptionbudgets and their status.
func NewStorage(opts generic.StoreOptions) (*strategy.WithStatus, error) {
	return strategy.NewWithStatus(opts, strategy.Of[policyv1.PodDisruptionBudget, policyv1.PodDisruptionBudgetList](policyv1.Resource("poddisruptionbudgets"), "poddisruptionbudget", NewStrategy()).Short("pdb"))
}
