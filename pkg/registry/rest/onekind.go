package rest

import (
	"fmt"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// OneKind is what a REST that is sent bodies of one kind (a Binding, an
// Eviction, a TokenRequest) has in common with every other such REST:
// New, Destroy, its kind in discovery and the check of a decoded body.
// Embed it and write only the verb.
type OneKind[T runtime.Object] struct {
	// Kind is the kind of the bodies.
	Kind schema.GroupVersionKind
	// Empty returns a new empty T.
	Empty func() T
}

var (
	_ Storage      = OneKind[runtime.Object]{}
	_ KindProvider = OneKind[runtime.Object]{}
)

// New implements Storage.
func (k OneKind[T]) New() runtime.Object { return k.Empty() }

// Destroy implements Storage: the REST holds no storage of its own.
func (OneKind[T]) Destroy() {}

// GroupVersionKind implements KindProvider: the kind is Kind whatever the
// group of the resource it is served under.
func (k OneKind[T]) GroupVersionKind(schema.GroupVersion) schema.GroupVersionKind { return k.Kind }

// Body returns obj as a T; another type is a 400.
func (k OneKind[T]) Body(obj runtime.Object) (T, error) {
	body, ok := obj.(T)
	if !ok {
		return body, apierrors.NewBadRequest(fmt.Sprintf("not a %s object: %T", k.Kind.Kind, obj))
	}
	return body, nil
}

// NamedBody is Body for a body sent to the object name, whose own name
// must be name.
func (k OneKind[T]) NamedBody(obj runtime.Object, name string) (T, error) {
	body, err := k.Body(obj)
	if err != nil {
		return body, err
	}
	if m, ok := any(body).(metav1.Object); !ok || m.GetName() != name {
		return body, apierrors.NewBadRequest(fmt.Sprintf("name in URL does not match name in %s object", k.Kind.Kind))
	}
	return body, nil
}
