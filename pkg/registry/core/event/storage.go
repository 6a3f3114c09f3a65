// Package event serves core/v1 events, selectable by their involved
// object, reason, source and type.
package event

import (
	"context"
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

// REST serves events.
type REST struct{ *generic.Store }

// NewStrategy returns the event strategy.
func NewStrategy() *strategy.Strategy[*corev1.Event] {
	return &strategy.Strategy[*corev1.Event]{
		Namespaced:     true,
		CreateOnUpdate: true,
		ValidateFunc: func(_ context.Context, e *corev1.Event) field.ErrorList {
			return validation.ValidateEvent(e)
		},
		ValidateUpdateFunc: func(_ context.Context, e, _ *corev1.Event) field.ErrorList {
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
func NewREST(opts generic.StoreOptions) (*REST, error) {
	s := NewStrategy()
	store := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.Event{} },
		NewListFunc:               func() runtime.Object { return &corev1.EventList{} },
		DefaultQualifiedResource:  corev1.Resource("events"),
		SingularQualifiedResource: corev1.Resource("event"),
		CreateStrategy:            s,
		UpdateStrategy:            s,
		DeleteStrategy:            s,
		GetAttrs:                  GetAttrs,
		ShortNamesList:            []string{"ev"},
	}
	if err := store.CompleteWithOptions(opts); err != nil {
		return nil, err
	}
	return &REST{Store: store}, nil
}
