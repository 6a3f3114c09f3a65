// Package event serves core/v1 events, selectable by their involved
// object, reason, source and type.
package event

import (
	"fmt"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStrategy returns the event strategy.
func NewStrategy() *strategy.Strategy[*corev1.Event] {
	return &strategy.Strategy[*corev1.Event]{
		Namespaced:     true,
		CreateOnUpdate: true,
		ValidateFunc:   validation.ValidateEvent,
		ValidateUpdateFunc: func(e, _ *corev1.Event) field.ErrorList {
			return validation.ValidateEvent(e)
		},
	}
}

// GetAttrs returns an event's labels and selectable fields.
func GetAttrs(obj runtime.Object) (labels.Set, fields.Set, error) {
	e, ok := obj.(*corev1.Event)
	if !ok {
		return nil, nil, fmt.Errorf("not an event: %T", obj)
	}
	source := e.Source.Component
	if source == "" {
		source = e.ReportingController
	}
	return labels.Set(e.Labels), fields.Set{
		"metadata.name":                  e.Name,
		"metadata.namespace":             e.Namespace,
		"involvedObject.kind":            e.InvolvedObject.Kind,
		"involvedObject.namespace":       e.InvolvedObject.Namespace,
		"involvedObject.name":            e.InvolvedObject.Name,
		"involvedObject.uid":             string(e.InvolvedObject.UID),
		"involvedObject.apiVersion":      e.InvolvedObject.APIVersion,
		"involvedObject.resourceVersion": e.InvolvedObject.ResourceVersion,
		"involvedObject.fieldPath":       e.InvolvedObject.FieldPath,
		"reason":                         e.Reason,
		"reportingComponent":             e.ReportingController,
		"source":                         source,
		"type":                           e.Type,
	}, nil
}

// NewREST returns the storage of events.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	return strategy.NewStore(opts, strategy.Of[corev1.Event, corev1.EventList](corev1.Resource("events"), "event", NewStrategy()).Short("ev").Selectable(GetAttrs))
}
