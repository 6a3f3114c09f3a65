package controller

import (
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// ResolveControllerRef returns the owner a controllerRef points to, found by
// name with get (a lister's Get in the dependent's namespace), if ref is of
// kind gk and the owner found has ref's uid; ok is false otherwise (no
// ref, another kind, no such owner, or a different owner of the same name).
func ResolveControllerRef[T metav1.Object](ref *metav1.OwnerReference, gk schema.GroupKind, get func(name string) (T, error)) (owner T, ok bool) {
	var zero T
	if ref == nil || ref.Kind != gk.Kind {
		return zero, false
	}
	if gv, err := schema.ParseGroupVersion(ref.APIVersion); err != nil || gv.Group != gk.Group {
		return zero, false
	}
	obj, err := get(ref.Name)
	if err != nil || obj.GetUID() != ref.UID {
		return zero, false
	}
	return obj, true
}
