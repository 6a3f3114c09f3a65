package etcd

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

func TestStartPutGetRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	start := time.Now()
	s, err := Start(ctx, Config{DataDir: dir, UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ready in %s at %v", time.Since(start), s.ClientURLs())
	if _, err := s.Client().Put(ctx, "/k", "v"); err != nil {
		t.Fatal(err)
	}

	// A second start on the same data dir fails at once with a clear error.
	if _, err := Start(ctx, Config{DataDir: dir}); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second start: got %v, want an in-use error", err)
	}
	s.Close()
	s.Close() // idempotent

	s, err = Start(ctx, Config{DataDir: dir, UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	resp, err := s.Client().Get(ctx, "/k")
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "v" {
		t.Fatalf("after restart got %v, want /k=v", resp.Kvs)
	}
}

func TestStartRejectsBadConfig(t *testing.T) {
	for name, cfg := range map[string]Config{
		"no data dir": {},
		"bad url":     {DataDir: t.TempDir(), ListenClientURLs: []string{"://x"}},
	} {
		if _, err := Start(context.Background(), cfg); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

// TestSingleMemberKeepsAShortRaftLog writes 4,000 values of 8 KiB (32 MiB)
// to a single member: with etcd's default of 5,000 catch-up entries its
// in-memory raft log would hold every one of them (the heap grows by
// ~49 MiB); with singleMemberCatchUpEntries, by 10-16 MiB (500 entries and
// the member's other buffers).
func TestSingleMemberKeepsAShortRaftLog(t *testing.T) {
	ecfg, err := embedConfig(Config{DataDir: t.TempDir()}, &klogCore{})
	if err != nil {
		t.Fatal(err)
	}
	if ecfg.SnapshotCatchUpEntries != singleMemberCatchUpEntries {
		t.Errorf("single member: SnapshotCatchUpEntries %d, want %d", ecfg.SnapshotCatchUpEntries, singleMemberCatchUpEntries)
	}
	multi, err := embedConfig(Config{DataDir: t.TempDir(), Name: "a", InitialCluster: "a=http://127.0.0.1:1"}, &klogCore{})
	if err != nil {
		t.Fatal(err)
	}
	if multi.SnapshotCatchUpEntries != embed.NewConfig().SnapshotCatchUpEntries {
		t.Errorf("multi-member: SnapshotCatchUpEntries %d, want etcd's default", multi.SnapshotCatchUpEntries)
	}

	ctx := context.Background()
	s, err := Start(ctx, Config{DataDir: t.TempDir(), UnsafeNoFsync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	value := strings.Repeat("x", 8<<10)
	before := heap()
	const n = 4000
	for i := range n {
		// Distinct values, as pods' are: etcd keeps each entry's bytes.
		if _, err := s.Client().Put(ctx, fmt.Sprintf("/k/%d", i%50), fmt.Sprintf("%05d", i)+value[5:]); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(300 * time.Millisecond) // the backend commits its batch
	grown := int64(heap()) - int64(before)
	t.Logf("figure: heap grown by %.1f MiB after %d puts of 8 KiB (target: ≤ 24 MiB; every entry kept would be %d MiB)", float64(grown)/(1<<20), n, n*8>>10)
	if grown > 24<<20 {
		t.Errorf("heap grew by %.1f MiB after %d puts of 8 KiB: the raft log keeps too many entries", float64(grown)/(1<<20), n)
	}
}
