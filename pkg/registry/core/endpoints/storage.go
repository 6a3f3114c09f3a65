// Package endpoints serves endpoints: the addresses behind a service
// through the generic Store.
package endpoints

import (
	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewREST returns the storage of endpoints.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	s := strategy.Namespaced(validation.ValidateEndpoints, strategy.ValidateNew(validation.ValidateEndpoints))
	return strategy.NewStore(opts, strategy.Of[corev1.Endpoints, corev1.EndpointsList](corev1.Resource("endpoints"), "endpoints", s).Short("ep"))
}
