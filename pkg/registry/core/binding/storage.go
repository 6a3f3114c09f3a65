// Package binding serves the bindings collection of a namespace: POST a
// Binding there to bind the pod it names, as pods/binding does.
package binding

import (
	"context"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// REST serves POST /api/v1/namespaces/{namespace}/bindings.
type REST struct {
	rest.OneKind[*corev1.Binding]
	pods rest.NamedCreater
}

var (
	_ rest.Creater              = (*REST)(nil)
	_ rest.Scoper               = (*REST)(nil)
	_ rest.SingularNameProvider = (*REST)(nil)
)

// NewREST binds pods through podBinding, the storage of pods/binding.
func NewREST(podBinding rest.NamedCreater) *REST {
	return &REST{
		OneKind: rest.OneKind[*corev1.Binding]{Kind: corev1.SchemeGroupVersion.WithKind("Binding"), Empty: func() *corev1.Binding { return &corev1.Binding{} }},
		pods:    podBinding,
	}
}

// NamespaceScoped implements rest.Scoper.
func (r *REST) NamespaceScoped() bool { return true }

// Create implements rest.Creater: the binding's name is the pod's.
func (r *REST) Create(ctx context.Context, obj runtime.Object, validate rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	b, err := r.Body(obj)
	if err != nil {
		return nil, err
	}
	if b.Name == "" {
		return nil, apierrors.NewInvalid(corev1.SchemeGroupVersion.WithKind("Binding").GroupKind(), "",
			field.ErrorList{field.Required(field.NewPath("metadata", "name"), "name or generateName is required")})
	}
	return r.pods.Create(ctx, b.Name, b, validate, opts)
}

// GetSingularName implements rest.SingularNameProvider.
func (r *REST) GetSingularName() string { return "binding" }
