package cacher

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/storage"
)

// Defaults of Config.
const (
	// DefaultEventRingSize keeps the last 1,000 events: at a few hundred
	// writes per second per resource that is a few seconds of history,
	// enough for a client to re-watch after a dropped connection without
	// a relist; older revisions get 410 Expired.
	DefaultEventRingSize = 1000
	// DefaultWatcherBuffer is how many events a watcher may lag behind the
	// cache before it is cut off: seconds of a burst of pod writes, so
	// that a client busy for a moment keeps its watch (a cut-off one
	// re-watches, from etcd once the ring has moved past it). A watcher's
	// queue holds pointers to the events the ring shares and grows only
	// while it lags.
	DefaultWatcherBuffer = 10000
	// DefaultWaitTimeout bounds how long a read waits for the cache to
	// reach a resourceVersion.
	DefaultWaitTimeout = 3 * time.Second
	// DefaultBookmarkInterval is how often watchers that asked for
	// bookmarks get one.
	DefaultBookmarkInterval = time.Second
)

// Config configures the watch cache of one resource.
type Config struct {
	// Storage is the decorated storage (etcd3). Required.
	Storage storage.Interface
	// ResourcePrefix is the key under which every object of the resource
	// lives ("/pods"). Required.
	ResourcePrefix string
	// NewFunc returns an empty object (for bookmarks and IgnoreNotFound).
	// Required.
	NewFunc func() runtime.Object
	// GetAttrs returns the labels and selectable fields of an object; it
	// must be the function the callers' predicates use, since the cache
	// computes each object's attributes once and matches predicates on
	// them. Required.
	GetAttrs storage.AttrFunc
	// IndexFields are selectable fields (of GetAttrs) that the cache
	// indexes, such as "spec.nodeName" for pods: a list or watch whose
	// field selector pins one of them visits only the matching objects.
	// Namespaces need no index: keys are sorted, so a namespace is a range.
	IndexFields []string
	// Encode returns an object's wire JSON, apiVersion and kind included;
	// each event is encoded at most once for all watchers. Required.
	Encode func(runtime.Object) ([]byte, error)
	// RequestProgress, when set, asks the underlying watch for a progress
	// notification (a bookmark), so that a consistent read on an idle
	// resource does not wait for the next periodic one.
	RequestProgress func(ctx context.Context) error
	// EventRingSize is the number of recent events kept for watches that
	// resume from a resourceVersion (DefaultEventRingSize when zero).
	EventRingSize int
	// WatcherBuffer is each watcher's event buffer (DefaultWatcherBuffer).
	WatcherBuffer int
	// WaitTimeout bounds waits for a resourceVersion (DefaultWaitTimeout).
	WaitTimeout time.Duration
	// BookmarkInterval is the bookmark period (DefaultBookmarkInterval).
	BookmarkInterval time.Duration
	// RelistBackoff is the pause before a failed list or watch of the
	// underlying storage is retried (1 s when zero).
	RelistBackoff time.Duration
}

// entry is one cached object with its attributes. Entries are immutable:
// an event replaces the entry of its key.
type entry struct {
	key    string
	rv     uint64
	obj    runtime.Object
	enc    *storage.EncodedObject
	labels labels.Set
	fields fieldValues
}

// event is one change, kept in the ring and shared by every watcher.
type event struct {
	typ  watch.EventType // Added, Modified, Deleted; Bookmark for ticks
	key  string
	rv   uint64
	cur  *entry // the new state; for Deleted, the last state at the deletion revision
	prev *entry // the state before, nil when the key was new

	prevOnce sync.Once
	prevEnc  *storage.EncodedObject // prev at rv, for a watcher it stops matching
	prevErr  error
}

