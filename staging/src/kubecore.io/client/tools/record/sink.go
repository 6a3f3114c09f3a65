package record

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
)

// EventSink writes Events to the API server; the namespace is the event's.
type EventSink interface {
	Create(ctx context.Context, event *corev1.Event) (*corev1.Event, error)
	// Patch applies a JSON merge patch to the named Event.
	Patch(ctx context.Context, namespace, name string, mergePatch []byte) (*corev1.Event, error)
}

// EventClient is the Events client of one namespace; the typed client
// (typed.Clientset.CoreV1().Events(ns)) satisfies it.
type EventClient interface {
	Create(ctx context.Context, event *corev1.Event, opts metav1.CreateOptions) (*corev1.Event, error)
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*corev1.Event, error)
}

// ClientSink adapts per-namespace Events clients to an EventSink.
type ClientSink func(namespace string) EventClient

var _ EventSink = ClientSink(nil)

// Create creates event in its namespace.
func (f ClientSink) Create(ctx context.Context, event *corev1.Event) (*corev1.Event, error) {
	out, err := f(event.Namespace).Create(ctx, event, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("create event %s/%s: %w", event.Namespace, event.Name, err)
	}
	return out, nil
}

// Patch merge-patches the named Event.
func (f ClientSink) Patch(ctx context.Context, namespace, name string, mergePatch []byte) (*corev1.Event, error) {
	out, err := f(namespace).Patch(ctx, name, types.MergePatchType, mergePatch, metav1.PatchOptions{})
	if err != nil {
		return nil, fmt.Errorf("patch event %s/%s: %w", namespace, name, err)
	}
	return out, nil
}

// repeatPatch is the merge patch that records one more occurrence.
func repeatPatch(count int32, last metav1.Time) ([]byte, error) {
	return json.Marshal(struct {
		Count         int32       `json:"count"`
		LastTimestamp metav1.Time `json:"lastTimestamp"`
	}{count, last})
}
