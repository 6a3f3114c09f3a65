package cacher

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/storage"
)

// watchList serves a watch with sendInitialEvents set, a streaming list
// (resourceVersionMatch NotOlderThan, which the apiserver checked). The
// watch starts at a revision of the cache not older than the request's:
// etcd's current one for "" (a consistent start), any for "0", N or later
// for "N". With sendInitialEvents=true the objects at that revision come
// first as ADDED events, then, for a watcher of bookmarks, a BOOKMARK at
// that revision annotated k8s.io/initial-events-end; changes follow. With
// false, "N" starts right after N, as a plain watch does, and "" and "0"
// start at the cache's revision with no initial events.
func (c *Cacher) watchList(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	initial := *opts.SendInitialEvents
	opts.SendInitialEvents = nil
	if !initial && opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
		return c.Watch(ctx, key, opts)
	}
	rv, err := parseRV(key, opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	var nudge func(context.Context) error
	if opts.ResourceVersion == "" {
		// A consistent start: etcd answers now, and is asked for a
		// progress notification while the cache catches up.
		if rv, err = c.cfg.Storage.CurrentResourceVersion(ctx); err != nil {
			return nil, err
		}
		nudge = c.cfg.RequestProgress
	}
	if err := c.waitForRV(ctx, key, rv, nudge); err != nil {
		if errors.Is(err, errNotReady) {
			return c.watchListFromStorage(ctx, key, opts, initial)
		}
		return nil, err
	}
	key = strings.TrimSuffix(key, "/")
	w := c.newWatcher(key, opts)
	c.mu.Lock()
	if !c.ready {
		c.mu.Unlock()
		return c.watchListFromStorage(ctx, key, opts, initial)
	}
	var entries []*entry
	if initial {
		entries = c.snapshotLocked(key, opts.Recursive, opts.Predicate)
		w.initialEnd = opts.ProgressNotify
	}
	w.lastRV = c.rv
	c.registerLocked(w)
	c.mu.Unlock()
	go w.run(ctx, entries, nil)
	return w, nil
}

// watchListFromStorage serves a streaming list while the cache relists:
// the underlying storage lists the current state (which is not older than
// any revision a client can have seen) and watches from its revision.
func (c *Cacher) watchListFromStorage(ctx context.Context, key string, opts storage.ListOptions, initial bool) (watch.Interface, error) {
	rv, err := parseRV(key, opts.ResourceVersion)
	if err != nil {
		return nil, err
	}
	if !initial {
		current, err := c.cfg.Storage.CurrentResourceVersion(ctx)
		if err != nil {
			return nil, err
		}
		opts.ResourceVersion = strconv.FormatUint(max(current, rv), 10)
		return c.cfg.Storage.Watch(ctx, key, opts)
	}
	pred := opts.Predicate
	pred.Limit, pred.Continue = 0, ""
	list, err := c.cfg.Storage.GetList(ctx, key, storage.ListOptions{Predicate: pred, Recursive: opts.Recursive})
	if err != nil {
		return nil, err
	}
	if list.ResourceVersion < rv {
		return nil, storage.NewError(storage.ErrCodeTooLargeResourceVersion, key, int64(rv),
			"Too large resource version: "+opts.ResourceVersion+", current: "+strconv.FormatUint(list.ResourceVersion, 10))
	}
	opts.ResourceVersion = strconv.FormatUint(list.ResourceVersion, 10)
	under, err := c.cfg.Storage.Watch(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	w := &prefixedWatcher{under: under, result: make(chan watch.Event), done: make(chan struct{})}
	events := make([]watch.Event, 0, len(list.Items)+1)
	for _, it := range list.Items {
		events = append(events, watch.Event{Type: watch.Added, Object: it})
	}
	if opts.ProgressNotify {
		bm, err := initialEventsEnd(c.cfg.NewFunc, list.ResourceVersion)
		if err != nil {
			under.Stop()
			return nil, apierrors.NewInternalError(err)
		}
		events = append(events, watch.Event{Type: watch.Bookmark, Object: bm})
	}
	go w.run(ctx, events)
	return w, nil
}

// prefixedWatcher sends its initial events, then those of the
// underlying watch.
type prefixedWatcher struct {
	under  watch.Interface
	result chan watch.Event
	done   chan struct{}
	once   sync.Once
}

var _ watch.Interface = (*prefixedWatcher)(nil)

// ResultChan implements watch.Interface.
func (w *prefixedWatcher) ResultChan() <-chan watch.Event { return w.result }

// Stop implements watch.Interface.
func (w *prefixedWatcher) Stop() {
	w.once.Do(func() {
		close(w.done)
		w.under.Stop()
	})
}

func (w *prefixedWatcher) run(ctx context.Context, initial []watch.Event) {
	defer close(w.result)
	defer w.Stop()
	send := func(ev watch.Event) bool {
		select {
		case w.result <- ev:
			return true
		case <-w.done:
		case <-ctx.Done():
		}
		return false
	}
	for _, ev := range initial {
		if !send(ev) {
			return
		}
	}
	for ev := range w.under.ResultChan() {
		if !send(ev) {
			return
		}
	}
}

// bookmarkObject is a BOOKMARK event's object: an empty object of the
// resource carrying only the revision. The apiserver sends it as an empty
// object of the kind it serves, keeping the revision and annotations.
func bookmarkObject(newFunc func() runtime.Object, rv uint64) (runtime.Object, error) {
	obj := newFunc()
	m, err := accessor(obj)
	if err != nil {
		return nil, err
	}
	m.SetResourceVersion(strconv.FormatUint(rv, 10))
	return obj, nil
}

// initialEventsEnd is the BOOKMARK that ends a streaming list's initial
// events.
func initialEventsEnd(newFunc func() runtime.Object, rv uint64) (runtime.Object, error) {
	obj, err := bookmarkObject(newFunc, rv)
	if err != nil {
		return nil, err
	}
	m, _ := accessor(obj)
	m.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
	return obj, nil
}