// Cacher serves reads and watches of one resource from memory and writes
// through to the underlying storage. Objects it returns from GetList and in
// watch events are shared with other readers and must not be modified (the
// registry and the apiserver only read and encode them); Get returns a copy.
type Cacher struct {
	cfg     Config
	prefix  string // ResourcePrefix without a trailing slash
	names   fieldNames
	cancel  context.CancelFunc
	done    chan struct{}
	stopped sync.Once

	mu       sync.RWMutex
	ready    bool
	rv       uint64                                  // the revision the cache reflects
	rvCh     chan struct{}                           // closed and replaced when rv advances or readiness changes
	objects  map[string]*entry                       // by key
	sorted   []*entry                                // by key
	index    map[string]map[string]map[string]*entry // field -> value -> key -> entry
	ring     []*event
	ringHead int    // index of the oldest event
	ringLen  int    // events held
	ringFrom uint64 // a watch from N >= ringFrom can be served from the ring

	watchers  map[*watcher]struct{}
	recursive map[string]map[*watcher]struct{} // by watched prefix
	exact     map[string]map[*watcher]struct{} // by watched key
	byField   map[string]map[string]map[*watcher]struct{}
}

var _ storage.Interface = (*Cacher)(nil)

// New starts the cache: it lists and watches the underlying storage in the
// background; until the first list is in, reads and watches go to the
// underlying storage. Stop releases it.
func New(cfg Config) (*Cacher, error) {
	var errs []error
	if cfg.Storage == nil {
		errs = append(errs, errors.New("missing Storage"))
	}
	if strings.Trim(cfg.ResourcePrefix, "/") == "" {
		errs = append(errs, errors.New("missing ResourcePrefix"))
	}
	if cfg.NewFunc == nil {
		errs = append(errs, errors.New("missing NewFunc"))
	}
	if cfg.GetAttrs == nil {
		errs = append(errs, errors.New("missing GetAttrs"))
	}
	if cfg.Encode == nil {
		errs = append(errs, errors.New("missing Encode"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("cacher: %w", err)
	}
	if cfg.EventRingSize <= 0 {
		cfg.EventRingSize = DefaultEventRingSize
	}
	if cfg.WatcherBuffer <= 0 {
		cfg.WatcherBuffer = DefaultWatcherBuffer
	}
	if cfg.WaitTimeout <= 0 {
		cfg.WaitTimeout = DefaultWaitTimeout
	}
	if cfg.BookmarkInterval <= 0 {
		cfg.BookmarkInterval = DefaultBookmarkInterval
	}
	if cfg.RelistBackoff <= 0 {
		cfg.RelistBackoff = time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &Cacher{
		cfg:       cfg,
		prefix:    "/" + strings.Trim(cfg.ResourcePrefix, "/"),
		cancel:    cancel,
		done:      make(chan struct{}),
		rvCh:      make(chan struct{}),
		objects:   map[string]*entry{},
		index:     map[string]map[string]map[string]*entry{},
		ring:      make([]*event, cfg.EventRingSize),
		watchers:  map[*watcher]struct{}{},
		recursive: map[string]map[*watcher]struct{}{},
		exact:     map[string]map[*watcher]struct{}{},
		byField:   map[string]map[string]map[*watcher]struct{}{},
	}
	for _, f := range cfg.IndexFields {
		c.index[f] = map[string]map[string]*entry{}
		c.byField[f] = map[string]map[*watcher]struct{}{}
	}
	go c.run(ctx)
	go c.bookmarks(ctx)
	return c, nil
}

// Stop ends the underlying watch and closes every watcher. It is
// idempotent and returns once the cache's feeding goroutine has ended.
func (c *Cacher) Stop() {
	c.stopped.Do(func() {
		c.cancel()
		<-c.done
		c.mu.Lock()
		c.ready = false
		c.closeAllWatchersLocked()
		c.mu.Unlock()
	})
}

// Ready reports whether the cache serves from memory.
func (c *Cacher) Ready() bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.ready
}

// ResourceVersion returns the revision the cache reflects.
func (c *Cacher) ResourceVersion() uint64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.rv
}

// run lists and watches the underlying storage until ctx ends, relisting
// whenever the watch fails or expires.
func (c *Cacher) run(ctx context.Context) {
	defer close(c.done)
	for ctx.Err() == nil {
		if err := c.listAndWatch(ctx); err != nil && ctx.Err() == nil {
			select {
			case <-ctx.Done():
			case <-time.After(c.cfg.RelistBackoff):
			}
		}
	}
}

// listAndWatch loads the current state and follows the watch from its
// revision; it returns when the watch ends.
func (c *Cacher) listAndWatch(ctx context.Context) error {
	list, err := c.cfg.Storage.GetList(ctx, c.prefix, storage.ListOptions{Recursive: true})
	if err != nil {
		return fmt.Errorf("list %s: %w", c.prefix, err)
	}
	if err := c.replace(list.Items, list.ResourceVersion); err != nil {
		return err
	}
	w, err := c.cfg.Storage.Watch(ctx, c.prefix, storage.ListOptions{
		ResourceVersion: strconv.FormatUint(list.ResourceVersion, 10),
		Recursive:       true,
		ProgressNotify:  true,
	})
	if err != nil {
		c.setUnready()
		return fmt.Errorf("watch %s: %w", c.prefix, err)
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-w.ResultChan():
			if !ok {
				c.setUnready()
				return errors.New("the underlying watch ended")
			}
			if err := c.processEvent(ev); err != nil {
				c.setUnready()
				return err
			}
		}
	}
}

