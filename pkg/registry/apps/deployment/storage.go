// Package deployment serves deployments with their status and scale subresources
// through the generic Store.
package deployment

import (
	appsv1 "kubecore.io/api/apps/v1"

	"kubecore.io/kubecore/pkg/apis/apps/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStorage returns the storage of deployments and their status and scale.
func NewStorage(opts generic.StoreOptions) (*strategy.WorkloadStorage[*appsv1.Deployment], error) {
	s := strategy.SpecAndStatus(validation.ValidateDeployment, validation.ValidateDeploymentUpdate)
	return strategy.NewWorkload(opts, strategy.Of[appsv1.Deployment, appsv1.DeploymentList](appsv1.Resource("deployments"), "deployment", s).Short("deploy"))
}
