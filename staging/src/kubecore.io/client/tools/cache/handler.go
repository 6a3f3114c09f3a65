package cache

import (
	"context"
	"sync"
	"sync/atomic"
)

// ResourceEventHandler is told of the changes an Informer sees, in order
// for every object. Objects are shared with the cache: do not change them.
type ResourceEventHandler[T Object] interface {
	// OnAdd is called for a new object; isInInitialList is true for the
	// objects of the first list and those a late handler is given on
	// registration.
	OnAdd(obj T, isInInitialList bool)
	// OnUpdate is called for a changed object, and with oldObj == newObj
	// on a resync.
	OnUpdate(oldObj, newObj T)
	// OnDelete is called with the last state of a deleted object: the one
	// the server sent, or, when the deletion was found by a relist, the
	// last one the cache held.
	OnDelete(obj T)
}

// ResourceEventHandlerFuncs is a ResourceEventHandler of optional funcs.
type ResourceEventHandlerFuncs[T Object] struct {
	AddFunc    func(obj T, isInInitialList bool)
	UpdateFunc func(oldObj, newObj T)
	DeleteFunc func(obj T)
}

var _ ResourceEventHandler[Object] = ResourceEventHandlerFuncs[Object]{}

// OnAdd calls AddFunc if set.
func (f ResourceEventHandlerFuncs[T]) OnAdd(obj T, isInInitialList bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj, isInInitialList)
	}
}

// OnUpdate calls UpdateFunc if set.
func (f ResourceEventHandlerFuncs[T]) OnUpdate(oldObj, newObj T) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete calls DeleteFunc if set.
func (f ResourceEventHandlerFuncs[T]) OnDelete(obj T) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj)
	}
}

type notificationKind uint8

const (
	notifyAdd notificationKind = iota
	notifyUpdate
	notifyDelete
)

type notification[T Object] struct {
	kind    notificationKind
	initial bool
	old     T
	obj     T
}

// listener buffers the notifications of one handler, without bound, and
// delivers them from its own goroutine, so that a slow handler delays only
// itself.
type listener[T Object] struct {
	handler ResourceEventHandler[T]
	wake    chan struct{}
	stop    chan struct{}
	stopped sync.Once

	mu       sync.Mutex
	buf      []notification[T]
	spare    []notification[T]
	enqueued uint64
	syncAt   uint64
	syncSet  bool

	processed atomic.Uint64
}

func newListener[T Object](h ResourceEventHandler[T]) *listener[T] {
	return &listener[T]{handler: h, wake: make(chan struct{}, 1), stop: make(chan struct{})}
}

func (l *listener[T]) push(n notification[T]) {
	l.mu.Lock()
	l.buf = append(l.buf, n)
	l.enqueued++
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// markSynced records that the handler is synced once it has processed
// everything pushed so far.
func (l *listener[T]) markSynced() {
	l.mu.Lock()
	l.syncAt, l.syncSet = l.enqueued, true
	l.mu.Unlock()
}

func (l *listener[T]) hasSynced() bool {
	l.mu.Lock()
	at, set := l.syncAt, l.syncSet
	l.mu.Unlock()
	return set && l.processed.Load() >= at
}

func (l *listener[T]) close() { l.stopped.Do(func() { close(l.stop) }) }

// run delivers notifications until ctx is done or the listener is closed.
func (l *listener[T]) run(ctx context.Context) {
	for {
		l.mu.Lock()
		batch := l.buf
		l.buf, l.spare = l.spare[:0], nil
		l.mu.Unlock()
		if len(batch) == 0 {
			select {
			case <-ctx.Done():
				return
			case <-l.stop:
				return
			case <-l.wake:
			}
			continue
		}
		for i := range batch {
			select {
			case <-ctx.Done():
				return
			case <-l.stop:
				return
			default:
			}
			l.dispatch(batch[i])
			batch[i] = notification[T]{}
			l.processed.Add(1)
		}
		l.mu.Lock()
		if cap(batch) <= 4096 {
			l.spare = batch[:0]
		}
		l.mu.Unlock()
	}
}

func (l *listener[T]) dispatch(n notification[T]) {
	switch n.kind {
	case notifyAdd:
		l.handler.OnAdd(n.obj, n.initial)
	case notifyUpdate:
		l.handler.OnUpdate(n.old, n.obj)
	case notifyDelete:
		l.handler.OnDelete(n.obj)
	}
}

// Registration is a handler added to an Informer.
type Registration[T Object] struct {
	l *listener[T]
}

// HasSynced reports whether the handler has been given every object of the
// Informer's first list (or, for a late handler, of the cache when it was
// added).
func (r *Registration[T]) HasSynced() bool { return r.l.hasSynced() }
