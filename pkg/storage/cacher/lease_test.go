package cacher

import (
	"sort"
	"strconv"
	"testing"
	"time"

	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/storage"
	"kubecore.io/kubecore/pkg/storage/etcd3"
)

// TestWatchSeesEveryEventOfARevision: objects sharing an etcd lease are
// deleted in one revision when it expires; a watcher of the cache gets a
// DELETED event for each of them, not only for the first.
func TestWatchSeesEveryEventOfARevision(t *testing.T) {
	ctx := ctxT(t)
	under := newEtcdStorage(t, func(c *etcd3.Config) { c.LeaseTTL = time.Second })
	c := newTestCacher(t, under)
	var last uint64
	for _, name := range []string{"a", "b", "c"} {
		last = rvOf(t, mustCreate(t, under, newPod("ns", name, "", nil)))
	}
	w, err := c.Watch(ctx, "/pods", storage.ListOptions{Recursive: true, ResourceVersion: strconv.FormatUint(last, 10)})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var got []string
	var revs []uint64
	for len(got) < 3 {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("watch closed after %v", got)
			}
			if ev.Type == watch.Bookmark {
				continue
			}
			got = append(got, describe(ev))
			revs = append(revs, rvOf(t, ev.Object))
		case <-time.After(time.Minute):
			t.Fatalf("events after the lease expired: %v, want 3 deletions", got)
		}
	}
	sort.Strings(got)
	if want := []string{"DELETED ns/a", "DELETED ns/b", "DELETED ns/c"}; !equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if revs[0] != revs[1] || revs[1] != revs[2] {
		t.Logf("deletions at revisions %v: the lease was not shared, the test proves less", revs)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
