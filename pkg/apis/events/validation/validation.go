// Package validation checks events written through events.k8s.io/v1 as
// the Kubernetes API server does: stricter than core v1 events, which
// keep their legacy rules.
package validation

import (
	"fmt"

	corev1 "kubecore.io/api/core/v1"
	eventsv1 "kubecore.io/api/events/v1"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// The length limits of an event's fields.
const (
	maxShortField = 128
	maxNote       = 1024
)

// ValidateEvent checks a new event: the reporting controller, instance,
// action, reason, type and event time are required, and the deprecated
// core fields must be unset.
func ValidateEvent(e *eventsv1.Event) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(&e.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, field.NewPath("metadata"))
	if ns := e.Regarding.Namespace; ns != "" && ns != e.Namespace {
		errs = append(errs, field.Invalid(field.NewPath("regarding", "namespace"), ns, "does not match event.namespace"))
	}
	if s := e.Series; s != nil {
		if s.Count < 2 {
			errs = append(errs, field.Invalid(field.NewPath("series", "count"), "", "should be at least 2"))
		}
		if s.LastObservedTime.IsZero() {
			errs = append(errs, field.Required(field.NewPath("series", "lastObservedTime"), ""))
		}
	}
	if e.EventTime.IsZero() {
		errs = append(errs, field.Required(field.NewPath("eventTime"), ""))
	}
	if e.Type != corev1.EventTypeNormal && e.Type != corev1.EventTypeWarning {
		errs = append(errs, field.Invalid(field.NewPath("type"), "", fmt.Sprintf("has invalid value: %v", e.Type)))
	}
	if !e.DeprecatedFirstTimestamp.IsZero() {
		errs = append(errs, field.Invalid(field.NewPath("deprecatedFirstTimestamp"), "", "needs to be unset"))
	}
	if !e.DeprecatedLastTimestamp.IsZero() {
		errs = append(errs, field.Invalid(field.NewPath("deprecatedLastTimestamp"), "", "needs to be unset"))
	}
	if e.DeprecatedCount != 0 {
		errs = append(errs, field.Invalid(field.NewPath("deprecatedCount"), "", "needs to be unset"))
	}
	if e.DeprecatedSource.Component != "" || e.DeprecatedSource.Host != "" {
		errs = append(errs, field.Invalid(field.NewPath("deprecatedSource"), "", "needs to be unset"))
	}
	rc := field.NewPath("reportingController")
	if e.ReportingController == "" {
		errs = append(errs, field.Required(rc, ""))
	}
	for _, msg := range validation.IsQualifiedName(e.ReportingController) {
		errs = append(errs, field.Invalid(rc, e.ReportingController, msg))
	}
	errs = append(errs, requiredShort(e.ReportingInstance, field.NewPath("reportingInstance"))...)
	errs = append(errs, requiredShort(e.Action, field.NewPath("action"))...)
	errs = append(errs, requiredShort(e.Reason, field.NewPath("reason"))...)
	if len(e.Note) > maxNote {
		errs = append(errs, field.Invalid(field.NewPath("note"), "", fmt.Sprintf("can have at most %d characters", maxNote)))
	}
	return errs
}

// requiredShort checks a required field of at most 128 characters.
func requiredShort(v string, p *field.Path) field.ErrorList {
	switch {
	case v == "":
		return field.ErrorList{field.Required(p, "")}
	case len(v) > maxShortField:
		return field.ErrorList{field.Invalid(p, "", fmt.Sprintf("can have at most %d characters", maxShortField))}
	}
	return nil
}

// ValidateEventUpdate checks an update made through events.k8s.io: only
// the series (and the metadata) may change. Events created through core
// v1 are checked by the legacy rules only.
func ValidateEventUpdate(e, old *eventsv1.Event) field.ErrorList {
	var errs field.ErrorList
	if old.ReportingController != "" {
		errs = ValidateEvent(withoutDeprecated(e))
	}
	immutable := func(n, o any, name string) {
		errs = append(errs, apivalidation.ValidateImmutableField(n, o, field.NewPath(name))...)
	}
	immutable(e.Action, old.Action, "action")
	immutable(e.Reason, old.Reason, "reason")
	immutable(e.Regarding, old.Regarding, "regarding")
	immutable(e.Related, old.Related, "related")
	immutable(e.ReportingController, old.ReportingController, "reportingController")
	immutable(e.ReportingInstance, old.ReportingInstance, "reportingInstance")
	immutable(e.Note, old.Note, "note")
	immutable(e.Type, old.Type, "type")
	immutable(e.EventTime, old.EventTime, "eventTime")
	return errs
}

// withoutDeprecated is e with the deprecated fields cleared, which an
// update keeps from the stored event.
func withoutDeprecated(e *eventsv1.Event) *eventsv1.Event {
	c := e.DeepCopy()
	c.DeprecatedSource, c.DeprecatedCount = corev1.EventSource{}, 0
	c.DeprecatedFirstTimestamp, c.DeprecatedLastTimestamp = metav1.Time{}, metav1.Time{}
	return c
}
