package etcd3

import (
	"context"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"kubecore.io/kubecore/pkg/storage"
)

// TestCompactorsShareIntervals: two compactors on one cluster, ticking in
// turn, compact once per interval between them — whichever ticks first
// claims it through the version of CompactRevisionKey — and each
// compaction removes the history before the revision seen one tick
// earlier, keeping what came after.
func TestCompactorsShareIntervals(t *testing.T) {
	ctx := ctxT(t)
	s, _ := newTestStore(t, testClient)
	obj := mustCreate(t, s, "/widgets/default/a", newWidget("a", nil))
	a, b := NewCompactor(testClient, time.Hour), NewCompactor(testClient, time.Hour)
	for _, c := range []*Compactor{a, b} {
		if err := c.start(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for round := range 6 {
		// Old state that this round's compaction may remove or keep.
		before, err := s.GuaranteedUpdate(ctx, "/widgets/default/a", nil, false, increment, nil)
		if err != nil {
			t.Fatal(err)
		}
		first, second := a, b
		if round%3 == 2 {
			first, second = b, a
		}
		targets := []int64{first.rev, second.rev}
		r1, err1 := first.tick(ctx)
		r2, err2 := second.tick(ctx)
		if err1 != nil || err2 != nil {
			t.Fatalf("round %d: %v, %v", round, err1, err2)
		}
		compacted := 0
		var target int64
		for i, r := range []string{r1, r2} {
			if r == CompactionCompacted {
				compacted++
				target = targets[i]
			}
		}
		if compacted != 1 {
			t.Fatalf("round %d: results %s and %s, want exactly one compaction", round, r1, r2)
		}
		if _, err := testClient.Get(ctx, "/any", clientv3.WithRev(target-1)); !isCompacted(err) {
			t.Errorf("round %d: revision %d below the compaction target %d is readable (%v)", round, target-1, target, err)
		}
		if got, err := s.Get(ctx, "/widgets/default/a", storage.GetOptions{}); err != nil || rvOf(t, got) != rvOf(t, before) {
			t.Fatalf("round %d: latest state %v, %v; want resourceVersion %s", round, got, err, rvOf(t, before))
		}
	}
	if _, err := s.GetList(ctx, "/widgets", storage.ListOptions{Recursive: true, ResourceVersion: rvOf(t, obj), ResourceVersionMatch: "Exact"}); !storage.IsExpired(err) {
		t.Fatalf("list at the first revision after compactions: %v, want Expired", err)
	}
}

// TestCompactorRun: Run compacts on its own at every interval until its
// context ends.
func TestCompactorRun(t *testing.T) {
	s, _ := newTestStore(t, testClient)
	ctx, cancel := context.WithCancel(ctxT(t))
	old := mustCreate(t, s, "/widgets/default/a", newWidget("a", nil))
	if _, err := s.GuaranteedUpdate(ctx, "/widgets/default/a", nil, false, increment, nil); err != nil {
		t.Fatal(err)
	}
	c := NewCompactor(testClient, 100*time.Millisecond)
	done := make(chan error)
	go func() { done <- c.Run(ctx) }()
	for {
		_, err := s.GetList(ctx, "/widgets", storage.ListOptions{Recursive: true, ResourceVersion: old.ResourceVersion, ResourceVersionMatch: "Exact"})
		if storage.IsExpired(err) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// TestCompactorAfterRestart: a compactor started where others have
// compacted before (an apiserver restarted) claims its very first tick,
// so that a server restarted more often than every second interval still
// compacts.
func TestCompactorAfterRestart(t *testing.T) {
	ctx := ctxT(t)
	s, _ := newTestStore(t, testClient)
	mustCreate(t, s, "/widgets/default/a", newWidget("a", nil))
	before := NewCompactor(testClient, time.Hour)
	if err := before.start(ctx); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the key exists after these, whatever ran before
		if _, err := before.tick(ctx); err != nil {
			t.Fatal(err)
		}
	}
	restarted := NewCompactor(testClient, time.Hour)
	if err := restarted.start(ctx); err != nil {
		t.Fatal(err)
	}
	target := restarted.rev
	if _, err := s.GuaranteedUpdate(ctx, "/widgets/default/a", nil, false, increment, nil); err != nil {
		t.Fatal(err)
	}
	if r, err := restarted.tick(ctx); err != nil || r != CompactionCompacted {
		t.Fatalf("first tick after a restart: %s, %v; want %s", r, err, CompactionCompacted)
	}
	if _, err := testClient.Get(ctx, "/any", clientv3.WithRev(target-1)); !isCompacted(err) {
		t.Errorf("revision %d below the compaction target %d is readable (%v)", target-1, target, err)
	}
}
