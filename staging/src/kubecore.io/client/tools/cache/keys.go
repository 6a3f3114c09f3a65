// Package cache keeps a local, indexed copy of API objects in step with the
// server: the Indexer, the Reflector (LIST then WATCH) and the shared Informer.
package cache

import (
	"errors"
	"fmt"
	"strings"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

// Object is what the cache holds: an API object with object metadata, such
// as a *corev1.Pod.
type Object interface {
	runtime.Object
	metav1.Object
}

// DeletedFinalStateUnknown stands for an object that was deleted while the
// cache could not see the deletion itself. Key is the object's key and Obj
// the last state the cache held. The Informer of this package always knows
// that last state and hands it to OnDelete directly; this type lets
// DeletionHandlingMetaNamespaceKeyFunc accept tombstones made elsewhere.
type DeletedFinalStateUnknown struct {
	Key string
	Obj any
}

// MetaNamespaceKeyFunc returns the key of obj: "namespace/name", or "name"
// for a cluster-scoped object. A string is taken to be a key already.
func MetaNamespaceKeyFunc(obj any) (string, error) {
	switch o := obj.(type) {
	case string:
		return o, nil
	case metav1.Object:
		return objectKey(o), nil
	case metav1.ObjectMetaAccessor:
		return objectKey(o.GetObjectMeta()), nil
	default:
		return "", fmt.Errorf("object key: %T has no object metadata", obj)
	}
}

// DeletionHandlingMetaNamespaceKeyFunc is MetaNamespaceKeyFunc that also
// accepts a DeletedFinalStateUnknown and returns its key.
func DeletionHandlingMetaNamespaceKeyFunc(obj any) (string, error) {
	switch o := obj.(type) {
	case DeletedFinalStateUnknown:
		return o.Key, nil
	case *DeletedFinalStateUnknown:
		return o.Key, nil
	}
	return MetaNamespaceKeyFunc(obj)
}

// ObjectKey returns the key of a namespace and name, as
// MetaNamespaceKeyFunc would.
func ObjectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

func objectKey(o metav1.Object) string { return ObjectKey(o.GetNamespace(), o.GetName()) }

// SplitMetaNamespaceKey splits a key made by MetaNamespaceKeyFunc into its
// namespace (empty for a cluster-scoped object) and name.
func SplitMetaNamespaceKey(key string) (namespace, name string, err error) {
	parts := strings.Split(key, "/")
	switch {
	case len(parts) == 1 && parts[0] != "":
		return "", parts[0], nil
	case len(parts) == 2 && parts[0] != "" && parts[1] != "":
		return parts[0], parts[1], nil
	}
	return "", "", fmt.Errorf("split key %q: %w", key, errBadKey)
}

var errBadKey = errors.New(`want "name" or "namespace/name"`)
