package customresource

import (
	"context"

	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"

	apischema "kubecore.io/kubecore/pkg/apiextensions/schema"
	"kubecore.io/kubecore/pkg/storage"
)

// defaultingStorage applies the storage version's defaults to the objects
// read from storage, as Kubernetes does when it decodes them from etcd: an
// object stored before its schema gained a default is served with it.
// What was read is not written back; an update writes the defaulted
// object. Objects come from the watch cache, shared: one that needs a
// default is copied first.
type defaultingStorage struct {
	storage.Interface
	schema *apischema.Structural
}

var _ storage.Interface = (*defaultingStorage)(nil)

// newDefaultingStorage returns s itself when the schema has no default
// anywhere and nothing could change on read.
func newDefaultingStorage(s storage.Interface, schema *apischema.Structural) storage.Interface {
	if !apischema.HasDefaults(schema) {
		return s
	}
	return &defaultingStorage{Interface: s, schema: schema}
}

// apply returns obj with its defaults: obj itself when it has them all,
// a defaulted copy otherwise.
func (s *defaultingStorage) apply(obj runtime.Object) runtime.Object {
	if obj == nil {
		return nil
	}
	u, ok := storage.Unwrap(obj).(*unstructured.Unstructured)
	if !ok || !apischema.NeedsDefault(u.Object, s.schema) {
		return obj
	}
	out := u.DeepCopy()
	apischema.Default(out.Object, s.schema)
	return out
}

func (s *defaultingStorage) Create(ctx context.Context, key string, obj runtime.Object) (runtime.Object, error) {
	created, err := s.Interface.Create(ctx, key, obj)
	return s.apply(created), err
}

func (s *defaultingStorage) Get(ctx context.Context, key string, opts storage.GetOptions) (runtime.Object, error) {
	obj, err := s.Interface.Get(ctx, key, opts)
	return s.apply(obj), err
}

func (s *defaultingStorage) GetList(ctx context.Context, key string, opts storage.ListOptions) (*storage.List, error) {
	list, err := s.Interface.GetList(ctx, key, opts)
	if list != nil {
		for i, item := range list.Items {
			list.Items[i] = s.apply(item)
		}
	}
	return list, err
}

func (s *defaultingStorage) GuaranteedUpdate(ctx context.Context, key string, preconditions *storage.Preconditions, ignoreNotFound bool, tryUpdate storage.UpdateFunc, cachedExisting runtime.Object) (runtime.Object, error) {
	try := func(current runtime.Object) (runtime.Object, error) {
		return tryUpdate(s.apply(current))
	}
	obj, err := s.Interface.GuaranteedUpdate(ctx, key, preconditions, ignoreNotFound, try, cachedExisting)
	return s.apply(obj), err
}

func (s *defaultingStorage) Delete(ctx context.Context, key string, preconditions *storage.Preconditions, validate storage.ValidateObjectFunc, cachedExisting runtime.Object) (runtime.Object, error) {
	var check storage.ValidateObjectFunc
	if validate != nil {
		check = func(ctx context.Context, current runtime.Object) error {
			return validate(ctx, s.apply(current))
		}
	}
	obj, err := s.Interface.Delete(ctx, key, preconditions, check, cachedExisting)
	return s.apply(obj), err
}

// Watch defaults each event's object.
func (s *defaultingStorage) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	w, err := s.Interface.Watch(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
		if ev.Type != watch.Error && ev.Type != watch.Bookmark {
			ev.Object = s.apply(ev.Object)
		}
		return ev, true
	}), nil
}
