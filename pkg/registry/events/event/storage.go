// Package event serves events.k8s.io/v1 events: the same stored objects
// as core v1 events, converted between the two shapes on the way in and
// out by a generic.View over the core events Store.
package event

import (
	"strings"

	corev1 "kubecore.io/api/core/v1"
	eventsv1 "kubecore.io/api/events/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"

	"kubecore.io/kubecore/pkg/apis/events/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
)

// View is how events.k8s.io events are served over the core ones: checked
// by the events.k8s.io rules, stored in their core shape, selected by the
// events.k8s.io field names.
func View() generic.ViewOf[eventsv1.Event, eventsv1.EventList, corev1.Event, corev1.EventList] {
	return generic.ViewOf[eventsv1.Event, eventsv1.EventList, corev1.Event, corev1.EventList]{
		Resource:       eventsv1.Resource("events"),
		Kind:           "Event",
		ToView:         eventsv1.FromCore,
		ToStored:       func(e *eventsv1.Event, _ *corev1.Event) *corev1.Event { return eventsv1.ToCore(e) },
		ViewItems:      func(l *eventsv1.EventList) *[]eventsv1.Event { return &l.Items },
		StoredItems:    func(l *corev1.EventList) *[]corev1.Event { return &l.Items },
		Validate:       validation.ValidateEvent,
		ValidateUpdate: validation.ValidateEventUpdate,
		FieldLabel:     coreFieldLabel,
	}
}

// coreFieldLabel maps a field selector of events.k8s.io onto the fields of
// core events: regarding.* is involvedObject.*, and reportingController
// is reportingComponent.
func coreFieldLabel(f, v string) (string, string, error) {
	switch {
	case strings.HasPrefix(f, "regarding."):
		return "involvedObject." + strings.TrimPrefix(f, "regarding."), v, nil
	case f == "reportingController":
		return "reportingComponent", v, nil
	case f == "note":
		return "", "", apierrors.NewBadRequest(`field label "note" is not supported`)
	}
	return f, v, nil
}
