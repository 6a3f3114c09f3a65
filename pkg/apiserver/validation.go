package apiserver

import (
	"fmt"
	"unicode"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// Field validation directives (the fieldValidation query parameter).
const (
	fieldValidationIgnore = "Ignore"
	fieldValidationWarn   = "Warn"
	fieldValidationStrict = "Strict"
)

// maxFieldManagerLength is the longest fieldManager Kubernetes accepts.
const maxFieldManagerLength = 128

// invalidOptions is the 422 Kubernetes answers for query parameters that
// parse but are not allowed: `CreateOptions.meta.k8s.io "" is invalid: ...`.
func invalidOptions(kind string, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: kind}, "", errs)
}

// writeOptions checks the dryRun, fieldManager and fieldValidation
// parameters of a create, update or patch (kind names the options in the
// error) and returns the field validation directive, Warn when none was
// given.
func writeOptions(kind string, dryRun []string, fieldManager, validation string) (string, error) {
	errs := validateDryRun(dryRun)
	errs = append(errs, validateFieldManager(fieldManager)...)
	switch validation {
	case "":
		validation = fieldValidationWarn
	case fieldValidationIgnore, fieldValidationWarn, fieldValidationStrict:
	default:
		errs = append(errs, field.NotSupported(field.NewPath("fieldValidation"), validation,
			[]string{"", fieldValidationIgnore, fieldValidationStrict, fieldValidationWarn}))
	}
	if err := invalidOptions(kind, errs); err != nil {
		return "", err
	}
	return validation, nil
}

// validateDryRun accepts no value or "All".
func validateDryRun(values []string) field.ErrorList {
	for _, v := range values {
		if v != metav1.DryRunAll {
			return field.ErrorList{field.NotSupported(field.NewPath("dryRun"), values, []string{metav1.DryRunAll})}
		}
	}
	return nil
}

// validateFieldManager accepts up to 128 printable characters.
func validateFieldManager(m string) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("fieldManager")
	if len(m) > maxFieldManagerLength {
		errs = append(errs, field.TooLong(p, m, maxFieldManagerLength))
	}
	for i, r := range m {
		if !unicode.IsPrint(r) {
			errs = append(errs, field.Invalid(p, m, fmt.Sprintf("invalid character %#U (at position %d)", r, i)))
		}
	}
	return errs
}

// validateDeleteOptions checks the options of a delete as Kubernetes does.
func validateDeleteOptions(o *metav1.DeleteOptions) error {
	var errs field.ErrorList
	p := field.NewPath("propagationPolicy")
	if o.OrphanDependents != nil && o.PropagationPolicy != nil {
		errs = append(errs, field.Invalid(p, *o.PropagationPolicy, "orphanDependents and deletionPropagation cannot be both set"))
	}
	if o.PropagationPolicy != nil {
		switch *o.PropagationPolicy {
		case metav1.DeletePropagationForeground, metav1.DeletePropagationBackground, metav1.DeletePropagationOrphan:
		default:
			errs = append(errs, field.NotSupported(p, string(*o.PropagationPolicy), []metav1.DeletionPropagation{
				metav1.DeletePropagationForeground, metav1.DeletePropagationBackground, metav1.DeletePropagationOrphan, "nil"}))
		}
	}
	errs = append(errs, validateDryRun(o.DryRun)...)
	return invalidOptions("DeleteOptions", errs)
}

// validateListOptions checks resourceVersionMatch and sendInitialEvents
// against the other list parameters as Kubernetes does.
func validateListOptions(o *rest.ListOptions) error {
	if o.Watch {
		return invalidOptions("ListOptions", validateWatchOptions(o))
	}
	var errs field.ErrorList
	if o.SendInitialEvents != nil {
		errs = append(errs, field.Forbidden(field.NewPath("sendInitialEvents"), "sendInitialEvents is forbidden for list"))
	}
	match := o.ResourceVersionMatch
	if match == "" {
		return invalidOptions("ListOptions", errs)
	}
	p := field.NewPath("resourceVersionMatch")
	if o.ResourceVersion == "" {
		errs = append(errs, field.Forbidden(p, "resourceVersionMatch is forbidden unless resourceVersion is provided"))
	}
	if o.Continue != "" {
		errs = append(errs, field.Forbidden(p, "resourceVersionMatch is forbidden when continue is provided"))
	}
	if match != metav1.ResourceVersionMatchExact && match != metav1.ResourceVersionMatchNotOlderThan {
		errs = append(errs, field.NotSupported(p, string(match), []metav1.ResourceVersionMatch{
			metav1.ResourceVersionMatchExact, metav1.ResourceVersionMatchNotOlderThan, ""}))
	}
	if match == metav1.ResourceVersionMatchExact && o.ResourceVersion == "0" {
		errs = append(errs, field.Forbidden(p, `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`))
	}
	return invalidOptions("ListOptions", errs)
}

// validateWatchOptions checks a watch's resourceVersionMatch and
// sendInitialEvents: a streaming list (sendInitialEvents) needs
// resourceVersionMatch NotOlderThan, and the match is meaningful only for
// one.
func validateWatchOptions(o *rest.ListOptions) field.ErrorList {
	var errs field.ErrorList
	p := field.NewPath("resourceVersionMatch")
	match := o.ResourceVersionMatch
	if o.SendInitialEvents != nil && match != metav1.ResourceVersionMatchNotOlderThan {
		errs = append(errs, field.Forbidden(p, fmt.Sprintf("sendInitialEvents requires setting resourceVersionMatch to %s", metav1.ResourceVersionMatchNotOlderThan)))
	}
	if match == "" {
		return errs
	}
	if o.SendInitialEvents == nil {
		errs = append(errs, field.Forbidden(p, "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"))
	}
	if match != metav1.ResourceVersionMatchNotOlderThan {
		errs = append(errs, field.NotSupported(p, string(match), []metav1.ResourceVersionMatch{metav1.ResourceVersionMatchNotOlderThan}))
	}
	if o.Continue != "" {
		errs = append(errs, field.Forbidden(p, "resourceVersionMatch is forbidden when continue is provided"))
	}
	return errs
}
