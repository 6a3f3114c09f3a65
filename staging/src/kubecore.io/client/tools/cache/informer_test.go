package cache

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/watch"
)

func TestInformerEventOrderPerObject(t *testing.T) {
	lw := newFakeLW()
	lw.set(pod("ns", "a", ""))
	inf, rec := startInformer(t, lw, InformerOptions{})
	w := lw.nextWatcher(t)

	var want []string
	want = append(want, "add ns/a 1 initial")
	prev := map[string]string{"ns/a": "1"}
	for i := range 200 {
		name := fmt.Sprintf("p%d", i%7)
		key := "ns/" + name
		switch {
		case i%11 == 10 && prev[key] != "":
			p := lw.remove(key)
			w.Delete(p)
			want = append(want, fmt.Sprintf("delete %s %s", key, p.ResourceVersion))
			delete(prev, key)
		default:
			p := lw.set(pod("ns", name, ""))
			if old := prev[key]; old != "" {
				w.Modify(p)
				want = append(want, fmt.Sprintf("update %s %s->%s", key, old, p.ResourceVersion))
			} else {
				w.Add(p)
				want = append(want, fmt.Sprintf("add %s %s", key, p.ResourceVersion))
			}
			prev[key] = p.ResourceVersion
		}
	}
	got := rec.wait(t, len(want))
	if !slices.Equal(got, want) {
		t.Fatalf("events differ:\n got %q\nwant %q", got, want)
	}
	if n := inf.GetIndexer().Len(); n != len(prev) {
		t.Errorf("cache holds %d objects, want %d", n, len(prev))
	}
	if rv := inf.LastSyncResourceVersion(); rv != fmt.Sprint(lw.rv) {
		t.Errorf("LastSyncResourceVersion = %s, want %d", rv, lw.rv)
	}
}

func TestInformerListOptions(t *testing.T) {
	lw := newFakeLW()
	lw.pageSize = 2
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		lw.set(pod("ns", n, ""))
	}
	inf, rec := startInformer(t, lw, InformerOptions{})
	rec.wait(t, 5)
	lw.nextWatcher(t)
	lists := lw.lists()
	if len(lists) != 3 {
		t.Fatalf("got %d LIST calls, want 3 pages: %+v", len(lists), lists)
	}
	if lists[0].ResourceVersion != "0" || lists[0].Limit != 500 || lists[0].Continue != "" {
		t.Errorf("first page options = %+v, want resourceVersion 0, limit 500", lists[0])
	}
	if lists[1].Continue != "2" || lists[1].ResourceVersion != "" {
		t.Errorf("second page options = %+v, want continue 2 and no resourceVersion", lists[1])
	}
	if got := inf.GetIndexer().ListKeys(); !slices.Equal(got, []string{"ns/a", "ns/b", "ns/c", "ns/d", "ns/e"}) {
		t.Errorf("keys = %q", got)
	}
	wo := lw.lastWatchOpts()
	if wo.ResourceVersion != "5" || !wo.AllowWatchBookmarks || wo.TimeoutSeconds == nil ||
		*wo.TimeoutSeconds < 300 || *wo.TimeoutSeconds >= 600 {
		t.Errorf("watch options = %+v, want resourceVersion 5, bookmarks, timeout in [300,600)", wo)
	}
}

func TestInformerResumesWithoutRelist(t *testing.T) {
	lw := newFakeLW()
	a := lw.set(pod("ns", "a", ""))
	inf, rec := startInformer(t, lw, InformerOptions{})
	w := lw.nextWatcher(t)
	b := lw.set(pod("ns", "b", ""))
	w.Add(b)
	rec.wait(t, 2)

	// A bookmark moves the resourceVersion on; then the connection drops.
	lw.set(pod("other", "x", "")) // rv 3, not ours
	w.Action(watch.Bookmark, pod("", "", "3"))
	w.Stop()
	w = lw.nextWatcher(t)
	if rv := lw.lastWatchOpts().ResourceVersion; rv != "3" {
		t.Errorf("re-watch from resourceVersion %s, want the bookmark's 3", rv)
	}
	// The server replays what we already have, then something new: only
	// the new change reaches the handler.
	w.Add(a)
	w.Add(b)
	c := lw.set(pod("ns", "c", ""))
	w.Add(c)
	// A failing watch call is retried from the same resourceVersion.
	w.Error(&metav1.Status{Status: metav1.StatusFailure, Code: 500, Reason: metav1.StatusReasonInternalError, Message: "stream broken"})
	w = lw.nextWatcher(t)
	if rv := lw.lastWatchOpts().ResourceVersion; rv != c.ResourceVersion {
		t.Errorf("re-watch from resourceVersion %s, want %s", rv, c.ResourceVersion)
	}
	w.Stop()
	lw.nextWatcher(t)
	want := []string{"add ns/a 1 initial", "add ns/b 2", "add ns/c 4"}
	if got := rec.wait(t, 3); !slices.Equal(got, want) {
		t.Fatalf("events = %q, want %q", got, want)
	}
	time.Sleep(20 * time.Millisecond)
	if got := rec.all(); len(got) != 3 {
		t.Errorf("extra events after resume: %q", got)
	}
	if n := len(lw.lists()); n != 1 || inf.Lists() != 1 {
		t.Errorf("LIST called %d times (%d applied), want 1", n, inf.Lists())
	}
}

