package validation

import (
	"maps"
	"slices"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// ValidateLabelName checks a label key: a qualified name.
func ValidateLabelName(name string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(name) {
		errs = append(errs, field.Invalid(fldPath, name, msg))
	}
	return errs
}

// ValidateLabels checks every key and value. As in Kubernetes the errors
// carry the path of the map itself (metadata.labels), not of the key.
// Keys are checked in sorted order so that the errors are deterministic.
func ValidateLabels(labels map[string]string, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		errs = append(errs, ValidateLabelName(k, fldPath)...)
		for _, msg := range validation.IsValidLabelValue(labels[k]) {
			errs = append(errs, field.Invalid(fldPath, labels[k], msg))
		}
	}
	return errs
}

// ValidateLabelSelector checks the API form of a label selector; nil is
// valid.
func ValidateLabelSelector(ps *metav1.LabelSelector, fldPath *field.Path) field.ErrorList {
	if ps == nil {
		return nil
	}
	errs := ValidateLabels(ps.MatchLabels, fldPath.Child("matchLabels"))
	for i, expr := range ps.MatchExpressions {
		errs = append(errs, ValidateLabelSelectorRequirement(expr, fldPath.Child("matchExpressions").Index(i))...)
	}
	return errs
}

// ValidateLabelSelectorRequirement checks one match expression: a known
// operator, values present for In/NotIn and absent for Exists/DoesNotExist,
// a valid key and valid values.
func ValidateLabelSelectorRequirement(sr metav1.LabelSelectorRequirement, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch sr.Operator {
	case metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn:
		if len(sr.Values) == 0 {
			errs = append(errs, field.Required(fldPath.Child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
		}
	case metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist:
		if len(sr.Values) > 0 {
			errs = append(errs, field.Forbidden(fldPath.Child("values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
		}
	default:
		errs = append(errs, field.Invalid(fldPath.Child("operator"), sr.Operator, "not a valid selector operator"))
	}
	errs = append(errs, ValidateLabelName(sr.Key, fldPath.Child("key"))...)
	for i, v := range sr.Values {
		for _, msg := range validation.IsValidLabelValue(v) {
			errs = append(errs, field.Invalid(fldPath.Child("values").Index(i), v, msg))
		}
	}
	return errs
}
