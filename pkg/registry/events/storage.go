// Package events provides the storage of the events.k8s.io/v1 API group:
// the core v1 events, served in the events.k8s.io shape.
package events

import (
	"context"
	"errors"

	eventsv1 "kubecore.io/api/events/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/events/event"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Provider builds the storage of events.k8s.io/v1 over the core events
// Store, which the core group built before.
type Provider struct {
	// CoreEvents is the Store of core v1 events.
	CoreEvents *generic.Store
}

// GroupVersion is the group version served.
func (p Provider) GroupVersion() schema.GroupVersion { return eventsv1.SchemeGroupVersion }

// NewStorage adds events to rs; with opts.FieldManagers and a core Store
// that records managedFields, they take server-side applies by the
// events.k8s.io schema.
func (p Provider) NewStorage(_ context.Context, rs strategy.Resources, opts generic.StoreOptions) error {
	if p.CoreEvents == nil {
		return errors.New("storage of events.k8s.io events: no core events Store")
	}
	view, err := generic.NewView(p.CoreEvents, p.CoreEvents.FieldManager, event.View(), opts.FieldManagers)
	if err != nil {
		return err
	}
	rs["events"] = view
	return nil
}
