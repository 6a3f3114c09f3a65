package cacher

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/storage"
)

// expectInitialEventsEnd reads the next event and checks it is the
// annotated BOOKMARK at rv (at least rv when rv is 0).
func expectInitialEventsEnd(t *testing.T, w watch.Interface, atLeast uint64) uint64 {
	t.Helper()
	ev, ok := nextEvent(t, w)
	if !ok || ev.Type != watch.Bookmark {
		t.Fatalf("got %s, want the BOOKMARK that ends the initial events", describe(ev))
	}
	p, isPod := ev.Object.(*corev1.Pod)
	if !isPod || p.Annotations[metav1.InitialEventsAnnotationKey] != "true" || p.Name != "" {
		t.Fatalf("bookmark object %#v, want an empty pod annotated %s", ev.Object, metav1.InitialEventsAnnotationKey)
	}
	rv := rvOf(t, p)
	if rv < atLeast {
		t.Fatalf("bookmark at %d, want at least %d", rv, atLeast)
	}
	return rv
}

func TestWatchList(t *testing.T) {
	under := newEtcdStorage(t)
	mustCreate(t, under, newPod("wl", "p1", "", nil))
	c := newTestCacher(t, under, func(cfg *Config) { cfg.BookmarkInterval = time.Hour })
	last := mustCreate(t, c, newPod("wl", "p2", "", nil))
	ctx := ctxT(t)
	yes, no := true, false

	for _, rv := range []string{"", "0", strconv.FormatUint(rvOf(t, last), 10)} {
		t.Run("initial events from "+strconv.Quote(rv), func(t *testing.T) {
			w, err := c.Watch(ctx, "/pods/wl", storage.ListOptions{ResourceVersion: rv, Recursive: true, ProgressNotify: true, SendInitialEvents: &yes})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			expectEvents(t, w, "ADDED wl/p1", "ADDED wl/p2")
			atLeast := uint64(0)
			if rv != "0" {
				atLeast = rvOf(t, last)
			}
			end := expectInitialEventsEnd(t, w, atLeast)
			p3 := mustCreate(t, c, newPod("wl", "p3-"+rv, "", nil))
			expectEvents(t, w, "ADDED wl/p3-"+rv)
			if rvOf(t, p3) <= end {
				t.Errorf("change at %d is not after the bookmark at %d", rvOf(t, p3), end)
			}
			mustDelete(t, c, "wl", "p3-"+rv)
			expectEvents(t, w, "DELETED wl/p3-"+rv)
		})
	}

	t.Run("without bookmarks: no end bookmark", func(t *testing.T) {
		w, err := c.Watch(ctx, "/pods/wl", storage.ListOptions{ResourceVersion: "0", Recursive: true, SendInitialEvents: &yes})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		expectEvents(t, w, "ADDED wl/p1", "ADDED wl/p2")
		mustCreate(t, c, newPod("wl", "p4", "", nil))
		ev, _ := nextEvent(t, w)
		if describe(ev) != "ADDED wl/p4" {
			t.Fatalf("got %s, want ADDED wl/p4 (no bookmark)", describe(ev))
		}
	})

	t.Run("empty: the bookmark alone", func(t *testing.T) {
		w, err := c.Watch(ctx, "/pods/nothing", storage.ListOptions{Recursive: true, ProgressNotify: true, SendInitialEvents: &yes})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		expectInitialEventsEnd(t, w, rvOf(t, last))
	})

	t.Run("sendInitialEvents=false starts at the current revision", func(t *testing.T) {
		for _, rv := range []string{"", "0"} {
			w, err := c.Watch(ctx, "/pods/wl", storage.ListOptions{ResourceVersion: rv, Recursive: true, SendInitialEvents: &no})
			if err != nil {
				t.Fatal(err)
			}
			mustUpdate(t, c, "wl", "p1", func(p *corev1.Pod) { p.Labels = map[string]string{"rv": rv} })
			expectEvents(t, w, "MODIFIED wl/p1")
			w.Stop()
		}
	})

	t.Run("sendInitialEvents=false from N replays after N", func(t *testing.T) {
		w, err := c.Watch(ctx, "/pods/wl", storage.ListOptions{ResourceVersion: strconv.FormatUint(rvOf(t, last), 10), Recursive: true, SendInitialEvents: &no})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		expectEvents(t, w, "ADDED wl/p3-", "DELETED wl/p3-")
	})
}

