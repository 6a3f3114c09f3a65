package cacher

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/storage"
)

// watcher is one watch served from the cache. The dispatcher queues events
// for it without ever blocking; a watcher that falls more than
// Config.WatcherBuffer events behind is cut off. Its goroutine filters the
// queued events with its predicate and writes result.
type watcher struct {
	c         *Cacher
	key       string // watched key, or prefix when recursive (no trailing slash)
	recursive bool
	pred      storage.SelectionPredicate
	progress  bool
	field     string // the indexed field it is registered under, if any
	value     string
	removed   bool // unregistered; guarded by c.mu

	qmu    sync.Mutex
	queue  []*event      // dispatched, not yet taken; guarded by qmu
	closed bool          // no event comes after the queue; guarded by qmu
	wake   chan struct{} // signalled (capacity 1) when queue or closed change

	result chan watch.Event
	done   chan struct{}
	once   sync.Once

	lastRV uint64 // the revision of the last event or bookmark sent
	// sentAtLast: lastRV is that of an event sent, and more events of
	// that revision may follow (an expired lease deletes all its keys in
	// one revision); otherwise lastRV is the start or a bookmark, and
	// events at it are already accounted for.
	sentAtLast bool
	// initialEnd: after the initial events, a BOOKMARK at lastRV annotated
	// k8s.io/initial-events-end (a streaming list's end).
	initialEnd bool
}

var _ watch.Interface = (*watcher)(nil)

// ResultChan implements watch.Interface.
func (w *watcher) ResultChan() <-chan watch.Event { return w.result }

// Stop implements watch.Interface; the result channel closes soon after.
func (w *watcher) Stop() {
	w.once.Do(func() {
		close(w.done)
		w.c.mu.Lock()
		w.c.removeLocked(w)
		w.c.mu.Unlock()
	})
}

// Watch implements storage.Interface: "" and "0" start with the current
// state as ADDED events; "N" replays the ring's events after N. A watch
// from before the ring goes to the underlying storage, which replays
// etcd's history or, once N is compacted, sends one ERROR event with a 410
// Expired Status: a client resuming after an apiserver restart (whose
// cache starts at its first list) loses no event.
func (c *Cacher) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	if opts.SendInitialEvents != nil {
		return c.watchList(ctx, key, opts)
	}
	rv, err := parseRV(key, opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	if rv > 0 {
		if err := c.waitForRV(ctx, key, rv, nil); err != nil {
			if err == errNotReady {
				return c.cfg.Storage.Watch(ctx, key, opts)
			}
			return nil, err
		}
	}
	key = strings.TrimSuffix(key, "/")
	w := c.newWatcher(key, opts)
	c.mu.Lock()
	if !c.ready {
		c.mu.Unlock()
		return c.cfg.Storage.Watch(ctx, key, opts)
	}
	var initial []*entry
	var replay []*event
	if rv == 0 {
		initial = c.snapshotLocked(key, opts.Recursive, opts.Predicate)
		w.lastRV = c.rv
	} else {
		var ok bool
		if replay, ok = c.eventsAfterLocked(rv); !ok {
			// Older than the ring (a client resuming after this server
			// started, or a slow one): etcd replays its history, or
			// answers 410 Expired once that is compacted.
			c.mu.Unlock()
			return c.cfg.Storage.Watch(ctx, key, opts)
		}
		w.lastRV = rv
	}
	c.registerLocked(w)
	c.mu.Unlock()
	go w.run(ctx, initial, replay)
	return w, nil
}

func (c *Cacher) newWatcher(key string, opts storage.ListOptions) *watcher {
	return &watcher{
		c: c, key: key, recursive: opts.Recursive, pred: opts.Predicate, progress: opts.ProgressNotify,
		wake:   make(chan struct{}, 1),
		result: make(chan watch.Event),
		done:   make(chan struct{}),
	}
}

// registerLocked files w where the dispatcher finds it: under an indexed
// field its selector pins, else under its key.
func (c *Cacher) registerLocked(w *watcher) {
	c.watchers[w] = struct{}{}
	if w.pred.Field != nil {
		for _, f := range c.cfg.IndexFields {
			if v, ok := w.pred.Field.RequiresExactMatch(f); ok {
				w.field, w.value = f, v
				addTo(c.byField[f], v, w)
				return
			}
		}
	}
	if w.recursive {
		addTo(c.recursive, w.key, w)
	} else {
		addTo(c.exact, w.key, w)
	}
}

