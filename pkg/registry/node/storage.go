// Package node provides the storage of the node.k8s.io/v1 API group.
package node

import (
	nodev1 "kubecore.io/api/node/v1"

	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/node/runtimeclass"
)

// Provider builds the storage of node.k8s.io/v1.
func Provider() strategy.Group {
	return strategy.NewGroup(nodev1.SchemeGroupVersion,
		strategy.Served("runtimeclasses", runtimeclass.NewREST),
	)
}
