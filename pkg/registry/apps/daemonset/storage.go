// Package daemonset serves daemonsets with their status subresources
// through the generic Store.
package daemonset

import (
	appsv1 "kubecore.io/api/apps/v1"

	"kubecore.io/kubecore/pkg/apis/apps/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStorage returns the storage of daemonsets and their status.
func NewStorage(opts generic.StoreOptions) (*strategy.WithStatus, error) {
	s := strategy.SpecAndStatus(validation.ValidateDaemonSet, validation.ValidateDaemonSetUpdate)
	return strategy.NewWithStatus(opts, strategy.Of[appsv1.DaemonSet, appsv1.DaemonSetList](appsv1.Resource("daemonsets"), "daemonset", s).Short("ds").InCategories("all"))
}