func addTo(m map[string]map[*watcher]struct{}, k string, w *watcher) {
	set := m[k]
	if set == nil {
		set = map[*watcher]struct{}{}
		m[k] = set
	}
	set[w] = struct{}{}
}

func removeFrom(m map[string]map[*watcher]struct{}, k string, w *watcher) {
	if set := m[k]; set != nil {
		delete(set, w)
		if len(set) == 0 {
			delete(m, k)
		}
	}
}

// removeLocked unregisters w and closes its queue: the watcher delivers
// what it holds, then closes its result channel.
func (c *Cacher) removeLocked(w *watcher) {
	if w.removed {
		return
	}
	w.removed = true
	w.close()
	delete(c.watchers, w)
	switch {
	case w.field != "":
		removeFrom(c.byField[w.field], w.value, w)
	case w.recursive:
		removeFrom(c.recursive, w.key, w)
	default:
		removeFrom(c.exact, w.key, w)
	}
}

func (c *Cacher) closeAllWatchersLocked() {
	for w := range c.watchers {
		c.removeLocked(w)
	}
}

// dispatchLocked hands e to the watchers that can want it: those of the
// key's parent prefixes, of the key itself, and of the event's values of
// the indexed fields. It never blocks: a watcher with a full buffer is cut
// off.
func (c *Cacher) dispatchLocked(e *event) {
	key := e.key
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			c.sendAllLocked(c.recursive[key[:i]], e)
		}
	}
	c.sendAllLocked(c.exact[key], e)
	for f, byValue := range c.byField {
		if len(byValue) == 0 {
			continue
		}
		v := e.cur.fields.Get(f)
		c.sendAllLocked(byValue[v], e)
		if e.prev != nil {
			if pv := e.prev.fields.Get(f); pv != v {
				c.sendAllLocked(byValue[pv], e)
			}
		}
	}
}

func (c *Cacher) sendAllLocked(set map[*watcher]struct{}, e *event) {
	for w := range set {
		if !w.push(e, c.cfg.WatcherBuffer) {
			c.removeLocked(w)
		}
	}
}

// push queues e unless limit events already wait.
func (w *watcher) push(e *event, limit int) bool {
	w.qmu.Lock()
	ok := !w.closed && len(w.queue) < limit
	if ok {
		w.queue = append(w.queue, e)
	}
	w.qmu.Unlock()
	if ok {
		w.signal()
	}
	return ok
}

// close tells the watcher that nothing follows what it has queued.
func (w *watcher) close() {
	w.qmu.Lock()
	w.closed = true
	w.qmu.Unlock()
	w.signal()
}

func (w *watcher) signal() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// take returns the queued events, handing the queue spare (emptied) for
// the next ones, and whether the watcher is closed with nothing left.
func (w *watcher) take(spare []*event) ([]*event, bool) {
	w.qmu.Lock()
	defer w.qmu.Unlock()
	batch := w.queue
	w.queue = spare[:0]
	return batch, w.closed && len(batch) == 0
}

// bookmarks sends a bookmark to every watcher that asked for them each
// BookmarkInterval; a watcher whose buffer is full skips it.
func (c *Cacher) bookmarks(ctx context.Context) {
	t := time.NewTicker(c.cfg.BookmarkInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		c.mu.RLock()
		if c.ready {
			e := &event{typ: watch.Bookmark, rv: c.rv}
			for w := range c.watchers {
				if w.progress {
					w.push(e, c.cfg.WatcherBuffer)
				}
			}
		}
		c.mu.RUnlock()
	}
}

