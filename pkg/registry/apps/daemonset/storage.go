// Package daemonset serves daemonsets with their status subresources
// through the generic Store.
package daemonset

import (
	appsv1 "kubecore.io/api/apps/v1"

	"kubecore.io/kubecore/pkg/apis/apps/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStrategy returns the strategy of daemonsets: status only through /status,
// generation bumped on spec changes.
func NewStrategy() *strategy.Strategy[*appsv1.DaemonSet] {
	return &strategy.Strategy[*appsv1.DaemonSet]{
		Namespaced:         true,
		StatusSubresource:  true,
		Generation:         true,
		ValidateFunc:       validation.ValidateDaemonSet,
		ValidateUpdateFunc: validation.ValidateDaemonSetUpdate,
	}
}

// NewStorage returns the storage of daemonsets and their status.
func NewStorage(opts generic.StoreOptions) (*strategy.WithStatus, error) {
	return strategy.NewWithStatus(opts, strategy.Of[appsv1.DaemonSet, appsv1.DaemonSetList](appsv1.Resource("daemonsets"), "daemonset", NewStrategy()).Short("ds").InCategories("all"))
}
