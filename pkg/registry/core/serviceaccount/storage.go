// Package serviceaccount serves serviceaccounts, the identities pods run
// as, through the generic Store, and their token subresource, which issues
// service account tokens (TokenRequest).
package serviceaccount

import (
	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewREST returns the storage of serviceaccounts.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	s := strategy.Namespaced(validation.ValidateServiceAccount, strategy.ValidateNew(validation.ValidateServiceAccount))
	return strategy.NewStore(opts, strategy.Of[corev1.ServiceAccount, corev1.ServiceAccountList](corev1.Resource("serviceaccounts"), "serviceaccount", s).Short("sa"))
}
