// Package configmap serves configmaps: key/value data for pods
// through the generic Store.
package configmap

import (
	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewREST returns the storage of configmaps.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	s := strategy.Namespaced(validation.ValidateConfigMap, validation.ValidateConfigMapUpdate)
	return strategy.NewStore(opts, strategy.Of[corev1.ConfigMap, corev1.ConfigMapList](corev1.Resource("configmaps"), "configmap", s).Short("cm"))
}
