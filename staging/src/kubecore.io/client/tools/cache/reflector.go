package cache

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/watch"
)

// ReflectorStore is what a Reflector keeps in step with the server: an
// *Indexer, or the Informer's event processor.
type ReflectorStore[T Object] interface {
	Add(obj T) error
	Update(obj T) error
	Delete(obj T) error
	// Replace makes items, the result of a LIST at resourceVersion, the
	// whole content.
	Replace(items []T, resourceVersion string) error
}

// ReflectorOptions tune a Reflector; the zero value gives the defaults.
type ReflectorOptions struct {
	// PageSize is the limit of each LIST page; 0 means 500, negative means
	// no paging.
	PageSize int64
	// InitialBackoff and MaxBackoff bound the jittered exponential back-off
	// after an error (default 800ms and 30s).
	InitialBackoff, MaxBackoff time.Duration
	// MinWatchTimeout is the shortest timeoutSeconds asked of a WATCH; each
	// WATCH asks for a random duration in [MinWatchTimeout, 2*MinWatchTimeout)
	// (default 5 minutes).
	MinWatchTimeout time.Duration
	// OnError, if set, is told of every error the Reflector recovers from.
	OnError func(error)
}

func (o ReflectorOptions) withDefaults() ReflectorOptions {
	if o.PageSize == 0 {
		o.PageSize = 500
	}
	if o.InitialBackoff <= 0 {
		o.InitialBackoff = 800 * time.Millisecond
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = 30 * time.Second
	}
	if o.MaxBackoff < o.InitialBackoff {
		o.MaxBackoff = o.InitialBackoff
	}
	if o.MinWatchTimeout <= 0 {
		o.MinWatchTimeout = 5 * time.Minute
	}
	if o.OnError == nil {
		o.OnError = func(error) {}
	}
	return o
}

// Reflector keeps a ReflectorStore equal to the server's objects: it LISTs
// (resourceVersion=0, paginated), then WATCHes from the list's
// resourceVersion with bookmarks. When a watch ends or fails it watches
// again from the last resourceVersion it saw, without listing; only when
// that resourceVersion is too old (410 Gone or Expired) does it list again,
// then consistently (resourceVersion unset), and Replace the store.
type Reflector[T Object] struct {
	lw    ListerWatcher
	store ReflectorStore[T]
	opts  ReflectorOptions

	mu     sync.Mutex
	lastRV string
	lists  int
}

// NewReflector returns a Reflector that feeds store from lw.
func NewReflector[T Object](lw ListerWatcher, store ReflectorStore[T], opts ReflectorOptions) *Reflector[T] {
	return &Reflector[T]{lw: lw, store: store, opts: opts.withDefaults()}
}

// LastSyncResourceVersion returns the resourceVersion of the last list,
// event or bookmark applied.
func (r *Reflector[T]) LastSyncResourceVersion() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastRV
}

// Lists returns how many complete LISTs the Reflector has applied.
func (r *Reflector[T]) Lists() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lists
}

func (r *Reflector[T]) setLastRV(rv string) {
	r.mu.Lock()
	r.lastRV = rv
	r.mu.Unlock()
}

// Run lists and watches until ctx is done.
func (r *Reflector[T]) Run(ctx context.Context) {
	b := backoff{initial: r.opts.InitialBackoff, max: r.opts.MaxBackoff}
	needList, consistent := true, false
	for ctx.Err() == nil {
		if needList {
			if err := r.list(ctx, consistent); err != nil {
				if ctx.Err() != nil {
					return
				}
				r.opts.OnError(err)
				consistent = consistent || isExpired(err)
				sleep(ctx, b.next())
				continue
			}
			needList = false
		}
		events, err := r.watch(ctx)
		switch {
		case ctx.Err() != nil:
			return
		case isExpired(err):
			// The resourceVersion we hold is gone: list again at once.
			r.opts.OnError(err)
			needList, consistent = true, true
		case err != nil:
			r.opts.OnError(err)
			sleep(ctx, b.next())
		case events > 0:
			// A watch that delivered events ended (timeout, dropped
			// connection): resume at once.
			b.reset()
		default:
			// A watch that ended empty: resume, but do not spin.
			sleep(ctx, b.next())
		}
	}
}

func isExpired(err error) bool {
	return apierrors.IsResourceExpired(err) || apierrors.IsGone(err)
}

