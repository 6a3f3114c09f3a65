package cache

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// InformerOptions configure an Informer; the zero value is usable.
type InformerOptions struct {
	// ResyncPeriod, when positive, replays every cached object to every
	// handler as an update (old == new) that often.
	ResyncPeriod time.Duration
	// Resource names the objects in the Lister's NotFound errors.
	Resource schema.GroupResource
	// Reflector tunes listing, watching and back-off.
	Reflector ReflectorOptions
}

// Informer is a shared informer: one Reflector feeding one Indexer, and
// any number of event handlers, each with its own unbounded buffer and
// goroutine. Every handler sees the changes of an object in the order the
// cache applied them. A handler added after the start is first given the
// cache's contents as adds.
type Informer[T Object] struct {
	indexer   *Indexer[T]
	reflector *Reflector[T]
	opts      InformerOptions
	synced    atomic.Bool

	mu        sync.Mutex // serialises cache changes with handler fan-out
	listeners []*listener[T]
	runCtx    context.Context
	started   bool
	stopped   bool
	wg        sync.WaitGroup
}

// NewInformer returns an Informer of the objects lw lists and watches.
func NewInformer[T Object](lw ListerWatcher, opts InformerOptions) *Informer[T] {
	inf := &Informer[T]{indexer: NewIndexer[T](), opts: opts}
	inf.reflector = NewReflector[T](lw, informerStore[T]{inf}, opts.Reflector)
	return inf
}

// GetIndexer returns the cache. Only the Informer writes to it.
func (inf *Informer[T]) GetIndexer() *Indexer[T] { return inf.indexer }

// Lister returns a Lister over the cache.
func (inf *Informer[T]) Lister() Lister[T] { return NewLister(inf.indexer, inf.opts.Resource) }

// AddIndexers adds indexes to the cache.
func (inf *Informer[T]) AddIndexers(indexers map[string]IndexFunc[T]) error {
	return inf.indexer.AddIndexers(indexers)
}

// HasSynced reports whether the first list is in the cache.
func (inf *Informer[T]) HasSynced() bool { return inf.synced.Load() }

// LastSyncResourceVersion returns the resourceVersion the cache is at.
func (inf *Informer[T]) LastSyncResourceVersion() string {
	return inf.reflector.LastSyncResourceVersion()
}

// Lists returns how many complete LISTs the Informer has applied: 1 until
// a resourceVersion expires.
func (inf *Informer[T]) Lists() int { return inf.reflector.Lists() }

// ErrStopped is returned when adding a handler to a stopped Informer.
var ErrStopped = errors.New("informer is stopped")

// AddEventHandler adds a handler. If the cache is synced the handler is
// first given every cached object as an add with isInInitialList true.
func (inf *Informer[T]) AddEventHandler(h ResourceEventHandler[T]) (*Registration[T], error) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if inf.stopped {
		return nil, ErrStopped
	}
	l := newListener(h)
	if inf.synced.Load() {
		for _, obj := range inf.indexer.List() {
			l.push(notification[T]{kind: notifyAdd, obj: obj, initial: true})
		}
		l.markSynced()
	}
	inf.listeners = append(inf.listeners, l)
	if inf.started {
		inf.startListener(l)
	}
	return &Registration[T]{l: l}, nil
}

// RemoveEventHandler stops delivering to a handler; notifications it has
// not yet been given are dropped.
func (inf *Informer[T]) RemoveEventHandler(reg *Registration[T]) {
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if i := slices.Index(inf.listeners, reg.l); i >= 0 {
		inf.listeners = slices.Delete(inf.listeners, i, i+1)
	}
	reg.l.close()
}

// Run lists, watches and delivers to the handlers until ctx is done, then
// waits for the handler goroutines to return. An Informer runs once.
func (inf *Informer[T]) Run(ctx context.Context) {
	inf.mu.Lock()
	if inf.started || inf.stopped {
		inf.mu.Unlock()
		return
	}
	inf.started, inf.runCtx = true, ctx
	for _, l := range inf.listeners {
		inf.startListener(l)
	}
	inf.mu.Unlock()

	if inf.opts.ResyncPeriod > 0 {
		inf.wg.Add(1)
		go func() {
			defer inf.wg.Done()
			inf.resyncLoop(ctx)
		}()
	}
	inf.reflector.Run(ctx)

	inf.mu.Lock()
	inf.stopped = true
	inf.mu.Unlock()
	inf.wg.Wait()
}

