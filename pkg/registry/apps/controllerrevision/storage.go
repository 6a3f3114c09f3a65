// Package controllerrevision serves controllerrevisions: immutable snapshots of workload templates
// through the generic Store.
package controllerrevision

import (
	appsv1 "kubecore.io/api/apps/v1"

	"kubecore.io/kubecore/pkg/apis/apps/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewREST returns the storage of controllerrevisions.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	s := strategy.Namespaced(validation.ValidateControllerRevision, validation.ValidateControllerRevisionUpdate)
	return strategy.NewStore(opts, strategy.Of[appsv1.ControllerRevision, appsv1.ControllerRevisionList](appsv1.Resource("controllerrevisions"), "controllerrevision", s))
}
