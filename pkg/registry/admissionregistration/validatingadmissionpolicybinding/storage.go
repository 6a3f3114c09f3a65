// Package validatingadmissionpolicybinding serves validatingadmissionpolicybindings: what applies a validating admission policy, with its parameters,
// through the generic Store.
package validatingadmissionpolicybinding

import (
	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"

	"kubecore.io/kubecore/pkg/apis/admissionregistration/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewREST returns the storage of validatingadmissionpolicybindings.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	s := &strategy.Strategy[*admissionregistrationv1.ValidatingAdmissionPolicyBinding]{
		Generation:         true,
		ValidateFunc:       validation.ValidateValidatingAdmissionPolicyBinding,
		ValidateUpdateFunc: validation.ValidateValidatingAdmissionPolicyBindingUpdate,
	}
	return strategy.NewStore(opts, strategy.Of[admissionregistrationv1.ValidatingAdmissionPolicyBinding, admissionregistrationv1.ValidatingAdmissionPolicyBindingList](admissionregistrationv1.Resource("validatingadmissionpolicybindings"), "validatingadmissionpolicybinding", s).InCategories("api-extensions"))
}
