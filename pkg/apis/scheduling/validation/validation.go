// Package validation checks scheduling.k8s.io/v1 priority classes as the
// Kubernetes API server does.
package validation

import (
	"strings"

	corev1 "kubecore.io/api/core/v1"
	schedulingv1 "kubecore.io/api/scheduling/v1"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// ValidatePriorityClass checks a class: user classes stay at or below
// HighestUserDefinablePriority and may not use the system- prefix unless
// they are one of the system classes.
func ValidatePriorityClass(pc *schedulingv1.PriorityClass) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&pc.ObjectMeta, false, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	if strings.HasPrefix(pc.Name, schedulingv1.SystemPriorityClassPrefix) {
		known := false
		for _, sys := range schedulingv1.SystemPriorityClasses() {
			if sys.Name == pc.Name {
				known = true
				if pc.Value != sys.Value {
					errs = append(errs, field.Forbidden(field.NewPath("value"), "value of system priority class does not match the expected value"))
				}
			}
		}
		if !known {
			errs = append(errs, field.Forbidden(field.NewPath("metadata", "name"), "priority class names with '"+schedulingv1.SystemPriorityClassPrefix+"' prefix are reserved for system use only"))
		}
	} else if pc.Value > schedulingv1.HighestUserDefinablePriority {
		errs = append(errs, field.Forbidden(field.NewPath("value"), "maximum allowed value of a user defined priority is 1000000000"))
	}
	if p := pc.PreemptionPolicy; p != nil && *p != corev1.PreemptLowerPriority && *p != corev1.PreemptNever {
		errs = append(errs, field.NotSupported(field.NewPath("preemptionPolicy"), *p, []corev1.PreemptionPolicy{corev1.PreemptLowerPriority, corev1.PreemptNever}))
	}
	return errs
}

// ValidatePriorityClassUpdate checks an update: value and preemption
// policy are immutable.
func ValidatePriorityClassUpdate(pc, old *schedulingv1.PriorityClass) field.ErrorList {
	errs := ValidatePriorityClass(pc)
	if pc.Value != old.Value {
		errs = append(errs, field.Forbidden(field.NewPath("value"), "may not be changed in an update."))
	}
	errs = append(errs, apivalidation.ValidateImmutableField(pc.PreemptionPolicy, old.PreemptionPolicy, field.NewPath("preemptionPolicy"))...)
	return errs
}
