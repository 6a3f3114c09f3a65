// Package podtemplate serves podtemplates: stored pod templates
// through the generic Store.
package podtemplate

import (
	"context"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// REST serves podtemplates.
type REST struct{ *generic.Store }

// NewStrategy returns the strategy of podtemplates.
func NewStrategy() *strategy.Strategy[*corev1.PodTemplate] {
	return &strategy.Strategy[*corev1.PodTemplate]{
		Namespaced: true,
		ValidateFunc: func(_ context.Context, obj *corev1.PodTemplate) field.ErrorList {
			return validation.ValidatePodTemplate(obj)
		},
		ValidateUpdateFunc: func(_ context.Context, obj, old *corev1.PodTemplate) field.ErrorList {
			return func(obj, _ *corev1.PodTemplate) field.ErrorList { return validation.ValidatePodTemplate(obj) }(obj, old)
		},
	}
}

// NewREST returns the storage of podtemplates.
func NewREST(opts generic.StoreOptions) (*REST, error) {
	s := NewStrategy()
	store := &generic.Store{
		NewFunc:                   func() runtime.Object { return &corev1.PodTemplate{} },
		NewListFunc:               func() runtime.Object { return &corev1.PodTemplateList{} },
		DefaultQualifiedResource:  corev1.Resource("podtemplates"),
		SingularQualifiedResource: corev1.Resource("podtemplate"),
		CreateStrategy:            s,
		UpdateStrategy:            s,
		DeleteStrategy:            s,
	}
	if err := store.CompleteWithOptions(opts); err != nil {
		return nil, err
	}
	return &REST{Store: store}, nil
}