func TestInformerRelistOnExpired(t *testing.T) {
	for _, tc := range []struct {
		name   string
		expire func(lw *fakeLW, w *watch.FakeWatcher)
	}{
		{"error event", func(_ *fakeLW, w *watch.FakeWatcher) { w.Error(expiredStatus()) }},
		{"watch call error", func(lw *fakeLW, w *watch.FakeWatcher) {
			lw.mu.Lock()
			lw.watchErrs = append(lw.watchErrs, expired)
			lw.mu.Unlock()
			w.Stop()
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lw := newFakeLW()
			lw.set(pod("ns", "a", ""))
			lw.set(pod("ns", "b", ""))
			lw.set(pod("ns", "keep", ""))
			inf, rec := startInformer(t, lw, InformerOptions{})
			w := lw.nextWatcher(t)
			// b changes once through the watch, then the watch is lost while
			// a changes, b is deleted and c is created.
			b := lw.set(pod("ns", "b", ""))
			b.Labels = map[string]string{"last": "known"}
			w.Modify(b)
			rec.wait(t, 4)
			lw.set(pod("ns", "a", ""))
			lw.remove("ns/b")
			lw.set(pod("ns", "c", ""))
			tc.expire(lw, w)
			lw.nextWatcher(t)

			got := rec.wait(t, 7)[4:]
			slices.Sort(got)
			want := []string{"add ns/c 7", "delete ns/b 4", "update ns/a 1->5"}
			if !slices.Equal(got, want) {
				t.Fatalf("relist events = %q, want %q", got, want)
			}
			lists := lw.lists()
			if len(lists) != 2 || lists[1].ResourceVersion != "" {
				t.Errorf("LIST calls = %+v, want a second, consistent one", lists)
			}
			if got := inf.GetIndexer().ListKeys(); !slices.Equal(got, []string{"ns/a", "ns/c", "ns/keep"}) {
				t.Errorf("keys = %q", got)
			}
			if rv := lw.lastWatchOpts().ResourceVersion; rv != "7" {
				t.Errorf("watch after relist from %s, want 7", rv)
			}
		})
	}
}

func TestInformerDeleteCarriesFinalState(t *testing.T) {
	lw := newFakeLW()
	lw.set(pod("ns", "a", ""))
	_, rec := startInformer(t, lw, InformerOptions{})
	w := lw.nextWatcher(t)
	a := lw.set(pod("ns", "a", ""))
	w.Modify(a)
	w.Error(expiredStatus())
	lw.remove("ns/a")
	lw.nextWatcher(t)
	want := []string{"add ns/a 1 initial", "update ns/a 1->2", "delete ns/a 2"}
	if got := rec.wait(t, 3); !slices.Equal(got, want) {
		t.Fatalf("events = %q, want %q", got, want)
	}
}

func TestInformerLateHandler(t *testing.T) {
	lw := newFakeLW()
	lw.set(pod("ns", "a", ""))
	lw.set(pod("ns", "b", ""))
	inf, _ := startInformer(t, lw, InformerOptions{})
	w := lw.nextWatcher(t)
	late := newRecorder()
	reg, err := inf.AddEventHandler(late)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if !WaitForCacheSync(ctx, reg.HasSynced) {
		t.Fatal("late handler did not sync")
	}
	got := late.wait(t, 2)
	slices.Sort(got)
	if want := []string{"add ns/a 1 initial", "add ns/b 2 initial"}; !slices.Equal(got, want) {
		t.Fatalf("late handler got %q, want %q", got, want)
	}
	c := lw.set(pod("ns", "c", ""))
	w.Add(c)
	if got := late.wait(t, 3)[2]; got != "add ns/c 3" {
		t.Errorf("late handler then got %q, want add ns/c 3", got)
	}
	inf.RemoveEventHandler(reg)
	w.Add(lw.set(pod("ns", "d", "")))
	time.Sleep(20 * time.Millisecond)
	if n := len(late.all()); n != 3 {
		t.Errorf("removed handler got %d events, want 3", n)
	}
}

