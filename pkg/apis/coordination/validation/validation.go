// Package validation checks coordination.k8s.io/v1 leases as the
// Kubernetes API server does.
package validation

import (
	coordinationv1 "kubecore.io/api/coordination/v1"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// ValidateLease checks a lease: its durations and transitions are positive.
func ValidateLease(l *coordinationv1.Lease) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&l.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	sp := field.NewPath("spec")
	if d := l.Spec.LeaseDurationSeconds; d != nil && *d <= 0 {
		errs = append(errs, field.Invalid(sp.Child("leaseDurationSeconds"), *d, "must be greater than 0"))
	}
	if t := l.Spec.LeaseTransitions; t != nil && *t < 0 {
		errs = append(errs, field.Invalid(sp.Child("leaseTransitions"), *t, "must be greater than or equal to 0"))
	}
	return errs
}

// ValidateLeaseUpdate checks an update of a lease.
func ValidateLeaseUpdate(l, _ *coordinationv1.Lease) field.ErrorList { return ValidateLease(l) }