func (w *watcher) run(ctx context.Context, initial []*entry, replay []*event) {
	defer close(w.result)
	defer w.Stop()
	for _, e := range initial {
		if w.c.matches(w.pred, e) && !w.send(ctx, watch.Event{Type: watch.Added, Object: e.enc}) {
			return
		}
	}
	if w.initialEnd {
		bm, err := initialEventsEnd(w.c.cfg.NewFunc, w.lastRV)
		if err != nil {
			w.sendError(ctx, apierrors.NewInternalError(err))
			return
		}
		if !w.send(ctx, watch.Event{Type: watch.Bookmark, Object: bm}) {
			return
		}
	}
	for _, e := range replay {
		if !w.process(ctx, e) {
			return
		}
	}
	var batch []*event
	for {
		var closed bool
		if batch, closed = w.take(batch); closed {
			return
		}
		for i, e := range batch {
			if !w.process(ctx, e) {
				return
			}
			batch[i] = nil // the ring, not this buffer, keeps events
		}
		took := len(batch) > 0
		if cap(batch) > maxSpareQueue {
			batch = nil // a burst is over: do not keep its buffer
		}
		if took {
			continue // more may have come, or the end
		}
		select {
		case <-w.wake:
		case <-w.done:
			return
		case <-ctx.Done():
			return
		}
	}
}

// maxSpareQueue is the largest emptied queue a watcher keeps for reuse.
const maxSpareQueue = 1024

func (w *watcher) send(ctx context.Context, ev watch.Event) bool {
	select {
	case w.result <- ev:
		return true
	case <-w.done:
		return false
	case <-ctx.Done():
		return false
	}
}

// keyMatches reports whether key is the watched key or under its prefix.
func (w *watcher) keyMatches(key string) bool {
	if !w.recursive {
		return key == w.key
	}
	return len(key) > len(w.key) && key[len(w.key)] == '/' && strings.HasPrefix(key, w.key)
}

// process sends what e means for this watcher, with Kubernetes'
// transitions: an object that starts matching is ADDED, one that stops
// matching is DELETED (its previous state at the event's revision).
func (w *watcher) process(ctx context.Context, e *event) bool {
	if e.typ == watch.Bookmark {
		if !w.progress || e.rv <= w.lastRV {
			return true
		}
		obj, err := bookmarkObject(w.c.cfg.NewFunc, e.rv)
		if err != nil {
			return w.sendError(ctx, apierrors.NewInternalError(err))
		}
		w.lastRV, w.sentAtLast = e.rv, false
		return w.send(ctx, watch.Event{Type: watch.Bookmark, Object: obj})
	}
	if w.lastRV != 0 && (e.rv < w.lastRV || e.rv == w.lastRV && !w.sentAtLast) {
		return true
	}
	if !w.keyMatches(e.key) {
		return true
	}
	var out watch.Event
	switch {
	case e.typ == watch.Deleted:
		if !w.c.matches(w.pred, e.cur) {
			return true
		}
		out = watch.Event{Type: watch.Deleted, Object: e.cur.enc}
	case e.prev == nil:
		if !w.c.matches(w.pred, e.cur) {
			return true
		}
		out = watch.Event{Type: watch.Added, Object: e.cur.enc}
	default:
		curOK, prevOK := w.c.matches(w.pred, e.cur), w.c.matches(w.pred, e.prev)
		switch {
		case curOK && prevOK:
			out = watch.Event{Type: watch.Modified, Object: e.cur.enc}
		case curOK:
			out = watch.Event{Type: watch.Added, Object: e.cur.enc}
		case prevOK:
			prev, err := e.prevAtRV(w.c.cfg.Encode)
			if err != nil {
				return w.sendError(ctx, apierrors.NewInternalError(err))
			}
			out = watch.Event{Type: watch.Deleted, Object: prev}
		default:
			return true
		}
	}
	w.lastRV, w.sentAtLast = e.rv, true
	return w.send(ctx, out)
}

func (w *watcher) sendError(ctx context.Context, err *apierrors.StatusError) bool {
	st := err.Status()
	w.send(ctx, watch.Event{Type: watch.Error, Object: &st})
	return false
}

// prevAtRV returns the previous state stamped with the event's revision,
// computed once for every watcher that needs it.
func (e *event) prevAtRV(encode func(runtime.Object) ([]byte, error)) (*storage.EncodedObject, error) {
	e.prevOnce.Do(func() {
		obj := e.prev.obj.DeepCopyObject()
		m, err := accessor(obj)
		if err != nil {
			e.prevErr = err
			return
		}
		m.SetResourceVersion(fmt.Sprint(e.rv))
		e.prevEnc = storage.NewEncodedObject(obj, encode)
	})
	return e.prevEnc, e.prevErr
}
