// Package discovery provides the storage of the discovery.k8s.io/v1 API group: the
// resources the API server serves for it, each built by its own package
// below.
package discovery

import (
	discoveryv1 "kubecore.io/api/discovery/v1"

	"kubecore.io/kubecore/pkg/registry/discovery/endpointslice"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Provider builds the storage of discovery.k8s.io/v1.
func Provider() strategy.Group {
	return strategy.NewGroup(discoveryv1.SchemeGroupVersion,
		strategy.Served("endpointslices", endpointslice.NewREST),
	)
}
