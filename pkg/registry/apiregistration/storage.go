// Package apiregistration provides the storage of the
// apiregistration.k8s.io/v1 API group: the resources the API server serves
// for it, each built by its own package below.
package apiregistration

import (
	apiregistrationv1 "kubecore.io/api/apiregistration/v1"

	"kubecore.io/kubecore/pkg/registry/apiregistration/apiservice"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Provider builds the storage of apiregistration.k8s.io/v1.
func Provider() strategy.Group {
	return strategy.NewGroup(apiregistrationv1.SchemeGroupVersion,
		strategy.Served("apiservices", apiservice.NewStorage),
	)
}
