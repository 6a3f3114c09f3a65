// Package configmap serves configmaps: key/value data for pods
// through the generic Store.
package configmap

import (
	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStrategy returns the strategy of configmaps.
func NewStrategy() *strategy.Strategy[*corev1.ConfigMap] {
	return strategy.Namespaced(validation.ValidateConfigMap, validation.ValidateConfigMapUpdate)
}

// NewREST returns the storage of configmaps.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	return strategy.NewStore(opts, strategy.Of[corev1.ConfigMap, corev1.ConfigMapList](corev1.Resource("configmaps"), "configmap", NewStrategy()).Short("cm"))
}
