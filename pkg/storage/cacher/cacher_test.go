package cacher

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/fields"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/storage"
	"kubecore.io/kubecore/pkg/storage/etcd3"
)

func TestNewValidates(t *testing.T) {
	_, err := New(Config{})
	if err == nil {
		t.Fatal("New(Config{}) succeeded")
	}
	for _, want := range []string{"Storage", "ResourcePrefix", "NewFunc", "GetAttrs", "Encode"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

func TestServeFromCache(t *testing.T) {
	under := newEtcdStorage(t)
	mustCreate(t, under, newPod("a", "p1", "n1", map[string]string{"app": "web"}))
	mustCreate(t, under, newPod("a", "p2", "n2", map[string]string{"app": "db"}))
	c := newTestCacher(t, under, func(cfg *Config) { cfg.WaitTimeout = 200 * time.Millisecond })
	mustCreate(t, c, newPod("b", "p3", "n1", map[string]string{"app": "web"}))
	last := mustCreate(t, c, newPod("b", "p4", "", nil))
	ctx := ctxT(t)

	list := func(key string, opts storage.ListOptions) []string {
		t.Helper()
		opts.Recursive = true
		l, err := c.GetList(ctx, key, opts)
		if err != nil {
			t.Fatalf("list %s: %v", key, err)
		}
		return names(l.Items)
	}
	sel := func(l, f string) storage.SelectionPredicate {
		ls, err := labels.Parse(l)
		if err != nil {
			t.Fatal(err)
		}
		fs, err := fields.ParseSelector(f)
		if err != nil {
			t.Fatal(err)
		}
		return storage.SelectionPredicate{Label: ls, Field: fs, GetAttrs: podAttrs}
	}
	tests := []struct {
		name string
		key  string
		opts storage.ListOptions
		want []string
	}{
		{"consistent sees the last write", "/pods", storage.ListOptions{}, []string{"a/p1", "a/p2", "b/p3", "b/p4"}},
		{"rv 0", "/pods", storage.ListOptions{ResourceVersion: "0"}, []string{"a/p1", "a/p2", "b/p3", "b/p4"}},
		{"at least the last write", "/pods", storage.ListOptions{ResourceVersion: strconv.FormatUint(rvOf(t, last), 10)}, []string{"a/p1", "a/p2", "b/p3", "b/p4"}},
		{"namespace", "/pods/b", storage.ListOptions{ResourceVersion: "0"}, []string{"b/p3", "b/p4"}},
		{"label selector", "/pods", storage.ListOptions{Predicate: sel("app=web", "")}, []string{"a/p1", "b/p3"}},
		{"indexed field", "/pods", storage.ListOptions{Predicate: sel("", "spec.nodeName=n1")}, []string{"a/p1", "b/p3"}},
		{"indexed field and namespace", "/pods/a", storage.ListOptions{Predicate: sel("", "spec.nodeName=n1")}, []string{"a/p1"}},
		{"unscheduled", "/pods", storage.ListOptions{Predicate: sel("", "spec.nodeName=")}, []string{"b/p4"}},
		{"field and label", "/pods", storage.ListOptions{Predicate: sel("app=web", "metadata.namespace=b")}, []string{"b/p3"}},
		{"empty namespace", "/pods/zzz", storage.ListOptions{}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := list(tt.key, tt.opts); !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}

	t.Run("get", func(t *testing.T) {
		obj, err := c.Get(ctx, podKey("a", "p1"), storage.GetOptions{ResourceVersion: "0"})
		if err != nil {
			t.Fatal(err)
		}
		p := obj.(*corev1.Pod)
		p.Labels["mutated"] = "yes" // a copy: the cache must not see it
		again, _ := c.Get(ctx, podKey("a", "p1"), storage.GetOptions{ResourceVersion: "0"})
		if _, ok := again.(*corev1.Pod).Labels["mutated"]; ok {
			t.Error("Get returned the shared cached object")
		}
		if _, err := c.Get(ctx, podKey("a", "nope"), storage.GetOptions{ResourceVersion: "0"}); !storage.IsNotFound(err) {
			t.Errorf("missing key: %v, want NotFound", err)
		}
		if obj, err := c.Get(ctx, podKey("a", "nope"), storage.GetOptions{ResourceVersion: "0", IgnoreNotFound: true}); err != nil || obj == nil {
			t.Errorf("IgnoreNotFound: %v, %v", obj, err)
		}
	})

	t.Run("too large resource version", func(t *testing.T) {
		future := strconv.FormatUint(rvOf(t, last)+1000, 10)
		start := time.Now()
		_, err := c.GetList(ctx, "/pods", storage.ListOptions{ResourceVersion: future, Recursive: true})
		var se *storage.StorageError
		if !errors.As(err, &se) || se.Code != storage.ErrCodeTooLargeResourceVersion {
			t.Fatalf("err = %v, want TooLargeResourceVersion", err)
		}
		if d := time.Since(start); d < 150*time.Millisecond {
			t.Errorf("returned after %v, want a wait of about WaitTimeout", d)
		}
		if _, err := c.Get(ctx, podKey("a", "p1"), storage.GetOptions{ResourceVersion: future}); !errors.As(err, &se) || se.Code != storage.ErrCodeTooLargeResourceVersion {
			t.Fatalf("get: err = %v, want TooLargeResourceVersion", err)
		}
	})

	t.Run("paging", func(t *testing.T) {
		// Any version from memory ignores the limit, as Kubernetes does.
		all, err := c.GetList(ctx, "/pods", storage.ListOptions{Recursive: true, ResourceVersion: "0", Predicate: storage.SelectionPredicate{Limit: 3}})
		if err != nil {
			t.Fatal(err)
		}
		if n := names(all.Items); len(n) != 4 || all.Continue != "" {
			t.Errorf("resourceVersion=0 limit=3: %v continue %q, want all 4 in one page", n, all.Continue)
		}
		// A consistent list pages: the first page from memory, the next
		// from etcd at the first page's revision.
		var got []string
		token := ""
		pages := 0
		for {
			l, err := c.GetList(ctx, "/pods", storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Limit: 3, Continue: token}})
			if err != nil {
				t.Fatal(err)
			}
			pages++
			got = append(got, names(l.Items)...)
			if pages == 1 {
				if l.RemainingItemCount == nil || *l.RemainingItemCount != 1 {
					t.Errorf("remaining = %v, want 1", l.RemainingItemCount)
				}
				// The etcd3 storage reads the cache's token the same way.
				e, err := under.GetList(ctx, "/pods", storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Limit: 3, Continue: l.Continue}})
				if err != nil {
					t.Fatalf("etcd3 continue: %v", err)
				}
				if n := names(e.Items); !slices.Equal(n, []string{"b/p4"}) {
					t.Errorf("etcd3 continue = %v", n)
				}
			}
			if l.Continue == "" {
				break
			}
			token = l.Continue
		}
		if want := []string{"a/p1", "a/p2", "b/p3", "b/p4"}; !slices.Equal(got, want) || pages != 2 {
			t.Errorf("pages %d: %v, want 2 pages of %v", pages, got, want)
		}
		// The next pages come from etcd at the first page's revision, so a
		// change after the first page does not show.
		first, err := c.GetList(ctx, "/pods", storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Limit: 2}})
		if err != nil {
			t.Fatal(err)
		}
		mustCreate(t, c, newPod("b", "p5", "", nil))
		second, err := c.GetList(ctx, "/pods", storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Limit: 10, Continue: first.Continue}})
		if err != nil {
			t.Fatal(err)
		}
		if n := names(second.Items); !slices.Equal(n, []string{"b/p3", "b/p4"}) || second.ResourceVersion != first.ResourceVersion {
			t.Errorf("second page %v at %d, want [b/p3 b/p4] at %d", n, second.ResourceVersion, first.ResourceVersion)
		}
		if _, err := c.GetList(ctx, "/pods", storage.ListOptions{Recursive: true, Predicate: storage.SelectionPredicate{Continue: "!!"}}); !errors.As(err, new(*storage.StorageError)) {
			t.Errorf("bad token: %v", err)
		}
	})

	t.Run("writes pass through", func(t *testing.T) {
		p := mustUpdate(t, c, "a", "p1", func(p *corev1.Pod) { p.Labels["v"] = "2" })
		obj, err := under.Get(ctx, podKey("a", "p1"), storage.GetOptions{})
		if err != nil || obj.(*corev1.Pod).Labels["v"] != "2" {
			t.Fatalf("etcd has %v, %v", obj, err)
		}
		if _, err := c.Delete(ctx, podKey("a", "p1"), &storage.Preconditions{ResourceVersion: ptr(strconv.FormatUint(rvOf(t, p), 10))}, nil, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Get(ctx, podKey("a", "p1"), storage.GetOptions{}); !storage.IsNotFound(err) {
			t.Errorf("after delete: %v", err)
		}
	})
}

