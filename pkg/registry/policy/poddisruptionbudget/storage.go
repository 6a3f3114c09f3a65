// Package poddisruptionbudget serves poddisruptionbudgets: limits on voluntary disruptions
// and their status subresource through the generic Store.
package poddisruptionbudget

import (
	"context"

	policyv1 "kubecore.io/api/policy/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/policy/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Storage is the storage of poddisruptionbudgets and their status.
type Storage struct {
	PodDisruptionBudget *REST
	Status              *strategy.StatusREST
}

// REST serves poddisruptionbudgets.
type REST struct{ *generic.Store }

// NewStrategy returns the strategy of poddisruptionbudgets: status only through /status.
func NewStrategy() *strategy.Strategy[*policyv1.PodDisruptionBudget] {
	return &strategy.Strategy[*policyv1.PodDisruptionBudget]{
		Namespaced:        true,
		StatusSubresource: true,
		ValidateFunc: func(_ context.Context, obj *policyv1.PodDisruptionBudget) field.ErrorList {
			return validation.ValidatePodDisruptionBudget(obj)
		},
		ValidateUpdateFunc: func(_ context.Context, obj, old *policyv1.PodDisruptionBudget) field.ErrorList {
			return validation.ValidatePodDisruptionBudgetUpdate(obj, old)
		},
	}
}

// NewStorage returns the storage of poddisruptionbudgets.
func NewStorage(opts generic.StoreOptions) (*Storage, error) {
	st, err := strategy.NewWithStatus(opts, strategy.Resource[*policyv1.PodDisruptionBudget]{
		Resource:   policyv1.Resource("poddisruptionbudgets"),
		Singular:   policyv1.Resource("poddisruptionbudget"),
		NewObj:     func() runtime.Object { return &policyv1.PodDisruptionBudget{} },
		NewList:    func() runtime.Object { return &policyv1.PodDisruptionBudgetList{} },
		ShortNames: []string{"pdb"},
		Strategy:   NewStrategy(),
	})
	if err != nil {
		return nil, err
	}
	return &Storage{PodDisruptionBudget: &REST{Store: st.Store}, Status: st.Status}, nil
}
