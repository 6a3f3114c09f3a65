// Package testing holds an in-memory storage.Interface for tests of the
// generic Store and of resource strategies that need no etcd.
package testing

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/storage"
)

// MemoryStorage is a storage.Interface kept in memory. Every write bumps
// one revision counter, which becomes the resourceVersion; watches replay
// the log of changes after their revision. Paging (limit/continue) is not
// supported: lists return every match.
type MemoryStorage struct {
	mu      sync.Mutex
	rev     int64
	objects map[string]runtime.Object
	log     []watch.Event
	logRevs []int64
	logKeys []string
	changed chan struct{}
}

var _ storage.Interface = (*MemoryStorage)(nil)

// NewMemoryStorage returns an empty storage.
func NewMemoryStorage() *MemoryStorage {
	return &MemoryStorage{objects: map[string]runtime.Object{}, changed: make(chan struct{})}
}

func meta(obj runtime.Object) (*metav1.ObjectMeta, error) {
	if a, ok := obj.(metav1.ObjectMetaAccessor); ok {
		if m, ok := a.GetObjectMeta().(*metav1.ObjectMeta); ok {
			return m, nil
		}
	}
	return nil, fmt.Errorf("%T has no object metadata", obj)
}

// record stores obj (nil deletes) at key with a new revision, under mu.
func (s *MemoryStorage) record(key string, typ watch.EventType, obj runtime.Object) (runtime.Object, error) {
	m, err := meta(obj)
	if err != nil {
		return nil, storage.NewError(storage.ErrCodeInvalidObj, key, 0, err.Error())
	}
	s.rev++
	m.ResourceVersion = strconv.FormatInt(s.rev, 10)
	if typ == watch.Deleted {
		delete(s.objects, key)
	} else {
		s.objects[key] = obj.DeepCopyObject()
	}
	s.log = append(s.log, watch.Event{Type: typ, Object: obj.DeepCopyObject()})
	s.logRevs = append(s.logRevs, s.rev)
	s.logKeys = append(s.logKeys, key)
	close(s.changed)
	s.changed = make(chan struct{})
	return obj.DeepCopyObject(), nil
}

// Create implements storage.Interface.
func (s *MemoryStorage) Create(_ context.Context, key string, obj runtime.Object) (runtime.Object, error) {
	m, err := meta(obj)
	if err != nil {
		return nil, storage.NewError(storage.ErrCodeInvalidObj, key, 0, err.Error())
	}
	if m.ResourceVersion != "" {
		return nil, storage.NewError(storage.ErrCodeInvalidObj, key, 0, "resourceVersion should not be set on objects to be created")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.objects[key]; ok {
		return nil, storage.NewError(storage.ErrCodeKeyExists, key, 0, "")
	}
	return s.record(key, watch.Added, obj.DeepCopyObject())
}

// Get implements storage.Interface.
func (s *MemoryStorage) Get(_ context.Context, key string, opts storage.GetOptions) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	obj, ok := s.objects[key]
	if !ok {
		return nil, storage.NewError(storage.ErrCodeKeyNotFound, key, 0, "")
	}
	return obj.DeepCopyObject(), nil
}

// GetList implements storage.Interface.
func (s *MemoryStorage) GetList(_ context.Context, key string, opts storage.ListOptions) (*storage.List, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []string
	for k := range s.objects {
		if inScope(k, key, opts.Recursive) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := &storage.List{ResourceVersion: uint64(s.rev)}
	for _, k := range keys {
		ok, err := opts.Predicate.Matches(s.objects[k])
		if err != nil {
			return nil, storage.NewError(storage.ErrCodeInvalidObj, k, 0, err.Error())
		}
		if ok {
			out.Items = append(out.Items, s.objects[k].DeepCopyObject())
		}
	}
	return out, nil
}

// GuaranteedUpdate implements storage.Interface.
func (s *MemoryStorage) GuaranteedUpdate(_ context.Context, key string, preconditions *storage.Preconditions, ignoreNotFound bool, tryUpdate storage.UpdateFunc, _ runtime.Object) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	current, ok := s.objects[key]
	if !ok && !ignoreNotFound {
		return nil, storage.NewError(storage.ErrCodeKeyNotFound, key, 0, "")
	}
	var in runtime.Object
	if ok {
		in = current.DeepCopyObject()
	}
	if err := preconditions.Check(key, in); err != nil {
		return nil, err
	}
	updated, err := tryUpdate(in)
	if err != nil {
		return nil, err
	}
	if !ok {
		m, err := meta(updated)
		if err != nil {
			return nil, storage.NewError(storage.ErrCodeInvalidObj, key, 0, err.Error())
		}
		m.ResourceVersion = ""
		return s.record(key, watch.Added, updated)
	}
	if reflect.DeepEqual(updated, current) {
		// An unchanged object is not written.
		return current.DeepCopyObject(), nil
	}
	return s.record(key, watch.Modified, updated)
}