// setUnready sends reads to the underlying storage until the next list is
// in; watchers stay until the relist replaces the state.
func (c *Cacher) setUnready() {
	c.mu.Lock()
	c.ready = false
	c.notifyLocked()
	c.mu.Unlock()
}

func (c *Cacher) notifyLocked() {
	close(c.rvCh)
	c.rvCh = make(chan struct{})
}

// newEntry computes the attributes of obj at key.
func (c *Cacher) newEntry(key string, obj runtime.Object) (*entry, error) {
	rv, err := objectRV(obj)
	if err != nil {
		return nil, err
	}
	ls, fs, err := c.cfg.GetAttrs(obj)
	if err != nil {
		return nil, fmt.Errorf("attributes of %s: %w", key, err)
	}
	return &entry{key: key, rv: rv, obj: obj, enc: storage.NewEncodedObject(obj, c.cfg.Encode), labels: ls, fields: c.names.compact(fs)}, nil
}

// replace installs a freshly listed state. Every watcher is closed (its
// client resumes from its last revision, or gets 410 and relists) and the
// ring restarts at the list's revision.
func (c *Cacher) replace(items []runtime.Object, rv uint64) error {
	entries := make([]*entry, 0, len(items))
	for _, it := range items {
		it = storage.Unwrap(it)
		key, err := c.keyOf(it)
		if err != nil {
			return err
		}
		e, err := c.newEntry(key, it)
		if err != nil {
			return err
		}
		entries = append(entries, e)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].key < entries[j].key })
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closeAllWatchersLocked()
	c.objects = make(map[string]*entry, len(entries))
	c.sorted = entries
	for f := range c.index {
		c.index[f] = map[string]map[string]*entry{}
	}
	for _, e := range entries {
		c.objects[e.key] = e
		c.indexLocked(e, true)
	}
	clear(c.ring)
	c.ringHead, c.ringLen, c.ringFrom = 0, 0, rv
	c.rv = rv
	c.ready = true
	c.notifyLocked()
	return nil
}

// keyOf returns the key of an object listed under the prefix.
func (c *Cacher) keyOf(obj runtime.Object) (string, error) {
	m, err := accessor(obj)
	if err != nil {
		return "", err
	}
	if ns := m.GetNamespace(); ns != "" {
		return c.prefix + "/" + ns + "/" + m.GetName(), nil
	}
	return c.prefix + "/" + m.GetName(), nil
}

func (c *Cacher) indexLocked(e *entry, add bool) {
	for f, byValue := range c.index {
		v := e.fields.Get(f)
		if add {
			m := byValue[v]
			if m == nil {
				m = map[string]*entry{}
				byValue[v] = m
			}
			m[e.key] = e
			continue
		}
		if m := byValue[v]; m != nil {
			delete(m, e.key)
			if len(m) == 0 {
				delete(byValue, v)
			}
		}
	}
}

