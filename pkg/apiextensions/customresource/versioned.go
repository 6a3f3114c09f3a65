package customresource

import (
	"context"
	"errors"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/storage"
)

// converter converts custom objects between the versions of their
// definition: the None strategy (noneConverter) or a conversion webhook
// (webhookConverter).
type converter interface {
	// convert puts objs (nil entries allowed) in apiVersion version, in
	// place; an object already in version is kept as it is (sharing its
	// encoding). A failure is a Status error.
	convert(ctx context.Context, objs []runtime.Object, version string) error
}

// versionedStorage serves the objects of a resource's shared storage in
// one version: converted to the served version on the way out and to the
// storage version on the way in.
type versionedStorage struct {
	storage.Interface
	conv converter
	// served and stored are the apiVersions ("stable.example.com/v1").
	served, stored string
	// selectAfterConversion: field selectors on selectable fields are
	// evaluated on converted objects (see selection.go).
	selectAfterConversion bool
}

var _ storage.Interface = (*versionedStorage)(nil)

// newVersionedStorage wraps s even when served is the storage version:
// objects written while another version was the storage version keep
// that apiVersion in etcd until rewritten, and must still be served in
// served (an object already in it passes through as it is).
func newVersionedStorage(s storage.Interface, conv converter, served, stored string) storage.Interface {
	_, none := conv.(noneConverter)
	return &versionedStorage{Interface: s, conv: conv, served: served, stored: stored, selectAfterConversion: !none}
}

// noneConverter is the None strategy: only apiVersion changes.
type noneConverter struct{}

func (noneConverter) convert(_ context.Context, objs []runtime.Object, version string) error {
	for i, obj := range objs {
		objs[i] = setAPIVersion(obj, version)
	}
	return nil
}

// setAPIVersion returns obj in apiVersion version: obj itself when it
// already is, a copy otherwise.
func setAPIVersion(obj runtime.Object, version string) runtime.Object {
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

// one converts a single object.
func (s *versionedStorage) one(ctx context.Context, obj runtime.Object, version string) (runtime.Object, error) {
	if obj == nil {
		return nil, nil
	}
	objs := []runtime.Object{obj}
	if err := s.conv.convert(ctx, objs, version); err != nil {
		return nil, err
	}
	return objs[0], nil
}

// out converts what the storage returned to the served version, keeping
// the storage's error when there is one.
func (s *versionedStorage) out(ctx context.Context, obj runtime.Object, err error) (runtime.Object, error) {
	conv, cerr := s.one(ctx, obj, s.served)
	if err != nil {
		return conv, err
	}
	return conv, cerr
}

func (s *versionedStorage) Create(ctx context.Context, key string, obj runtime.Object) (runtime.Object, error) {
	in, err := s.one(ctx, obj, s.stored)
	if err != nil {
		return nil, err
	}
	created, err := s.Interface.Create(ctx, key, in)
	return s.out(ctx, created, err)
}

func (s *versionedStorage) Get(ctx context.Context, key string, opts storage.GetOptions) (runtime.Object, error) {
	obj, err := s.Interface.Get(ctx, key, opts)
	return s.out(ctx, obj, err)
}

func (s *versionedStorage) GetList(ctx context.Context, key string, opts storage.ListOptions) (*storage.List, error) {
	full := opts.Predicate
	var after bool
	opts.Predicate, after = s.splitSelection(full)
	list, err := s.Interface.GetList(ctx, key, opts)
	if list != nil {
		if cerr := s.conv.convert(ctx, list.Items, s.served); cerr != nil && err == nil {
			return nil, cerr
		}
		if after {
			if serr := selectConverted(list, full); serr != nil && err == nil {
				return nil, serr
			}
		}
	}
	return list, err
}

func (s *versionedStorage) GuaranteedUpdate(ctx context.Context, key string, preconditions *storage.Preconditions, ignoreNotFound bool, tryUpdate storage.UpdateFunc, cachedExisting runtime.Object) (runtime.Object, error) {
	try := func(current runtime.Object) (runtime.Object, error) {
		cur, err := s.one(ctx, current, s.served)
		if err != nil {
			return nil, err
		}
		updated, err := tryUpdate(cur)
		if err != nil {
			return updated, err
		}
		return s.one(ctx, updated, s.stored)
	}
	obj, err := s.Interface.GuaranteedUpdate(ctx, key, preconditions, ignoreNotFound, try, cachedExisting)
	return s.out(ctx, obj, err)
}

func (s *versionedStorage) Delete(ctx context.Context, key string, preconditions *storage.Preconditions, validate storage.ValidateObjectFunc, cachedExisting runtime.Object) (runtime.Object, error) {
	var check storage.ValidateObjectFunc
	if validate != nil {
		check = func(ctx context.Context, current runtime.Object) error {
			cur, err := s.one(ctx, current, s.served)
			if err != nil {
				return err
			}
			return validate(ctx, cur)
		}
	}
	obj, err := s.Interface.Delete(ctx, key, preconditions, check, cachedExisting)
	return s.out(ctx, obj, err)
}

// Watch converts each event's object; an object that does not convert
// becomes an Error event carrying the conversion's Status. A selection on
// selectable fields that must see converted objects is applied here.
func (s *versionedStorage) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	full := opts.Predicate
	var (
		after bool
		sel   *selectedWatch
	)
	opts.Predicate, after = s.splitSelection(full)
	if after {
		var err error
		if sel, err = s.startSelectedWatch(ctx, key, &opts, full); err != nil {
			return nil, err
		}
	}
	w, err := s.Interface.Watch(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
		if ev.Type == watch.Error || ev.Type == watch.Bookmark {
			return ev, true
		}
		obj, err := s.one(ctx, ev.Object, s.served)
		if err != nil {
			return errorEvent(err), true
		}
		ev.Object = obj
		if sel == nil {
			return ev, true
		}
		ev, ok, err := sel.event(ev)
		if err != nil {
			return errorEvent(err), true
		}
		return ev, ok
	}), nil
}

// errorEvent is the Error event of a watch that failed with err.
func errorEvent(err error) watch.Event {
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		se = apierrors.NewInternalError(err)
	}
	st := se.Status()
	return watch.Event{Type: watch.Error, Object: &st}
}
