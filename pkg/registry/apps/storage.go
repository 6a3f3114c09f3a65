// Package apps provides the storage of the apps/v1 API group: the
// resources the API server serves for it, each built by its own package
// below.
package apps

import (
	appsv1 "kubecore.io/api/apps/v1"

	"kubecore.io/kubecore/pkg/registry/apps/controllerrevision"
	"kubecore.io/kubecore/pkg/registry/apps/daemonset"
	"kubecore.io/kubecore/pkg/registry/apps/deployment"
	"kubecore.io/kubecore/pkg/registry/apps/replicaset"
	"kubecore.io/kubecore/pkg/registry/apps/statefulset"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Provider builds the storage of apps/v1.
func Provider() strategy.Group {
	return strategy.NewGroup(appsv1.SchemeGroupVersion,
		strategy.Served("deployments", deployment.NewStorage),
		strategy.Served("replicasets", replicaset.NewStorage),
		strategy.Served("statefulsets", statefulset.NewStorage),
		strategy.Served("daemonsets", daemonset.NewStorage),
		strategy.Served("controllerrevisions", controllerrevision.NewREST),
	)
}
