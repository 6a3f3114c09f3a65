package rest

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestTokenBucketReserve(t *testing.T) {
	now := time.Unix(1000, 0)
	b := newTokenBucket(10, 3, func() time.Time { return now })
	steps := []struct {
		advance time.Duration
		want    time.Duration
	}{
		{want: 0}, {want: 0}, {want: 0}, // the burst
		{want: 100 * time.Millisecond},  // one token short
		{want: 200 * time.Millisecond},  // two short
		{advance: time.Second, want: 0}, // refilled, capped at the burst
		{want: 0},                       //
		{want: 0},                       //
		{want: 100 * time.Millisecond},  //
		{advance: 50 * time.Millisecond, want: 150 * time.Millisecond}, // half a token came back
	}
	for i, s := range steps {
		now = now.Add(s.advance)
		if got := b.reserve(); got.Round(time.Millisecond) != s.want {
			t.Errorf("step %d: wait %v, want %v", i, got, s.want)
		}
	}
}

func TestTokenBucketWaitCancelled(t *testing.T) {
	b := NewTokenBucket(1, 1)
	if err := b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := b.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want deadline exceeded", err)
	}
	// The cancelled waiter gave its token back: the next wait is about 1 s,
	// not 2 s.
	if d := b.reserve(); d > 1100*time.Millisecond {
		t.Errorf("next wait %v", d)
	}
	cancelled, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if err := b.Wait(cancelled); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}