func TestHandlerHasSyncedWaitsForDelivery(t *testing.T) {
	lw := newFakeLW()
	for i := range 5 {
		lw.set(pod("ns", fmt.Sprint(i), ""))
	}
	inf := NewInformer[*corev1.Pod](lw, InformerOptions{Reflector: fastOpts})
	release := make(chan struct{})
	var seen atomic.Int32
	reg, err := inf.AddEventHandler(ResourceEventHandlerFuncs[*corev1.Pod]{
		AddFunc: func(*corev1.Pod, bool) { <-release; seen.Add(1) },
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { inf.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()

	short, shortCancel := context.WithTimeout(ctx, 10*time.Second)
	defer shortCancel()
	if !WaitForCacheSync(short, inf.HasSynced) {
		t.Fatal("informer did not sync")
	}
	if reg.HasSynced() {
		t.Fatal("handler synced before it was given the objects")
	}
	close(release)
	if !WaitForCacheSync(short, reg.HasSynced) {
		t.Fatal("handler did not sync")
	}
	if n := seen.Load(); n != 5 {
		t.Errorf("handler saw %d adds when synced, want 5", n)
	}
}

func TestSlowHandlerDoesNotBlockOthers(t *testing.T) {
	lw := newFakeLW()
	inf := NewInformer[*corev1.Pod](lw, InformerOptions{Reflector: fastOpts})
	block := make(chan struct{})
	if _, err := inf.AddEventHandler(ResourceEventHandlerFuncs[*corev1.Pod]{
		AddFunc: func(*corev1.Pod, bool) { <-block },
	}); err != nil {
		t.Fatal(err)
	}
	fast := newRecorder()
	if _, err := inf.AddEventHandler(fast); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { inf.Run(ctx); close(done) }()
	defer func() { cancel(); close(block); <-done }()
	w := lw.nextWatcher(t)
	for i := range 1000 {
		w.Add(lw.set(pod("ns", fmt.Sprint(i), "")))
	}
	fast.wait(t, 1000)
}

func TestWaitForCacheSyncGivesUp(t *testing.T) {
	lw := newFakeLW()
	lw.listErrs = []error{errors.New("connection refused"), errors.New("connection refused")}
	var reported atomic.Int32
	inf := NewInformer[*corev1.Pod](lw, InformerOptions{Reflector: ReflectorOptions{
		InitialBackoff: time.Hour, OnError: func(err error) {
			if strings.Contains(err.Error(), "connection refused") {
				reported.Add(1)
			}
		},
	}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { inf.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	short, shortCancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer shortCancel()
	if WaitForCacheSync(short, inf.HasSynced) {
		t.Fatal("WaitForCacheSync = true with a failing LIST")
	}
	if reported.Load() != 1 {
		t.Errorf("OnError told of %d list errors, want 1", reported.Load())
	}
}

func TestInformerResync(t *testing.T) {
	lw := newFakeLW()
	lw.set(pod("ns", "a", ""))
	_, rec := startInformer(t, lw, InformerOptions{ResyncPeriod: 10 * time.Millisecond})
	got := rec.wait(t, 3)
	if want := []string{"add ns/a 1 initial", "update ns/a 1->1", "update ns/a 1->1"}; !slices.Equal(got, want) {
		t.Fatalf("events = %q, want %q", got, want)
	}
}

func TestInformerRejectsWrongType(t *testing.T) {
	lw := newFakeLW()
	var errs atomic.Int32
	inf := NewInformer[*corev1.Pod](lw, InformerOptions{Reflector: ReflectorOptions{
		InitialBackoff: time.Millisecond,
		OnError: func(err error) {
			if strings.Contains(err.Error(), "want *v1.Pod") {
				errs.Add(1)
			}
		},
	}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { inf.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	w := lw.nextWatcher(t)
	w.Add(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", ResourceVersion: "9"}})
	lw.nextWatcher(t)
	if errs.Load() != 1 {
		t.Errorf("wrong-type event reported %d times, want 1", errs.Load())
	}
	if inf.GetIndexer().Len() != 0 {
		t.Error("wrong-type object was cached")
	}
}

func TestInformerAfterStop(t *testing.T) {
	inf := NewInformer[*corev1.Pod](newFakeLW(), InformerOptions{Reflector: fastOpts})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	inf.Run(ctx)
	if _, err := inf.AddEventHandler(newRecorder()); !errors.Is(err, ErrStopped) {
		t.Errorf("AddEventHandler after stop: err = %v, want ErrStopped", err)
	}
}
