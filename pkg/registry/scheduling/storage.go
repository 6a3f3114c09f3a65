// Package scheduling provides the storage of the scheduling.k8s.io/v1 API group: the
// resources the API server serves for it, each built by its own package
// below.
package scheduling

import (
	schedulingv1 "kubecore.io/api/scheduling/v1"

	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/scheduling/priorityclass"
)

// Provider builds the storage of scheduling.k8s.io/v1.
func Provider() strategy.Group {
	return strategy.NewGroup(schedulingv1.SchemeGroupVersion,
		strategy.Served("priorityclasses", priorityclass.NewREST),
	)
}
