// Package coordination provides the storage of the coordination.k8s.io/v1 API group: the resources the
// API server serves for it, each built by its own package below.
package coordination

import (
	"context"
	"errors"

	coordinationv1 "kubecore.io/api/coordination/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/coordination/lease"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Provider builds the storage of coordination.k8s.io/v1.
type Provider struct{}

// GroupVersion is the group version served.
func (Provider) GroupVersion() schema.GroupVersion { return coordinationv1.SchemeGroupVersion }

// NewStorage adds every resource of the group to rs.
func (Provider) NewStorage(_ context.Context, rs strategy.Resources, opts generic.StoreOptions) error {
	return errors.Join(
		strategy.Add(rs, "leases", opts, lease.NewREST),
	)
}