// TestWatchListFromStorage checks the streaming list while the cache is
// not ready: the storage lists, then watches from the list's revision.
func TestWatchListFromStorage(t *testing.T) {
	under := newEtcdStorage(t)
	mustCreate(t, under, newPod("wls", "p1", "", nil))
	c := newTestCacher(t, under)
	c.setUnready()
	yes := true
	ctx := ctxT(t)
	w, err := c.watchListFromStorage(ctx, "/pods/wls", storage.ListOptions{Recursive: true, ProgressNotify: true, SendInitialEvents: &yes}, true)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	expectEvents(t, w, "ADDED wls/p1")
	expectInitialEventsEnd(t, w, 1)
	mustCreate(t, under, newPod("wls", "p2", "", nil))
	expectEvents(t, w, "ADDED wls/p2")
}

func mustDelete(t testing.TB, s storage.Interface, ns, name string) {
	t.Helper()
	if _, err := s.Delete(context.Background(), podKey(ns, name), nil, nil, nil); err != nil {
		t.Fatalf("delete %s/%s: %v", ns, name, err)
	}
}

// TestInitialEventsWhileTheCacheChanges holds a watcher in the middle of
// its initial events while deletes shift the cache's sorted entries: the
// initial events must still be the state at the watch's start, each
// object once (a client-go informer that relisted by a streaming list
// lost objects this way), and the deletes follow as events.
func TestInitialEventsWhileTheCacheChanges(t *testing.T) {
	under := newEtcdStorage(t)
	c := newTestCacher(t, under, func(cfg *Config) { cfg.BookmarkInterval = time.Hour })
	const n, deleted = 60, 20
	var last *corev1.Pod
	for i := range n {
		last = mustCreate(t, c, newPod("shift", fmt.Sprintf("p-%03d", i), "", nil))
	}
	yes := true
	for _, opts := range []storage.ListOptions{
		{ResourceVersion: "0"},
		{ResourceVersion: "", SendInitialEvents: &yes, ProgressNotify: true},
	} {
		name := "watch from 0"
		if opts.SendInitialEvents != nil {
			name = "streaming list"
		}
		t.Run(name, func(t *testing.T) {
			if err := c.waitForRV(ctxT(t), "/pods/shift", rvOf(t, last), nil); err != nil {
				t.Fatal(err)
			}
			opts.Recursive = true
			w, err := c.Watch(ctxT(t), "/pods/shift", opts)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			seen := map[string]int{}
			ev, _ := nextEvent(t, w)
			seen[storage.Unwrap(ev.Object).(*corev1.Pod).Name]++
			// The watcher now waits to hand over its second initial event.
			for i := 1; i <= deleted; i++ {
				mustDelete(t, c, "shift", fmt.Sprintf("p-%03d", i))
			}
			rv, err := under.CurrentResourceVersion(ctxT(t))
			if err != nil {
				t.Fatal(err)
			}
			if err := c.waitForRV(ctxT(t), "/pods/shift", rv, nil); err != nil {
				t.Fatal(err)
			}
			for i := 1; i < n; i++ {
				ev, ok := nextEvent(t, w)
				if !ok || ev.Type != watch.Added {
					t.Fatalf("initial event %d: %s, want ADDED", i, describe(ev))
				}
				seen[storage.Unwrap(ev.Object).(*corev1.Pod).Name]++
			}
			for i := range n {
				if name := fmt.Sprintf("p-%03d", i); seen[name] != 1 {
					t.Errorf("%s came %d times in the initial events, want once", name, seen[name])
				}
			}
			if opts.SendInitialEvents != nil {
				expectInitialEventsEnd(t, w, rvOf(t, last))
			}
			var want []string
			for i := 1; i <= deleted; i++ {
				want = append(want, fmt.Sprintf("DELETED shift/p-%03d", i))
			}
			expectEvents(t, w, want...)
			// Put them back for the next case.
			for i := 1; i <= deleted; i++ {
				last = mustCreate(t, c, newPod("shift", fmt.Sprintf("p-%03d", i), "", nil))
			}
		})
	}
}
