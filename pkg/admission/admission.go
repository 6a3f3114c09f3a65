// Package admission holds the admission plugins of the API server and the
// Chain that runs them. pkg/controlplane assembles the chain and hands it to
// every Store as a rest.Admission (the interface the registry owns, with
// the write's rest.Attributes); the registry never imports this package.
//
// A plugin says which writes it Handles and implements MutationInterface
// (it may change the object; run before the strategy validates),
// ValidationInterface (run after it, on every retry of an update), or both.
// The built-in plugins live in plugin/<name>; webhooks and admission
// policies join the same Chain as further plugins.
package admission

import (
	"context"

	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// Interface is an admission plugin.
type Interface interface {
	// Handles reports whether the plugin looks at the write a describes.
	Handles(a *rest.Attributes) bool
}

// MutationInterface is a plugin of the mutating phase.
type MutationInterface interface {
	Interface
	Admit(ctx context.Context, a *rest.Attributes) error
}

// ValidationInterface is a plugin of the validating phase; it must not
// change the object.
type ValidationInterface interface {
	Interface
	Validate(ctx context.Context, a *rest.Attributes) error
}

// Chain runs its plugins in order: Admit runs the mutating ones, Validate
// the validating ones, each only on the writes it handles. The first error
// stops the write.
type Chain []Interface

var _ rest.Admission = Chain(nil)

// Admit implements rest.Admission.
func (c Chain) Admit(ctx context.Context, a *rest.Attributes) error {
	for _, p := range c {
		if m, ok := p.(MutationInterface); ok && m.Handles(a) {
			if err := m.Admit(ctx, a); err != nil {
				return err
			}
		}
	}
	return nil
}

// Validate implements rest.Admission.
func (c Chain) Validate(ctx context.Context, a *rest.Attributes) error {
	for _, p := range c {
		if v, ok := p.(ValidationInterface); ok && v.Handles(a) {
			if err := v.Validate(ctx, a); err != nil {
				return err
			}
		}
	}
	return nil
}

// PodCreateMutator is a plugin of the mutating phase made of a function of
// a new pod: it handles the creates of pods (not their subresources), the
// writes Priority and ServiceAccount admission change.
type PodCreateMutator func(ctx context.Context, pod *corev1.Pod) error

var _ MutationInterface = PodCreateMutator(nil)

// Handles implements Interface.
func (PodCreateMutator) Handles(a *rest.Attributes) bool {
	return a.Operation == rest.OperationCreate && a.Resource.GroupResource() == corev1.Resource("pods") && a.Subresource == ""
}

// Admit implements MutationInterface.
func (f PodCreateMutator) Admit(ctx context.Context, a *rest.Attributes) error {
	pod, ok := a.Object.(*corev1.Pod)
	if !ok {
		return nil
	}
	return f(ctx, pod)
}