// processEvent applies one event of the underlying watch; an error means
// the watch must be restarted from a fresh list.
func (c *Cacher) processEvent(ev watch.Event) error {
	switch ev.Type {
	case watch.Error:
		if st, ok := ev.Object.(*metav1.Status); ok {
			return fmt.Errorf("the underlying watch failed: %s (%s)", st.Message, st.Reason)
		}
		return errors.New("the underlying watch failed")
	case watch.Bookmark:
		rv, err := objectRV(ev.Object)
		if err != nil {
			return err
		}
		c.mu.Lock()
		if rv > c.rv {
			c.rv = rv
			c.notifyLocked()
		}
		c.mu.Unlock()
		return nil
	case watch.Added, watch.Modified, watch.Deleted:
	default:
		return fmt.Errorf("unexpected event type %q", ev.Type)
	}
	obj := storage.Unwrap(ev.Object)
	key, err := c.keyOf(obj)
	if err != nil {
		return err
	}
	cur, err := c.newEntry(key, obj)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	prev := c.objects[key]
	e := &event{typ: ev.Type, key: key, rv: cur.rv, cur: cur, prev: prev}
	switch {
	case ev.Type == watch.Deleted:
		if prev == nil {
			// Nothing to delete: the state is already right.
			c.advanceLocked(cur.rv)
			return nil
		}
		c.indexLocked(prev, false)
		delete(c.objects, key)
		i := c.search(key)
		c.sorted = append(c.sorted[:i], c.sorted[i+1:]...)
	case prev == nil:
		e.typ = watch.Added
		c.objects[key] = cur
		c.indexLocked(cur, true)
		i := c.search(key)
		c.sorted = append(c.sorted, nil)
		copy(c.sorted[i+1:], c.sorted[i:])
		c.sorted[i] = cur
	default:
		e.typ = watch.Modified
		c.indexLocked(prev, false)
		c.objects[key] = cur
		c.indexLocked(cur, true)
		c.sorted[c.search(key)] = cur
	}
	c.pushLocked(e)
	c.advanceLocked(cur.rv)
	c.dispatchLocked(e)
	return nil
}

// search returns the position of key in sorted (where it would be).
func (c *Cacher) search(key string) int {
	return sort.Search(len(c.sorted), func(i int) bool { return c.sorted[i].key >= key })
}

func (c *Cacher) advanceLocked(rv uint64) {
	if rv > c.rv {
		c.rv = rv
	}
	c.notifyLocked()
}

// pushLocked appends e to the ring, evicting the oldest event when full.
func (c *Cacher) pushLocked(e *event) {
	n := len(c.ring)
	if c.ringLen == n {
		c.ringFrom = c.ring[c.ringHead].rv
		c.ring[c.ringHead] = nil
		c.ringHead = (c.ringHead + 1) % n
		c.ringLen--
	}
	c.ring[(c.ringHead+c.ringLen)%n] = e
	c.ringLen++
}

// eventsAfterLocked returns the ring's events after rv, or false when the
// ring no longer reaches back to rv.
func (c *Cacher) eventsAfterLocked(rv uint64) ([]*event, bool) {
	if rv < c.ringFrom {
		return nil, false
	}
	n := len(c.ring)
	first := sort.Search(c.ringLen, func(i int) bool { return c.ring[(c.ringHead+i)%n].rv > rv })
	out := make([]*event, 0, c.ringLen-first)
	for i := first; i < c.ringLen; i++ {
		out = append(out, c.ring[(c.ringHead+i)%n])
	}
	return out, true
}

func accessor(obj runtime.Object) (metav1.Object, error) {
	switch m := obj.(type) {
	case metav1.Object:
		return m, nil
	case metav1.ObjectMetaAccessor:
		return m.GetObjectMeta(), nil
	}
	return nil, fmt.Errorf("%T has no object metadata", obj)
}

func objectRV(obj runtime.Object) (uint64, error) {
	m, err := accessor(obj)
	if err != nil {
		return 0, err
	}
	rv, err := strconv.ParseUint(m.GetResourceVersion(), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("resourceVersion %q of %T: %w", m.GetResourceVersion(), obj, err)
	}
	return rv, nil
}