// Delete implements storage.Interface.
func (s *MemoryStorage) Delete(ctx context.Context, key string, preconditions *storage.Preconditions, validate storage.ValidateObjectFunc, _ runtime.Object) (runtime.Object, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	current, ok := s.objects[key]
	if !ok {
		return nil, storage.NewError(storage.ErrCodeKeyNotFound, key, 0, "")
	}
	if err := preconditions.Check(key, current); err != nil {
		return nil, err
	}
	if validate != nil {
		if err := validate(ctx, current.DeepCopyObject()); err != nil {
			return nil, err
		}
	}
	return s.record(key, watch.Deleted, current.DeepCopyObject())
}

// CurrentResourceVersion implements storage.Interface.
func (s *MemoryStorage) CurrentResourceVersion(context.Context) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return uint64(s.rev), nil
}

// Len returns the number of stored objects.
func (s *MemoryStorage) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.objects)
}

// Watch implements storage.Interface: "" and "0" start with the current
// objects as ADDED events; "N" replays the changes after revision N.
func (s *MemoryStorage) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	s.mu.Lock()
	var initial []watch.Event
	var next int
	switch opts.ResourceVersion {
	case "", "0":
		keys := make([]string, 0, len(s.objects))
		for k := range s.objects {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if inScope(k, key, opts.Recursive) {
				initial = append(initial, watch.Event{Type: watch.Added, Object: s.objects[k].DeepCopyObject()})
			}
		}
		next = len(s.log)
	default:
		rv, err := strconv.ParseInt(opts.ResourceVersion, 10, 64)
		if err != nil {
			s.mu.Unlock()
			return nil, storage.NewError(storage.ErrCodeInvalidObj, key, 0, fmt.Sprintf("invalid resource version %q", opts.ResourceVersion))
		}
		next = sort.Search(len(s.logRevs), func(i int) bool { return s.logRevs[i] > rv })
	}
	s.mu.Unlock()

	ctx, cancel := context.WithCancel(ctx)
	w := &memWatcher{result: make(chan watch.Event), cancel: cancel}
	go s.serve(ctx, w, key, opts, initial, next)
	return w, nil
}

func (s *MemoryStorage) serve(ctx context.Context, w *memWatcher, key string, opts storage.ListOptions, initial []watch.Event, next int) {
	defer close(w.result)
	send := func(ev watch.Event) bool {
		if ok, _ := opts.Predicate.Matches(ev.Object); !ok {
			return true
		}
		select {
		case w.result <- ev:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for _, ev := range initial {
		if !send(ev) {
			return
		}
	}
	for {
		s.mu.Lock()
		var batch []watch.Event
		for i := next; i < len(s.log); i++ {
			if inScope(s.logKeys[i], key, opts.Recursive) {
				batch = append(batch, watch.Event{Type: s.log[i].Type, Object: s.log[i].Object.DeepCopyObject()})
			}
		}
		next = len(s.log)
		changed := s.changed
		s.mu.Unlock()
		for _, ev := range batch {
			if !send(ev) {
				return
			}
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}

// inScope reports whether k is key itself or, recursively, under it.
func inScope(k, key string, recursive bool) bool {
	if !recursive {
		return k == key
	}
	return strings.HasPrefix(k, strings.TrimSuffix(key, "/")+"/")
}

type memWatcher struct {
	result chan watch.Event
	cancel context.CancelFunc
}

func (w *memWatcher) Stop()                          { w.cancel() }
func (w *memWatcher) ResultChan() <-chan watch.Event { return w.result }
