package etcd

import (
	"context"
	"strings"
	"testing"
	"time"
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
