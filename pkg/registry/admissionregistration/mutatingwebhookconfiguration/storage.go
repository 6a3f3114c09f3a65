// Package mutatingwebhookconfiguration serves mutatingwebhookconfigurations: the webhooks asked to change objects,
// through the generic Store.
package mutatingwebhookconfiguration

import (
	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"

	"kubecore.io/kubecore/pkg/apis/admissionregistration/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewREST returns the storage of mutatingwebhookconfigurations.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	s := &strategy.Strategy[*admissionregistrationv1.MutatingWebhookConfiguration]{
		Generation:         true,
		ValidateFunc:       validation.ValidateMutatingWebhookConfiguration,
		ValidateUpdateFunc: validation.ValidateMutatingWebhookConfigurationUpdate,
	}
	return strategy.NewStore(opts, strategy.Of[admissionregistrationv1.MutatingWebhookConfiguration, admissionregistrationv1.MutatingWebhookConfigurationList](admissionregistrationv1.Resource("mutatingwebhookconfigurations"), "mutatingwebhookconfiguration", s).InCategories("api-extensions"))
}
