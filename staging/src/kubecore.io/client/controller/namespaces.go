package controller

import (
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/client/tools/cache"
)

// NamespaceOf maps an object to its namespace's name: the key of
// controllers that keep something in every namespace.
func NamespaceOf[T cache.Object](obj T) []string { return []string{obj.GetNamespace()} }

// NamespaceActive reports whether the namespace named name is known to
// namespaces and not terminating (deletionTimestamp set or phase
// Terminating): whether a controller may create objects in it. A namespace
// not found is not an error.
func NamespaceActive(namespaces cache.Lister[*corev1.Namespace], name string) (bool, error) {
	ns, err := namespaces.Get(name)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return ns.DeletionTimestamp == nil && ns.Status.Phase != corev1.NamespaceTerminating, nil
}
