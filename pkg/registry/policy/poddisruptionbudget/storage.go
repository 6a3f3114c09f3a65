// Package poddisruptionbudget serves poddisruptionbudgets: limits on voluntary disruptions
// and their status subresource through the generic Store.
package poddisruptionbudget

import (
	"context"

	policyv1 "kubecore.io/api/policy/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/policy/validation"
	"kubecore.io/kubecore/pkg/apis/strategy"
	"kubecore.io/kubecore/pkg/registry/generic"
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

// NewStatusStrategy returns the strategy of poddisruptionbudgets/status.
func NewStatusStrategy() *strategy.StatusStrategy[*policyv1.PodDisruptionBudget] {
	return &strategy.StatusStrategy[*policyv1.PodDisruptionBudget]{Namespaced: true}
}

// NewStorage returns the storage of poddisruptionbudgets.
func NewStorage(opts generic.StoreOptions) (*Storage, error) {
	s := NewStrategy()
	store := &generic.Store{
		NewFunc:                   func() runtime.Object { return &policyv1.PodDisruptionBudget{} },
		NewListFunc:               func() runtime.Object { return &policyv1.PodDisruptionBudgetList{} },
		DefaultQualifiedResource:  policyv1.Resource("poddisruptionbudgets"),
		SingularQualifiedResource: policyv1.Resource("poddisruptionbudget"),
		CreateStrategy:            s,
		UpdateStrategy:            s,
		DeleteStrategy:            s,
		ShortNamesList:            []string{"pdb"},
	}
	if err := store.CompleteWithOptions(opts); err != nil {
		return nil, err
	}
	return &Storage{PodDisruptionBudget: &REST{Store: store}, Status: strategy.NewStatusREST(store, NewStatusStrategy())}, nil
}
