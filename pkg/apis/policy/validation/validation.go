// Package validation checks policy/v1 disruption budgets as the
// Kubernetes API server does.
package validation

import (
	policyv1 "kubecore.io/api/policy/v1"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// ValidatePodDisruptionBudget checks a budget: minAvailable and
// maxUnavailable exclude each other.
func ValidatePodDisruptionBudget(pdb *policyv1.PodDisruptionBudget) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&pdb.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	sp := field.NewPath("spec")
	if pdb.Spec.MinAvailable != nil && pdb.Spec.MaxUnavailable != nil {
		errs = append(errs, field.Invalid(sp, pdb.Spec, "minAvailable and maxUnavailable cannot be both set"))
	}
	if pdb.Spec.Selector != nil {
		errs = append(errs, apivalidation.ValidateLabelSelector(pdb.Spec.Selector, sp.Child("selector"))...)
	}
	return errs
}

// ValidatePodDisruptionBudgetUpdate checks an update of a budget.
func ValidatePodDisruptionBudgetUpdate(pdb, _ *policyv1.PodDisruptionBudget) field.ErrorList {
	return ValidatePodDisruptionBudget(pdb)
}
