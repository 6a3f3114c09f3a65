// Package coordination provides the storage of the coordination.k8s.io/v1 API group: the
// resources the API server serves for it, each built by its own package
// below.
package coordination

import (
	coordinationv1 "kubecore.io/api/coordination/v1"

	"kubecore.io/kubecore/pkg/registry/coordination/lease"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Provider builds the storage of coordination.k8s.io/v1.
func Provider() strategy.Group {
	return strategy.NewGroup(coordinationv1.SchemeGroupVersion,
		strategy.Served("leases", lease.NewREST),
	)
}
