// Package validatingwebhookconfiguration serves validatingwebhookconfigurations: the webhooks asked whether requests may proceed,
// through the generic Store.
package validatingwebhookconfiguration

import (
	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"

	"kubecore.io/kubecore/pkg/apis/admissionregistration/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewREST returns the storage of validatingwebhookconfigurations.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	s := &strategy.Strategy[*admissionregistrationv1.ValidatingWebhookConfiguration]{
		Generation:         true,
		ValidateFunc:       validation.ValidateValidatingWebhookConfiguration,
		ValidateUpdateFunc: validation.ValidateValidatingWebhookConfigurationUpdate,
	}
	return strategy.NewStore(opts, strategy.Of[admissionregistrationv1.ValidatingWebhookConfiguration, admissionregistrationv1.ValidatingWebhookConfigurationList](admissionregistrationv1.Resource("validatingwebhookconfigurations"), "validatingwebhookconfiguration", s).InCategories("api-extensions"))
}
