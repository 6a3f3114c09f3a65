// Package serviceaccount serves serviceaccounts, the identities pods run
// as, through the generic Store, and their token subresource, which issues
// service account tokens (TokenRequest).
package serviceaccount

import (
	"context"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// REST serves serviceaccounts.
type REST struct{ *generic.Store }

// NewStrategy returns the strategy of serviceaccounts.
func NewStrategy() *strategy.Strategy[*corev1.ServiceAccount] {
	return &strategy.Strategy[*corev1.ServiceAccount]{
		Namespaced: true,
		ValidateFunc: func(_ context.Context, obj *corev1.ServiceAccount) field.ErrorList {
			return validation.ValidateServiceAccount(obj)
		},
		ValidateUpdateFunc: func(_ context.Context, obj, _ *corev1.ServiceAccount) field.ErrorList {
			return validation.ValidateServiceAccount(obj)
		},
	}
}

// NewREST returns the storage of serviceaccounts.
func NewREST(opts generic.StoreOptions) (*REST, error) {
	s := NewStrategy()
	store := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.ServiceAccount{} },
		NewListFunc:               func() runtime.Object { return &corev1.ServiceAccountList{} },
		DefaultQualifiedResource:  corev1.Resource("serviceaccounts"),
		SingularQualifiedResource: corev1.Resource("serviceaccount"),
		CreateStrategy:            s,
		UpdateStrategy:            s,
		DeleteStrategy:            s,
		ShortNamesList:            []string{"sa"},
	}
	if err := store.CompleteWithOptions(opts); err != nil {
		return nil, err
	}
	return &REST{Store: store}, nil
}
