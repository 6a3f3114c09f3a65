// Package mutatingadmissionpolicy serves mutatingadmissionpolicies: CEL mutations of objects,
// through the generic Store.
package mutatingadmissionpolicy

import (
	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"

	"kubecore.io/kubecore/pkg/apis/admissionregistration/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewREST returns the storage of mutatingadmissionpolicies.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	s := &strategy.Strategy[*admissionregistrationv1.MutatingAdmissionPolicy]{
		Generation:         true,
		ValidateFunc:       validation.ValidateMutatingAdmissionPolicy,
		ValidateUpdateFunc: validation.ValidateMutatingAdmissionPolicyUpdate,
	}
	return strategy.NewStore(opts, strategy.Of[admissionregistrationv1.MutatingAdmissionPolicy, admissionregistrationv1.MutatingAdmissionPolicyList](admissionregistrationv1.Resource("mutatingadmissionpolicies"), "mutatingadmissionpolicy", s).InCategories("api-extensions"))
}