// list reads every page of a LIST and replaces the store with the result.
func (r *Reflector[T]) list(ctx context.Context, consistent bool) error {
	opts := metav1.ListOptions{ResourceVersion: "0"}
	if consistent {
		opts.ResourceVersion = ""
	}
	if r.opts.PageSize > 0 {
		opts.Limit = r.opts.PageSize
	}
	var items []T
	for {
		obj, err := r.lw.List(ctx, opts)
		if err != nil {
			return fmt.Errorf("list (resourceVersion %q, continue %q): %w", opts.ResourceVersion, opts.Continue, err)
		}
		page, err := extractList[T](obj)
		if err != nil {
			return err
		}
		if items == nil {
			items = page.items
		} else {
			items = append(items, page.items...)
		}
		if page.continueToken == "" {
			if page.resourceVersion == "" {
				return errors.New("list: the server returned no resourceVersion")
			}
			if err := r.store.Replace(items, page.resourceVersion); err != nil {
				return fmt.Errorf("replace the store with a list at resourceVersion %s: %w", page.resourceVersion, err)
			}
			r.mu.Lock()
			r.lastRV = page.resourceVersion
			r.lists++
			r.mu.Unlock()
			return nil
		}
		// A continued page is served at the first page's resourceVersion.
		opts.Continue, opts.ResourceVersion = page.continueToken, ""
	}
}

// watch runs one WATCH from the last resourceVersion and applies its
// events. It returns how many events it applied and why it ended: nil when
// the server closed the stream.
func (r *Reflector[T]) watch(ctx context.Context) (int, error) {
	minTimeout := r.opts.MinWatchTimeout
	timeout := int64((minTimeout + rand.N(minTimeout)).Seconds())
	opts := metav1.ListOptions{
		ResourceVersion:     r.LastSyncResourceVersion(),
		AllowWatchBookmarks: true,
		TimeoutSeconds:      &timeout,
	}
	w, err := r.lw.Watch(ctx, opts)
	if err != nil {
		return 0, fmt.Errorf("watch from resourceVersion %s: %w", opts.ResourceVersion, err)
	}
	defer w.Stop()
	n := 0
	for {
		var ev watch.Event
		var ok bool
		select {
		case <-ctx.Done():
			return n, ctx.Err()
		case ev, ok = <-w.ResultChan():
		}
		if !ok {
			return n, nil
		}
		if err := r.apply(ev); err != nil {
			return n, fmt.Errorf("watch from resourceVersion %s: %w", opts.ResourceVersion, err)
		}
		n++
	}
}

// apply applies one watch event and records its resourceVersion.
func (r *Reflector[T]) apply(ev watch.Event) error {
	switch ev.Type {
	case watch.Error:
		return apierrors.FromObject(ev.Object)
	case watch.Bookmark:
		m, ok := ev.Object.(metav1.Object)
		if !ok {
			return fmt.Errorf("bookmark carries a %T, want an object with metadata", ev.Object)
		}
		r.setLastRV(m.GetResourceVersion())
		return nil
	case watch.Added, watch.Modified, watch.Deleted:
	default:
		return fmt.Errorf("unknown watch event type %q", ev.Type)
	}
	obj, ok := ev.Object.(T)
	if !ok {
		return fmt.Errorf("%s event carries a %T, want %T", ev.Type, ev.Object, obj)
	}
	var err error
	switch ev.Type {
	case watch.Added:
		err = r.store.Add(obj)
	case watch.Modified:
		err = r.store.Update(obj)
	default:
		err = r.store.Delete(obj)
	}
	if err != nil {
		return fmt.Errorf("%s %s at resourceVersion %s: %w", ev.Type, objectKey(obj), obj.GetResourceVersion(), err)
	}
	r.setLastRV(obj.GetResourceVersion())
	return nil
}

// backoff is a jittered exponential back-off: each step doubles up to max
// and waits a random duration in [d/2, d).
type backoff struct {
	initial, max, cur time.Duration
}

func (b *backoff) next() time.Duration {
	if b.cur == 0 {
		b.cur = b.initial
	} else {
		b.cur = min(2*b.cur, b.max)
	}
	half := b.cur / 2
	return half + rand.N(b.cur-half+1)
}

func (b *backoff) reset() { b.cur = 0 }

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
