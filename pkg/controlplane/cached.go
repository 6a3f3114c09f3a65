package controlplane

import (
	"context"
	"fmt"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/storage"
)

// cached reads the objects of one Store for the apiserver's own checks
// (admission, authentication, authorization): from the watch cache, whose
// objects are shared — callers only read them.
type cached[T runtime.Object] struct {
	store *generic.Store
}

func (c cached[T]) key(namespace, name string) string {
	k := c.store.KeyPrefix()
	if namespace != "" {
		k += "/" + namespace
	}
	if name != "" {
		k += "/" + name
	}
	return k
}

// get returns the object, the zero T when there is none. With
// orFromEtcd, an object missing from the cache is looked for in etcd
// too, so that one created an instant ago is found.
func (c cached[T]) get(ctx context.Context, namespace, name string, orFromEtcd bool) (T, error) {
	var zero T
	key := c.key(namespace, name)
	obj, err := c.store.Storage.Get(ctx, key, storage.GetOptions{ResourceVersion: "0"})
	if storage.IsNotFound(err) && orFromEtcd {
		obj, err = c.store.Storage.Get(ctx, key, storage.GetOptions{})
	}
	if storage.IsNotFound(err) {
		return zero, nil
	}
	if err != nil {
		return zero, strategy.StorageError(err, c.store.DefaultQualifiedResource, name)
	}
	return as[T](c.store, obj)
}

// list returns the objects of namespace ("" for all) whose fields match
// field (nil for all).
func (c cached[T]) list(ctx context.Context, namespace string, field fields.Selector) ([]T, error) {
	opts := storage.ListOptions{ResourceVersion: "0", Recursive: true}
	if field != nil {
		opts.Predicate = storage.SelectionPredicate{GetAttrs: c.store.GetAttrs, Field: field}
	}
	l, err := c.store.Storage.GetList(ctx, c.key(namespace, ""), opts)
	if err != nil {
		return nil, strategy.StorageError(err, c.store.DefaultQualifiedResource, "")
	}
	out := make([]T, 0, len(l.Items))
	for _, obj := range l.Items {
		t, err := as[T](c.store, obj)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func as[T runtime.Object](store *generic.Store, obj runtime.Object) (T, error) {
	t, ok := storage.Unwrap(obj).(T)
	if !ok {
		var zero T
		return zero, fmt.Errorf("%s storage returned %T", store.DefaultQualifiedResource, obj)
	}
	return t, nil
}

// notFound is the NotFound error of name in c's resource.
func notFound[T runtime.Object](c cached[T], name string) error {
	return apierrors.NewNotFound(c.store.DefaultQualifiedResource, name)
}