// startListener runs l's goroutine; inf.mu is held.
func (inf *Informer[T]) startListener(l *listener[T]) {
	inf.wg.Add(1)
	go func() {
		defer inf.wg.Done()
		l.run(inf.runCtx)
	}()
}

func (inf *Informer[T]) resyncLoop(ctx context.Context) {
	t := time.NewTicker(inf.opts.ResyncPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		inf.mu.Lock()
		if inf.synced.Load() {
			for _, obj := range inf.indexer.List() {
				inf.notify(notification[T]{kind: notifyUpdate, old: obj, obj: obj})
			}
		}
		inf.mu.Unlock()
	}
}

// notify fans n out to every handler; inf.mu is held.
func (inf *Informer[T]) notify(n notification[T]) {
	for _, l := range inf.listeners {
		l.push(n)
	}
}

// informerStore is the Reflector's view of an Informer: each change is
// applied to the cache and handed to the handlers under one lock. A change
// that repeats what the cache holds (same key and resourceVersion, as
// after resuming a watch) is dropped, so no handler sees an add twice.
type informerStore[T Object] struct{ inf *Informer[T] }

var _ ReflectorStore[Object] = informerStore[Object]{}

func (s informerStore[T]) Add(obj T) error    { return s.upsert(obj) }
func (s informerStore[T]) Update(obj T) error { return s.upsert(obj) }

func (s informerStore[T]) upsert(obj T) error {
	inf := s.inf
	inf.mu.Lock()
	defer inf.mu.Unlock()
	old, existed := inf.indexer.GetByKey(objectKey(obj))
	if existed && old.GetResourceVersion() == obj.GetResourceVersion() {
		return nil
	}
	if err := inf.indexer.Update(obj); err != nil {
		return err
	}
	if existed {
		inf.notify(notification[T]{kind: notifyUpdate, old: old, obj: obj})
	} else {
		inf.notify(notification[T]{kind: notifyAdd, obj: obj})
	}
	return nil
}

func (s informerStore[T]) Delete(obj T) error {
	inf := s.inf
	inf.mu.Lock()
	defer inf.mu.Unlock()
	if _, existed := inf.indexer.GetByKey(objectKey(obj)); !existed {
		return nil
	}
	if err := inf.indexer.Delete(obj); err != nil {
		return err
	}
	inf.notify(notification[T]{kind: notifyDelete, obj: obj})
	return nil
}

// Replace applies a full list: adds for new objects, updates for changed
// ones, and deletes, with the last cached state, for objects that are gone.
func (s informerStore[T]) Replace(items []T, resourceVersion string) error {
	inf := s.inf
	inf.mu.Lock()
	defer inf.mu.Unlock()
	initial := !inf.synced.Load()
	seen := make(map[string]struct{}, len(items))
	var changes []notification[T]
	for _, obj := range items {
		key := objectKey(obj)
		seen[key] = struct{}{}
		old, existed := inf.indexer.GetByKey(key)
		switch {
		case !existed:
			changes = append(changes, notification[T]{kind: notifyAdd, obj: obj, initial: initial})
		case old.GetResourceVersion() != obj.GetResourceVersion():
			changes = append(changes, notification[T]{kind: notifyUpdate, old: old, obj: obj})
		}
	}
	for _, old := range inf.indexer.List() {
		if _, ok := seen[objectKey(old)]; !ok {
			changes = append(changes, notification[T]{kind: notifyDelete, obj: old})
		}
	}
	if err := inf.indexer.Replace(items, resourceVersion); err != nil {
		return err
	}
	for _, n := range changes {
		inf.notify(n)
	}
	if initial {
		for _, l := range inf.listeners {
			l.markSynced()
		}
		inf.synced.Store(true)
	}
	return nil
}

// InformerSynced reports whether an informer or handler has synced.
type InformerSynced func() bool

// WaitForCacheSync waits until every cacheSynced reports true, and returns
// true, or until ctx is done, and returns false.
func WaitForCacheSync(ctx context.Context, cacheSynced ...InformerSynced) bool {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for {
		all := true
		for _, synced := range cacheSynced {
			if !synced() {
				all = false
				break
			}
		}
		if all {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
}
