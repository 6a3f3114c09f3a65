// Package discovery provides the storage of the discovery.k8s.io/v1 API group: the resources the
// API server serves for it, each built by its own package below.
package discovery

import (
	"context"
	"errors"

	discoveryv1 "kubecore.io/api/discovery/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/discovery/endpointslice"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Provider builds the storage of discovery.k8s.io/v1.
type Provider struct{}

// GroupVersion is the group version served.
func (Provider) GroupVersion() schema.GroupVersion { return discoveryv1.SchemeGroupVersion }

// NewStorage adds every resource of the group to rs.
func (Provider) NewStorage(_ context.Context, rs strategy.Resources, opts generic.StoreOptions) error {
	return errors.Join(
		strategy.Add(rs, "endpointslices", opts, endpointslice.NewREST),
	)
}
