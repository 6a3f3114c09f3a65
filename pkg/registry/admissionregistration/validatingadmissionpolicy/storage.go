// Package validatingadmissionpolicy serves validatingadmissionpolicies
// (CEL checks of requests) and their status subresource through the
// generic Store.
package validatingadmissionpolicy

import (
	admissionregistrationv1 "kubecore.io/api/admissionregistration/v1"

	"kubecore.io/kubecore/pkg/apis/admissionregistration/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStorage returns the storage of validatingadmissionpolicies and their
// status: the generation counts spec changes, the status only through
// /status.
func NewStorage(opts generic.StoreOptions) (*strategy.WithStatus, error) {
	s := &strategy.Strategy[*admissionregistrationv1.ValidatingAdmissionPolicy]{
		StatusSubresource:  true,
		Generation:         true,
		ValidateFunc:       validation.ValidateValidatingAdmissionPolicy,
		ValidateUpdateFunc: validation.ValidateValidatingAdmissionPolicyUpdate,
	}
	r := strategy.Of[admissionregistrationv1.ValidatingAdmissionPolicy, admissionregistrationv1.ValidatingAdmissionPolicyList](
		admissionregistrationv1.Resource("validatingadmissionpolicies"), "validatingadmissionpolicy", s).InCategories("api-extensions")
	return strategy.NewWithStatus(opts, r.StatusBy(&strategy.StatusStrategy[*admissionregistrationv1.ValidatingAdmissionPolicy]{
		ResetMetadata:  true,
		ValidateStatus: validation.ValidateValidatingAdmissionPolicyStatusUpdate,
	}))
}