func ptr[T any](v T) *T { return &v }

func TestWatch(t *testing.T) {
	under := newEtcdStorage(t)
	c := newTestCacher(t, under, func(cfg *Config) { cfg.EventRingSize = 4 })
	ctx := ctxT(t)
	p1 := mustCreate(t, c, newPod("a", "p1", "", map[string]string{"app": "web"}))
	mustCreate(t, c, newPod("b", "p2", "", nil))

	t.Run("from 0: state then changes", func(t *testing.T) {
		w, err := c.Watch(ctx, "/pods", storage.ListOptions{ResourceVersion: "0", Recursive: true})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		expectEvents(t, w, "ADDED a/p1", "ADDED b/p2")
		mustUpdate(t, c, "b", "p2", func(p *corev1.Pod) { p.Labels = map[string]string{"x": "y"} })
		evs := expectEvents(t, w, "MODIFIED b/p2")
		if _, ok := evs[0].Object.(*storage.EncodedObject); !ok {
			t.Errorf("event object is %T, want a shared *storage.EncodedObject", evs[0].Object)
		}
	})

	t.Run("from N replays the ring", func(t *testing.T) {
		rv := strconv.FormatUint(rvOf(t, p1), 10)
		w, err := c.Watch(ctx, "/pods", storage.ListOptions{ResourceVersion: rv, Recursive: true})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		expectEvents(t, w, "ADDED b/p2", "MODIFIED b/p2")
	})

	t.Run("namespace and name", func(t *testing.T) {
		ns, err := c.Watch(ctx, "/pods/a", storage.ListOptions{ResourceVersion: "0", Recursive: true})
		if err != nil {
			t.Fatal(err)
		}
		defer ns.Stop()
		one, err := c.Watch(ctx, podKey("b", "p2"), storage.ListOptions{ResourceVersion: "0"})
		if err != nil {
			t.Fatal(err)
		}
		defer one.Stop()
		expectEvents(t, ns, "ADDED a/p1")
		expectEvents(t, one, "ADDED b/p2")
		mustCreate(t, c, newPod("b", "p22", "", nil))
		mustCreate(t, c, newPod("a", "p3", "", nil))
		mustUpdate(t, c, "b", "p2", func(p *corev1.Pod) { p.Labels["z"] = "1" })
		expectEvents(t, ns, "ADDED a/p3")
		expectEvents(t, one, "MODIFIED b/p2")
	})

	t.Run("older than the ring: etcd replays, or 410 once compacted", func(t *testing.T) {
		for i := range 5 {
			mustCreate(t, c, newPod("c", fmt.Sprintf("old-%d", i), "", nil))
		}
		rv := strconv.FormatUint(rvOf(t, p1), 10)
		w, err := c.Watch(ctx, "/pods/c", storage.ListOptions{ResourceVersion: rv, Recursive: true})
		if err != nil {
			t.Fatal(err)
		}
		expectEvents(t, w, "ADDED c/old-0", "ADDED c/old-1", "ADDED c/old-2", "ADDED c/old-3", "ADDED c/old-4")
		w.Stop()

		current, err := under.CurrentResourceVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := testClient.Compact(ctx, int64(current)); err != nil {
			t.Fatal(err)
		}
		w, err = c.Watch(ctx, "/pods", storage.ListOptions{ResourceVersion: rv, Recursive: true})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		ev, ok := nextEvent(t, w)
		st, isStatus := ev.Object.(*metav1.Status)
		if !ok || ev.Type != watch.Error || !isStatus || st.Code != 410 || st.Reason != metav1.StatusReasonExpired {
			t.Fatalf("got %s, want an ERROR 410 Expired", describe(ev))
		}
		if _, ok := nextEvent(t, w); ok {
			t.Error("the watch did not close after the 410")
		}
	})

	t.Run("bookmarks", func(t *testing.T) {
		w, err := c.Watch(ctx, "/pods/none", storage.ListOptions{ResourceVersion: "0", Recursive: true, ProgressNotify: true})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		mustCreate(t, c, newPod("d", "p", "", nil))
		ev, _ := nextEvent(t, w)
		if ev.Type != watch.Bookmark || rvOf(t, ev.Object) < c.ResourceVersion() {
			t.Fatalf("got %s at %d, want a BOOKMARK at %d", describe(ev), rvOf(t, ev.Object), c.ResourceVersion())
		}
	})
}

