// Package mutatingadmissionpolicybinding serves mutatingadmissionpolicybindings: what applies a mutating admission policy, with its parameters,
// through the generic Store.
package mutatingadmissionpolicybinding

import (
	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"

	"kubecore.io/kubecore/pkg/apis/admissionregistration/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewREST returns the storage of mutatingadmissionpolicybindings.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	s := &strategy.Strategy[*admissionregistrationv1.MutatingAdmissionPolicyBinding]{
		Generation:         true,
		ValidateFunc:       validation.ValidateMutatingAdmissionPolicyBinding,
		ValidateUpdateFunc: validation.ValidateMutatingAdmissionPolicyBindingUpdate,
	}
	return strategy.NewStore(opts, strategy.Of[admissionregistrationv1.MutatingAdmissionPolicyBinding, admissionregistrationv1.MutatingAdmissionPolicyBindingList](admissionregistrationv1.Resource("mutatingadmissionpolicybindings"), "mutatingadmissionpolicybinding", s).InCategories("api-extensions"))
}
