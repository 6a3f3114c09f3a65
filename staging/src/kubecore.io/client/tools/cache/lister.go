package cache

import (
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// Lister reads objects of one resource from an Indexer. Get and List on a
// Lister itself address cluster-scoped objects (or, for List, every
// namespace); Namespaced narrows to one namespace.
type Lister[T Object] struct {
	indexer  *Indexer[T]
	resource schema.GroupResource
}

// NewLister returns a Lister over indexer. resource names the objects in
// NotFound errors ("pods").
func NewLister[T Object](indexer *Indexer[T], resource schema.GroupResource) Lister[T] {
	return Lister[T]{indexer: indexer, resource: resource}
}

// List returns the objects whose labels match selector (nil means all).
func (l Lister[T]) List(selector labels.Selector) ([]T, error) {
	return filterLabels(l.indexer.List(), selector), nil
}

// Get returns the cluster-scoped object name, or a NotFound error.
func (l Lister[T]) Get(name string) (T, error) {
	return l.get("", name)
}

// Namespaced returns a Lister for namespace ns.
func (l Lister[T]) Namespaced(ns string) NamespaceLister[T] {
	return NamespaceLister[T]{lister: l, namespace: ns}
}

func (l Lister[T]) get(namespace, name string) (T, error) {
	obj, ok := l.indexer.GetByKey(ObjectKey(namespace, name))
	if !ok {
		return obj, apierrors.NewNotFound(l.resource, name)
	}
	return obj, nil
}

// NamespaceLister reads the objects of one namespace.
type NamespaceLister[T Object] struct {
	lister    Lister[T]
	namespace string
}

// List returns the objects of the namespace whose labels match selector
// (nil means all).
func (l NamespaceLister[T]) List(selector labels.Selector) ([]T, error) {
	objs, err := l.lister.indexer.ByIndex(NamespaceIndex, l.namespace)
	if err != nil {
		return nil, err
	}
	return filterLabels(objs, selector), nil
}

// Get returns the object name of the namespace, or a NotFound error.
func (l NamespaceLister[T]) Get(name string) (T, error) {
	return l.lister.get(l.namespace, name)
}

func filterLabels[T Object](objs []T, selector labels.Selector) []T {
	if selector == nil || selector.Empty() {
		return objs
	}
	out := objs[:0]
	for _, obj := range objs {
		if selector.Matches(labels.Set(obj.GetLabels())) {
			out = append(out, obj)
		}
	}
	return out
}