func TestWatchTransitions(t *testing.T) {
	under := newEtcdStorage(t)
	c := newTestCacher(t, under)
	ctx := ctxT(t)
	mustCreate(t, c, newPod("a", "p", "", map[string]string{"app": "web"}))
	web, _ := labels.Parse("app=web")
	w, err := c.Watch(ctx, "/pods", storage.ListOptions{ResourceVersion: "0", Recursive: true, Predicate: storage.SelectionPredicate{Label: web, GetAttrs: podAttrs}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	node, err := c.Watch(ctx, "/pods", storage.ListOptions{ResourceVersion: "0", Recursive: true, Predicate: storage.SelectionPredicate{Field: fields.OneTermEqualSelector("spec.nodeName", "n1"), GetAttrs: podAttrs}})
	if err != nil {
		t.Fatal(err)
	}
	defer node.Stop()
	expectEvents(t, w, "ADDED a/p")

	out := mustUpdate(t, c, "a", "p", func(p *corev1.Pod) { p.Labels["app"] = "db"; p.Spec.NodeName = "n1" })
	evs := expectEvents(t, w, "DELETED a/p")
	prev := storage.Unwrap(evs[0].Object).(*corev1.Pod)
	if prev.Labels["app"] != "web" || rvOf(t, prev) != rvOf(t, out) {
		t.Errorf("DELETED carries %v at %d, want the previous state at %d", prev.Labels, rvOf(t, prev), rvOf(t, out))
	}
	expectEvents(t, node, "ADDED a/p")
	mustUpdate(t, c, "a", "p", func(p *corev1.Pod) { p.Labels["app"] = "web"; p.Spec.NodeName = "n2" })
	expectEvents(t, w, "ADDED a/p")
	expectEvents(t, node, "DELETED a/p")
	mustUpdate(t, c, "a", "p", func(p *corev1.Pod) { p.Labels["more"] = "1" })
	expectEvents(t, w, "MODIFIED a/p")
	if _, err := c.Delete(ctx, podKey("a", "p"), nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	expectEvents(t, w, "DELETED a/p")
	select {
	case ev := <-node.ResultChan():
		t.Errorf("the node watcher got %s for a pod of another node", describe(ev))
	case <-time.After(50 * time.Millisecond):
	}
}

func TestSlowWatcherIsCutOff(t *testing.T) {
	under := newEtcdStorage(t)
	c := newTestCacher(t, under, func(cfg *Config) { cfg.WatcherBuffer = 5 })
	ctx := ctxT(t)
	slow, err := c.Watch(ctx, "/pods", storage.ListOptions{ResourceVersion: "0", Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Stop()
	fast, err := c.Watch(ctx, "/pods", storage.ListOptions{ResourceVersion: "0", Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer fast.Stop()
	// The writer waits for the fast watcher after each write: it must get
	// every event promptly while the slow one never reads.
	const n = 50
	for i := range n {
		mustCreate(t, c, newPod("a", fmt.Sprintf("p%02d", i), "", nil))
		select {
		case ev, ok := <-fast.ResultChan():
			if !ok {
				t.Fatalf("the fast watcher was closed after %d events", i)
			}
			if want := fmt.Sprintf("ADDED a/p%02d", i); describe(ev) != want {
				t.Fatalf("fast watcher got %s, want %s", describe(ev), want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("the fast watcher was held up at event %d", i)
		}
	}
	// The slow one delivers what it buffered, then its channel closes.
	count := 0
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-slow.ResultChan():
			if !ok {
				if count >= n {
					t.Fatalf("slow watcher got all %d events: it was not cut off", count)
				}
				return
			}
			count++
		case <-deadline:
			t.Fatal("the slow watcher's channel did not close")
		}
	}
}

// A watcher that does not read for a while, but within its buffer, keeps
// its watch: it gets every event, in order, once it reads again.
func TestLaggingWatcherKeepsItsWatch(t *testing.T) {
	under := newEtcdStorage(t)
	c := newTestCacher(t, under, func(cfg *Config) { cfg.WatcherBuffer = 300 })
	ctx := ctxT(t)
	w, err := c.Watch(ctx, "/pods", storage.ListOptions{ResourceVersion: "0", Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	const n = 250
	want := make([]string, n)
	for i := range n {
		mustCreate(t, c, newPod("a", fmt.Sprintf("p%03d", i), "", nil))
		want[i] = fmt.Sprintf("ADDED a/p%03d", i)
	}
	expectEvents(t, w, want...)
}

// killableStorage lets a test end the cache's underlying watch with a 410.
type killableStorage struct {
	storage.Interface
	kill chan struct{}
}

func (k *killableStorage) Watch(ctx context.Context, key string, opts storage.ListOptions) (watch.Interface, error) {
	w, err := k.Interface.Watch(ctx, key, opts)
	if err != nil {
		return nil, err
	}
	out := make(chan watch.Event)
	done := make(chan struct{})
	go func() {
		defer close(out)
		defer w.Stop()
		for {
			select {
			case ev, ok := <-w.ResultChan():
				if !ok {
					return
				}
				select {
				case out <- ev:
				case <-done:
					return
				}
			case <-k.kill:
				st := metav1.Status{Status: metav1.StatusFailure, Code: 410, Reason: metav1.StatusReasonExpired, Message: "expired"}
				select {
				case out <- watch.Event{Type: watch.Error, Object: &st}:
				case <-done:
				}
				return
			case <-done:
				return
			}
		}
	}()
	return &chanWatch{ch: out, done: done}, nil
}

type chanWatch struct {
	ch   chan watch.Event
	done chan struct{}
	once bool
}

func (w *chanWatch) ResultChan() <-chan watch.Event { return w.ch }
func (w *chanWatch) Stop() {
	if !w.once {
		w.once = true
		close(w.done)
	}
}

func TestRelistAfterExpiry(t *testing.T) {
	under := &killableStorage{Interface: newEtcdStorage(t), kill: make(chan struct{})}
	c := newTestCacher(t, under)
	ctx := ctxT(t)
	mustCreate(t, c, newPod("a", "before", "", nil))
	w, err := c.Watch(ctx, "/pods", storage.ListOptions{ResourceVersion: "0", Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	expectEvents(t, w, "ADDED a/before")
	under.kill <- struct{}{}
	// Written while the cache relists: the new list has it.
	mustCreate(t, under.Interface, newPod("a", "during", "", nil))
	for {
		ev, ok := nextEvent(t, w)
		if !ok {
			break
		}
		if ev.Type != watch.Added {
			t.Fatalf("unexpected %s", describe(ev))
		}
	}
	waitReady(t, c)
	l, err := c.GetList(ctx, "/pods", storage.ListOptions{Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := names(l.Items); !slices.Equal(n, []string{"a/before", "a/during"}) {
		t.Errorf("after relist: %v", n)
	}
	mustCreate(t, c, newPod("a", "after", "", nil))
	w2, err := c.Watch(ctx, "/pods", storage.ListOptions{ResourceVersion: strconv.FormatUint(l.ResourceVersion, 10), Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Stop()
	expectEvents(t, w2, "ADDED a/after")
}

// TestConsistency: many writers, many watchers; every watcher sees every
// event exactly once, in revision order.
func TestConsistency(t *testing.T) {
	const writers, watchers, perWriter = 8, 50, 625 // 5,000 events
	under := newEtcdStorage(t)
	c := newTestCacher(t, under, func(cfg *Config) { cfg.WatcherBuffer = 10000 })
	ctx := ctxT(t)
	start := strconv.FormatUint(c.ResourceVersion(), 10)
	type seen struct {
		rvs []uint64
		err error
	}
	results := make(chan seen, watchers)
	for i := range watchers {
		opts := storage.ListOptions{ResourceVersion: start, Recursive: true}
		w, err := c.Watch(ctx, "/pods", opts)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			defer w.Stop()
			var s seen
			for len(s.rvs) < writers*perWriter {
				select {
				case ev, ok := <-w.ResultChan():
					if !ok {
						s.err = fmt.Errorf("watcher %d closed after %d events", i, len(s.rvs))
						results <- s
						return
					}
					rv, err := objectRV(storage.Unwrap(ev.Object))
					if err != nil {
						s.err = err
						results <- s
						return
					}
					s.rvs = append(s.rvs, rv)
				case <-time.After(30 * time.Second):
					s.err = fmt.Errorf("watcher %d stalled after %d events", i, len(s.rvs))
					results <- s
					return
				}
			}
			results <- s
		}()
	}
	written := make(chan []uint64, writers)
	for wr := range writers {
		go func() {
			var rvs []uint64
			for i := range perWriter {
				name := fmt.Sprintf("w%d-%d", wr, i%25)
				var obj runtime.Object
				var err error
				if i < 25 {
					obj, err = c.Create(ctx, podKey("ns", name), newPod("ns", name, "", nil))
				} else {
					obj, err = c.GuaranteedUpdate(ctx, podKey("ns", name), nil, false, func(cur runtime.Object) (runtime.Object, error) {
						p := cur.(*corev1.Pod)
						p.Labels = map[string]string{"i": strconv.Itoa(i)}
						return p, nil
					}, nil)
				}
				if err != nil {
					t.Error(err)
					break
				}
				rvs = append(rvs, rvOf(t, obj))
			}
			written <- rvs
		}()
	}
	var all []uint64
	for range writers {
		all = append(all, <-written...)
	}
	slices.Sort(all)
	for range watchers {
		s := <-results
		if s.err != nil {
			t.Fatal(s.err)
		}
		if !slices.Equal(s.rvs, all) {
			t.Fatalf("a watcher saw %d events (sorted: %v), want the %d written once each in order", len(s.rvs), slices.IsSorted(s.rvs), len(all))
		}
	}
}

// TestConsistentListOnIdleResource: a write elsewhere in etcd raises the
// revision a consistent list must reach; the cache asks for a progress
// notification instead of waiting for the periodic one.
func TestConsistentListOnIdleResource(t *testing.T) {
	// Periodic progress notifications are far apart: only the cache's own
	// request can make it catch up in time.
	under := newEtcdStorage(t, func(cfg *etcd3.Config) { cfg.BookmarkInterval = time.Minute })
	c := newTestCacher(t, under)
	other := newEtcdStorage(t)
	ctx := ctxT(t)
	mustCreate(t, c, newPod("a", "p", "", nil))
	for i := range 5 {
		mustCreate(t, other, newPod("x", fmt.Sprintf("q%d", i), "", nil))
		want, err := under.CurrentResourceVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		l, err := c.GetList(ctx, "/pods", storage.ListOptions{Recursive: true})
		if err != nil {
			t.Fatal(err)
		}
		if l.ResourceVersion < want {
			t.Errorf("consistent list at %d, want at least %d", l.ResourceVersion, want)
		}
		if d := time.Since(start); d > 500*time.Millisecond {
			t.Errorf("consistent list took %v", d)
		}
	}
}

// TestIdleResourceCatchesUpBehindWatchAtHead: etcd answers a progress
// request on a watch stream only when no watch of that stream starts after
// its current revision. A watch opened at the head of an idle etcd (a
// cache that starts on an etcd written before, as a second API server's
// do) must not keep the other caches of the stream from catching up: a
// watch, a read at N and a consistent list on an idle resource from the
// revision of a write elsewhere are served, not answered 504 after
// WaitTimeout.
func TestIdleResourceCatchesUpBehindWatchAtHead(t *testing.T) {
	ctx := ctxT(t)
	other := newEtcdStorage(t)
	// History before the idle cache starts, as a first server leaves.
	for i := range 3 {
		mustCreate(t, other, newPod("x", fmt.Sprintf("before%d", i), "", nil))
	}
	// The default periods, as the apiserver runs them.
	idle := newTestCacher(t, newEtcdStorage(t, func(cfg *etcd3.Config) { cfg.BookmarkInterval = 0 }),
		func(cfg *Config) { cfg.BookmarkInterval = 0 })
	last := mustCreate(t, other, newPod("x", "last", "", nil))
	rv := rvOf(t, last)
	// Then caches start on the now quiet etcd: their watches begin at the
	// head, after the current revision, and nothing is written after.
	for range 2 {
		newTestCacher(t, newEtcdStorage(t), func(cfg *Config) { cfg.ResourcePrefix = "/pods" })
	}
	direct, err := other.Watch(ctx, "/pods", storage.ListOptions{Recursive: true, ResourceVersion: strconv.FormatUint(rv, 10)})
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Stop()

	w, err := idle.Watch(ctx, "/pods", storage.ListOptions{Recursive: true, ResourceVersion: strconv.FormatUint(rv, 10)})
	if err != nil {
		t.Fatalf("watch the idle resource from %d (etcd's revision): %v", rv, err)
	}
	w.Stop()
	if _, err := idle.GetList(ctx, "/pods", storage.ListOptions{Recursive: true, ResourceVersion: strconv.FormatUint(rv, 10)}); err != nil {
		t.Fatalf("list the idle resource at %d: %v", rv, err)
	}
	if got := idle.ResourceVersion(); got < rv {
		t.Fatalf("the idle cache is at %d, want at least %d", got, rv)
	}
	// A consistent list on the idle resource is served from memory at
	// etcd's revision.
	l, err := idle.GetList(ctx, "/pods", storage.ListOptions{Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	if l.ResourceVersion < rv {
		t.Fatalf("consistent list at %d, want at least %d", l.ResourceVersion, rv)
	}
}
