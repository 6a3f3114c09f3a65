// Package configmap serves configmaps: key/value data for pods
// through the generic Store.
package configmap

import (
	"context"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// REST serves configmaps.
type REST struct{ *generic.Store }

// NewStrategy returns the strategy of configmaps.
func NewStrategy() *strategy.Strategy[*corev1.ConfigMap] {
	return &strategy.Strategy[*corev1.ConfigMap]{
		Namespaced: true,
		ValidateFunc: func(_ context.Context, obj *corev1.ConfigMap) field.ErrorList {
			return validation.ValidateConfigMap(obj)
		},
		ValidateUpdateFunc: func(_ context.Context, obj, old *corev1.ConfigMap) field.ErrorList {
			return validation.ValidateConfigMapUpdate(obj, old)
		},
	}
}

// NewREST returns the storage of configmaps.
func NewREST(opts generic.StoreOptions) (*REST, error) {
	s := NewStrategy()
	store := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.ConfigMap{} },
		NewListFunc:               func() runtime.Object { return &corev1.ConfigMapList{} },
		DefaultQualifiedResource:  corev1.Resource("configmaps"),
		SingularQualifiedResource: corev1.Resource("configmap"),
		CreateStrategy:            s,
		UpdateStrategy:            s,
		DeleteStrategy:            s,
		ShortNamesList:            []string{"cm"},
	}
	if err := store.CompleteWithOptions(opts); err != nil {
		return nil, err
	}
	return &REST{Store: store}, nil
}
