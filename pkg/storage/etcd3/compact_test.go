package etcd3

import (
	"context"
	"testing"
	"time"

	"kubecore.io/kubecore/pkg/storage"
)

// TestCompactor: the compactor compacts to the revision it saw one interval
// earlier, so that an old revision becomes Expired and a recent one does
// not.
func TestCompactor(t *testing.T) {
	s, _ := newTestStore(t, testClient)
	ctx, cancel := context.WithCancel(ctxT(t))
	defer cancel()
	old := mustCreate(t, s, "/widgets/default/a", newWidget("a", nil))
	if _, err := s.GuaranteedUpdate(ctx, "/widgets/default/a", nil, false, increment, nil); err != nil {
		t.Fatal(err)
	}
	StartCompactor(ctx, testClient, 100*time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := s.GetList(ctx, "/widgets", storage.ListOptions{Recursive: true, ResourceVersion: old.ResourceVersion, ResourceVersionMatch: "Exact"})
		if storage.IsExpired(err) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("revision not compacted after 5s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The latest state is still readable at its own revision.
	cur, err := s.Get(ctx, "/widgets/default/a", storage.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetList(ctx, "/widgets", storage.ListOptions{Recursive: true, ResourceVersion: rvOf(t, cur), ResourceVersionMatch: "Exact"}); err != nil && !storage.IsExpired(err) {
		t.Fatal(err)
	}
}
