// Package scheduling provides the storage of the scheduling.k8s.io/v1 API group: the resources the
// API server serves for it, each built by its own package below.
package scheduling

import (
	"context"
	"errors"

	schedulingv1 "kubecore.io/api/scheduling/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/scheduling/priorityclass"
)

// Provider builds the storage of scheduling.k8s.io/v1.
type Provider struct{}

// GroupVersion is the group version served.
func (Provider) GroupVersion() schema.GroupVersion { return schedulingv1.SchemeGroupVersion }

// NewStorage adds every resource of the group to rs.
func (Provider) NewStorage(_ context.Context, rs strategy.Resources, opts generic.StoreOptions) error {
	return errors.Join(
		strategy.Add(rs, "priorityclasses", opts, priorityclass.NewREST),
	)
}
