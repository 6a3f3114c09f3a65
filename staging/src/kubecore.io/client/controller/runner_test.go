package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kubecore.io/client/util/workqueue"
)

func newQueue(base time.Duration) workqueue.TypedRateLimitingInterface[string] {
	return workqueue.NewTypedRateLimitingQueue(workqueue.NewTypedItemExponentialFailureRateLimiter[string](base, time.Second))
}

// runInBackground starts Run and returns a stop function that cancels it and
// returns Run's error.
func runInBackground(t *testing.T, r *Runner, workers int, q workqueue.TypedRateLimitingInterface[string], fn SyncFunc, synced ...func() bool) func() error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- r.Run(ctx, "test", workers, q, fn, synced...) }()
	return func() error {
		cancel()
		select {
		case err := <-errc:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("Run did not return after cancel")
			return nil
		}
	}
}

func TestRunnerRequeuesWithBackoff(t *testing.T) {
	const base = 20 * time.Millisecond
	q := newQueue(base)
	var mu sync.Mutex
	var calls []time.Time
	done := make(chan struct{})
	fn := func(_ context.Context, key string) error {
		mu.Lock()
		defer mu.Unlock()
		calls = append(calls, time.Now())
		if len(calls) <= 3 {
			return fmt.Errorf("attempt %d failed", len(calls))
		}
		close(done)
		return nil
	}
	r := new(Runner)
	stop := runInBackground(t, r, 2, q, fn)
	q.Add("ns/a")
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("key was not retried to success")
	}
	// Done runs after sync returns; give the worker a moment to Forget.
	deadline := time.Now().Add(5 * time.Second)
	for q.NumRequeues("ns/a") != 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if err := stop(); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if n := q.NumRequeues("ns/a"); n != 0 {
		t.Errorf("NumRequeues after success = %d, want 0 (forgotten)", n)
	}
	mu.Lock()
	defer mu.Unlock()
	for i := 1; i < len(calls); i++ {
		want := base << (i - 1)
		if gap := calls[i].Sub(calls[i-1]); gap < want {
			t.Errorf("retry %d came after %v, want at least %v", i, gap, want)
		}
	}
	if r.Syncs() != 4 || r.Errors() != 3 || r.Panics() != 0 {
		t.Errorf("syncs=%d errors=%d panics=%d, want 4 3 0", r.Syncs(), r.Errors(), r.Panics())
	}
}

func TestRunnerRecoversPanics(t *testing.T) {
	q := newQueue(time.Millisecond)
	var n atomic.Int32
	done := make(chan struct{})
	fn := func(_ context.Context, key string) error {
		switch n.Add(1) {
		case 1:
			panic("boom")
		case 2:
			panic(fmt.Errorf("panic with an error value for %s", key))
		default:
			close(done)
		}
		return nil
	}
	r := new(Runner)
	stop := runInBackground(t, r, 1, q, fn)
	q.Add("k")
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("panicking key was not requeued")
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if r.Panics() != 2 || r.Errors() != 2 {
		t.Errorf("panics=%d errors=%d, want 2 2", r.Panics(), r.Errors())
	}
}

func TestRunnerNeverRunsAKeyInTwoWorkers(t *testing.T) {
	q := newQueue(time.Millisecond)
	var inFlight sync.Map // key -> *atomic.Int32
	var violations, total atomic.Int32
	fn := func(_ context.Context, key string) error {
		v, _ := inFlight.LoadOrStore(key, new(atomic.Int32))
		c := v.(*atomic.Int32)
		if c.Add(1) > 1 {
			violations.Add(1)
		}
		time.Sleep(50 * time.Microsecond)
		c.Add(-1)
		if total.Add(1)%7 == 0 {
			return errors.New("transient")
		}
		return nil
	}
	stop := runInBackground(t, new(Runner), 16, q, fn)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				q.Add(fmt.Sprintf("key-%d", (i+w)%10))
			}
		})
	}
	wg.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for q.Len() > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if violations.Load() != 0 {
		t.Fatalf("%d times a key ran in two workers at once", violations.Load())
	}
	if total.Load() < 10 {
		t.Fatalf("only %d syncs ran", total.Load())
	}
}

func TestRunnerWaitsForCaches(t *testing.T) {
	q := newQueue(time.Millisecond)
	var synced atomic.Bool
	var early atomic.Bool
	ran := make(chan struct{}, 1)
	fn := func(context.Context, string) error {
		if !synced.Load() {
			early.Store(true)
		}
		select {
		case ran <- struct{}{}:
		default:
		}
		return nil
	}
	stop := runInBackground(t, new(Runner), 1, q, fn, func() bool { return true }, synced.Load)
	q.Add("k")
	time.Sleep(3 * cacheSyncPeriod)
	select {
	case <-ran:
		t.Fatal("sync ran before the caches synced")
	default:
	}
	synced.Store(true)
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("sync did not run after the caches synced")
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if early.Load() {
		t.Fatal("sync ran before the caches synced")
	}
}

func TestRunnerErrors(t *testing.T) {
	ok := func(context.Context, string) error { return nil }
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name    string
		ctx     context.Context
		workers int
		queue   workqueue.TypedRateLimitingInterface[string]
		fn      SyncFunc
		synced  []func() bool
		wantErr error
	}{
		{name: "no queue", ctx: context.Background(), workers: 1, fn: ok},
		{name: "no sync", ctx: context.Background(), workers: 1, queue: newQueue(time.Millisecond)},
		{name: "no workers", ctx: context.Background(), workers: 0, queue: newQueue(time.Millisecond), fn: ok},
		{name: "caches never sync", ctx: cancelled, workers: 1, queue: newQueue(time.Millisecond), fn: ok,
			synced: []func() bool{func() bool { return false }}, wantErr: ErrCacheSyncStopped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Run(tt.ctx, "test", tt.workers, tt.queue, tt.fn, tt.synced...)
			if err == nil {
				t.Fatal("want an error")
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if tt.queue != nil && !tt.queue.ShuttingDown() {
				t.Error("queue was not shut down")
			}
		})
	}
}
