// Package flowcontrol provides the storage of the
// flowcontrol.apiserver.k8s.io/v1 API group: the resources the API server
// serves for it, each built by its own package below.
package flowcontrol

import (
	flowcontrolv1 "kubecore.io/api/flowcontrol/v1"

	"kubecore.io/kubecore/pkg/registry/flowcontrol/flowschema"
	"kubecore.io/kubecore/pkg/registry/flowcontrol/prioritylevelconfiguration"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Provider builds the storage of flowcontrol.apiserver.k8s.io/v1.
func Provider() strategy.Group {
	return strategy.NewGroup(flowcontrolv1.SchemeGroupVersion,
		strategy.Served("flowschemas", flowschema.NewStorage),
		strategy.Served("prioritylevelconfigurations", prioritylevelconfiguration.NewStorage),
	)
}
