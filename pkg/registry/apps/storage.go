// Package apps provides the storage of the apps/v1 API group: the resources the
// API server serves for it, each built by its own package below.
package apps

import (
	"context"
	"errors"

	appsv1 "kubecore.io/api/apps/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/apps/controllerrevision"
	"kubecore.io/kubecore/pkg/registry/apps/daemonset"
	"kubecore.io/kubecore/pkg/registry/apps/deployment"
	"kubecore.io/kubecore/pkg/registry/apps/replicaset"
	"kubecore.io/kubecore/pkg/registry/apps/statefulset"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// Provider builds the storage of apps/v1.
type Provider struct{}

// GroupVersion is the group version served.
func (Provider) GroupVersion() schema.GroupVersion { return appsv1.SchemeGroupVersion }

// NewStorage adds every resource of the group to rs.
func (Provider) NewStorage(_ context.Context, rs strategy.Resources, opts generic.StoreOptions) error {
	return errors.Join(
		strategy.Add(rs, "deployments", opts, deployment.NewStorage),
		strategy.Add(rs, "replicasets", opts, replicaset.NewStorage),
		strategy.Add(rs, "statefulsets", opts, statefulset.NewStorage),
		strategy.Add(rs, "daemonsets", opts, daemonset.NewStorage),
		strategy.Add(rs, "controllerrevisions", opts, controllerrevision.NewREST),
	)
}
