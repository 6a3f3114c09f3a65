package customresource

import (
	"context"

	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/storage"
)

// versionedStorage serves the objects of a resource's shared storage in
// one version: with conversion None only apiVersion differs, so it is
// rewritten to the served version on the way out and to the storage
// version on the way in.
type versionedStorage struct {
	storage.Interface
	// served and stored are the apiVersions ("stable.example.com/v1").
	served, stored string
}

var _ storage.Interface = (*versionedStorage)(nil)

// newVersionedStorage returns s itself when the versions agree.
func newVersionedStorage(s storage.Interface, served, stored string) storage.Interface {
	if served == stored {
		return s
	}
	return &versionedStorage{Interface: s, served: served, stored: stored}
}

// convert returns obj in apiVersion version: obj itself when it already is
// (keeping a shared encoding), a copy otherwise.
func convert(obj runtime.Object, version string) runtime.Object {
	if obj == nil {
		return nil
	}
	u, ok := storage.Unwrap(obj).(*unstructured.Unstructured)
	if !ok || u.GetAPIVersion() == version {
		return obj
	}
	out := u.DeepCopy()
	out.Object["apiVersion"] = version
	return out
}

func (s *versionedStorage) Create(ctx context.Context, key string, obj runtime.Object) (runtime.Object, error) {
	out, err := s.Interface.Create(ctx, key, convert(obj, s.stored))
	return convert(out, s.served), err
}

func (s *versionedStorage) Get(ctx context.Context, key string, opts storage.GetOptions) (runtime.Object, error) {
	out, err := s.Interface.Get(ctx, key, opts)
	return convert(out, s.served), err
}

func (s *versionedStorage) GetList(ctx context.Context, key string, opts storage.ListOptions) (*storage.List, error) {
	list, err := s.Interface.GetList(ctx, key, opts)
	if list != nil {
		for i, it := range list.Items {
			list.Items[i] = convert(it, s.served)
		}
	}
	return list, err
}

func (s *versionedStorage) GuaranteedUpdate(ctx context.Context, key string, preconditions *storage.Preconditions, ignoreNotFound bool, tryUpdate storage.UpdateFunc, cachedExisting runtime.Object) (runtime.Object, error) {
	try := func(current runtime.Object) (runtime.Object, error) {
		updated, err := tryUpdate(convert(current, s.served))
		return convert(updated, s.stored), err
	}
	out, err := s.Interface.GuaranteedUpdate(ctx, key, preconditions, ignoreNotFound, try, cachedExisting)
	return convert(out, s.served), err
}

func (s *versionedStorage) Delete(ctx context.Context, key string, preconditions *storage.Preconditions, validate storage.ValidateObjectFunc, cachedExisting runtime.Object) (runtime.Object, error) {
	var check storage.ValidateObjectFunc
	if validate != nil {
		check = func(ctx context.Context, current runtime.Object) error {
			return validate(ctx, convert(current, s.served))
		}
	}
	out, err := s.Interface.Delete(ctx, key, preconditions, check, cachedExisting)
	return convert(out, s.served), err
}

func (s *versionedStorage) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	w, err := s.Interface.Watch(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
		if ev.Type != watch.Error && ev.Type != watch.Bookmark {
			ev.Object = convert(ev.Object, s.served)
		}
		return ev, true
	}), nil
}
