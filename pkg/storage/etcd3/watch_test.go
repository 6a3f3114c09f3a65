package etcd3

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/storage"
)

// next returns the next event or fails after a few seconds.
func next(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("watch closed")
		}
		return ev
	case <-time.After(5 * time.Second):
		t.Fatal("no event in 5s")
	}
	return watch.Event{}
}

// expectClosed drains w until it closes.
func expectClosed(t *testing.T, w watch.Interface) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return
			}
			t.Logf("event before close: %s", ev.Type)
		case <-deadline:
			t.Fatal("watch not closed after 5s")
		}
	}
}

// describe is "TYPE name count rv" of a widget event.
func describe(ev watch.Event) string {
	w, ok := ev.Object.(*widget)
	if !ok {
		return fmt.Sprintf("%s %T", ev.Type, ev.Object)
	}
	return fmt.Sprintf("%s %s %d %s", ev.Type, w.Name, w.Spec.Count, w.ResourceVersion)
}

func setLabel(value string) storage.UpdateFunc {
	return func(cur runtime.Object) (runtime.Object, error) {
		w := cur.(*widget)
		w.Labels = map[string]string{"parity": value}
		w.Spec.Count++
		return w, nil
	}
}

func TestWatchFromRevision(t *testing.T) {
	s, _ := newTestStore(t, testClient)
	ctx := ctxT(t)
	a := mustCreate(t, s, "/widgets/default/a", newWidget("a", nil))
	w, err := s.Watch(ctx, "/widgets", storage.ListOptions{Recursive: true, ResourceVersion: a.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	b := mustCreate(t, s, "/widgets/default/b", newWidget("b", nil))
	u, err := s.GuaranteedUpdate(ctx, "/widgets/default/a", nil, false, increment, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Delete(ctx, "/widgets/default/b", nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, s, "/widgetsother/default/x", newWidget("x", nil)) // not under the watched prefix
	want := []string{
		"ADDED b 0 " + b.ResourceVersion,
		"MODIFIED a 1 " + rvOf(t, u),
		"DELETED b 0 " + rvOf(t, d),
	}
	for i, wantEv := range want {
		if got := describe(next(t, w)); got != wantEv {
			t.Errorf("event %d: %q, want %q", i, got, wantEv)
		}
	}
}

func TestWatchInitialState(t *testing.T) {
	for _, rv := range []string{"", "0"} {
		t.Run("rv="+rv, func(t *testing.T) {
			s, _ := newTestStore(t, testClient)
			ctx := ctxT(t)
			a := mustCreate(t, s, "/widgets/default/a", newWidget("a", nil))
			b := mustCreate(t, s, "/widgets/default/b", newWidget("b", nil))
			w, err := s.Watch(ctx, "/widgets", storage.ListOptions{Recursive: true, ResourceVersion: rv})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			if got, want := describe(next(t, w)), "ADDED a 0 "+a.ResourceVersion; got != want {
				t.Errorf("%q, want %q", got, want)
			}
			if got, want := describe(next(t, w)), "ADDED b 0 "+b.ResourceVersion; got != want {
				t.Errorf("%q, want %q", got, want)
			}
			c := mustCreate(t, s, "/widgets/default/c", newWidget("c", nil))
			if got, want := describe(next(t, w)), "ADDED c 0 "+c.ResourceVersion; got != want {
				t.Errorf("%q, want %q", got, want)
			}
		})
	}
}

// TestWatchPredicateTransitions: a label selector turns changes that make an
// object match into ADDED and changes that make it stop matching into
// DELETED; changes outside the selection are not seen.
func TestWatchPredicateTransitions(t *testing.T) {
	s, _ := newTestStore(t, testClient)
	ctx := ctxT(t)
	start := mustCreate(t, s, "/widgets/default/a", newWidget("a", map[string]string{"parity": "odd"}))
	even, _ := labels.Parse("parity=even")
	w, err := s.Watch(ctx, "/widgets", storage.ListOptions{Recursive: true, ResourceVersion: start.ResourceVersion,
		Predicate: storage.SelectionPredicate{Label: even, GetAttrs: widgetAttrs}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	key := "/widgets/default/a"
	steps := []struct {
		update storage.UpdateFunc
		want   string // "" when the watcher sees nothing
	}{
		{update: setLabel("odd")}, // count 1, still odd: invisible
		{update: setLabel("even"), want: "ADDED a 2"},
		{update: setLabel("even"), want: "MODIFIED a 3"},
		{update: setLabel("odd"), want: "DELETED a 3"}, // the last matching state
		{update: setLabel("odd")},
	}
	var want []string
	for _, st := range steps {
		out, err := s.GuaranteedUpdate(ctx, key, nil, false, st.update, nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.want != "" {
			want = append(want, st.want+" "+rvOf(t, out))
		}
	}
	if _, err := s.GuaranteedUpdate(ctx, key, nil, false, setLabel("even"), nil); err != nil {
		t.Fatal(err)
	}
	d, err := s.Delete(ctx, key, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, "ADDED a 6 "+strconv.Itoa(mustAtoi(t, rvOf(t, d))-1), "DELETED a 6 "+rvOf(t, d))
	for i, wantEv := range want {
		if got := describe(next(t, w)); got != wantEv {
			t.Errorf("event %d: %q, want %q", i, got, wantEv)
		}
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestWatchCompacted(t *testing.T) {
	s, _ := newTestStore(t, testClient)
	ctx := ctxT(t)
	a := mustCreate(t, s, "/widgets/default/a", newWidget("a", nil))
	if _, err := s.GuaranteedUpdate(ctx, "/widgets/default/a", nil, false, increment, nil); err != nil {
		t.Fatal(err)
	}
	cur, err := s.CurrentResourceVersion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testClient.Compact(ctx, int64(cur)); err != nil {
		t.Fatal(err)
	}
	// Watching from a.ResourceVersion asks for the revision after it, the
	// update's, which compaction kept; the one before it is gone.
	w, err := s.Watch(ctx, "/widgets", storage.ListOptions{Recursive: true, ResourceVersion: strconv.Itoa(mustAtoi(t, a.ResourceVersion) - 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ev := next(t, w)
	st, ok := ev.Object.(*metav1.Status)
	if ev.Type != watch.Error || !ok || st.Code != 410 || st.Reason != metav1.StatusReasonExpired {
		t.Fatalf("event %s %+v, want ERROR 410 Expired", ev.Type, ev.Object)
	}
	if st.Message != expiredWatchMessage {
		t.Errorf("message %q", st.Message)
	}
	expectClosed(t, w)

	// The revision the watch follows may itself be compacted: the update
	// after it is still there and comes (as ADDED: the state before it,
	// which MODIFIED would need, is compacted).
	w, err = s.Watch(ctx, "/widgets", storage.ListOptions{Recursive: true, ResourceVersion: a.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ev = next(t, w)
	if m, ok := ev.Object.(metav1.Object); ev.Type == watch.Error || !ok || m.GetResourceVersion() != strconv.FormatUint(cur, 10) {
		t.Fatalf("event %s %+v, want the update at %d after compaction", ev.Type, ev.Object, cur)
	}
}

func TestWatchBookmarks(t *testing.T) {
	s, _ := newTestStore(t, testClient, func(c *Config) { c.BookmarkInterval = 50 * time.Millisecond })
	ctx := ctxT(t)
	a := mustCreate(t, s, "/widgets/default/a", newWidget("a", nil))
	w, err := s.Watch(ctx, "/widgets", storage.ListOptions{Recursive: true, ResourceVersion: a.ResourceVersion, ProgressNotify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// A write elsewhere moves the revision on; etcd reports progress on an
	// idle watch once the revision has passed its start.
	other, err := testClient.Put(ctx, "/elsewhere/bookmark", "x")
	if err != nil {
		t.Fatal(err)
	}
	for {
		ev := next(t, w)
		if ev.Type != watch.Bookmark {
			t.Fatalf("event %s, want BOOKMARK", describe(ev))
		}
		bm := ev.Object.(*widget)
		if bm.Name != "" || bm.ResourceVersion == "" {
			t.Fatalf("bookmark %+v, want only a resourceVersion", bm)
		}
		if int64(mustAtoi(t, bm.ResourceVersion)) >= other.Header.Revision {
			return
		}
	}
}

func TestWatchStop(t *testing.T) {
	s, _ := newTestStore(t, testClient)
	ctx, cancel := context.WithCancel(ctxT(t))
	w, err := s.Watch(ctx, "/widgets", storage.ListOptions{Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	w.Stop()
	w.Stop() // idempotent
	expectClosed(t, w)

	w2, err := s.Watch(ctx, "/widgets", storage.ListOptions{Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	expectClosed(t, w2)
}

// deadEndpoint returns a loopback address nothing listens on.
func deadEndpoint(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return "http://" + addr
}

// TestUnreachable: with no etcd to talk to, every call fails with
// Unreachable within its timeout and a watch ends with an ERROR event.
func TestUnreachable(t *testing.T) {
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{deadEndpoint(t)}, DialTimeout: 200 * time.Millisecond, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	s, _ := newTestStore(t, client, func(c *Config) {
		c.RequestTimeout = 300 * time.Millisecond
		c.WatchProbeInterval = 100 * time.Millisecond
	})
	ctx := ctxT(t)
	calls := map[string]func() error{
		"create": func() error { _, err := s.Create(ctx, "/widgets/default/a", newWidget("a", nil)); return err },
		"get":    func() error { _, err := s.Get(ctx, "/widgets/default/a", storage.GetOptions{}); return err },
		"list": func() error {
			_, err := s.GetList(ctx, "/widgets", storage.ListOptions{Recursive: true})
			return err
		},
		"update": func() error {
			_, err := s.GuaranteedUpdate(ctx, "/widgets/default/a", nil, true, increment, nil)
			return err
		},
		"delete":  func() error { _, err := s.Delete(ctx, "/widgets/default/a", nil, nil, nil); return err },
		"current": func() error { _, err := s.CurrentResourceVersion(ctx); return err },
	}
	for name, call := range calls {
		start := time.Now()
		err := call()
		if !storage.IsUnreachable(err) {
			t.Errorf("%s: %v, want Unreachable", name, err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s took %s", name, d)
		}
	}
	w, err := s.Watch(ctx, "/widgets", storage.ListOptions{Recursive: true, ResourceVersion: "5"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	ev := next(t, w)
	if st, ok := ev.Object.(*metav1.Status); ev.Type != watch.Error || !ok || st.Code != 500 {
		t.Fatalf("event %s %+v, want an ERROR 500", ev.Type, ev.Object)
	}
	expectClosed(t, w)
}
