package rest

import (
	"context"
	"sync"
	"time"
)

// TokenBucket is a RateLimiter allowing qps requests per second on average
// and burst at once. Waiters are served in the order they asked.
type TokenBucket struct {
	qps   float64
	burst float64
	now   func() time.Time

	mu     sync.Mutex
	tokens float64 // may go negative: tokens reserved by waiters
	last   time.Time
}

var _ RateLimiter = (*TokenBucket)(nil)

// NewTokenBucket returns a full bucket. A burst below 1 is taken as 1.
func NewTokenBucket(qps float32, burst int) *TokenBucket {
	return newTokenBucket(qps, burst, time.Now)
}

func newTokenBucket(qps float32, burst int, now func() time.Time) *TokenBucket {
	if burst < 1 {
		burst = 1
	}
	return &TokenBucket{qps: float64(qps), burst: float64(burst), now: now, tokens: float64(burst), last: now()}
}

// reserve takes one token and returns how long the caller must wait for it.
func (b *TokenBucket) reserve() time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.now()
	if elapsed := now.Sub(b.last); elapsed > 0 {
		b.tokens = min(b.burst, b.tokens+elapsed.Seconds()*b.qps)
		b.last = now
	}
	b.tokens--
	if b.tokens >= 0 {
		return 0
	}
	return time.Duration(-b.tokens / b.qps * float64(time.Second))
}

// cancel gives back a token reserved by a waiter that gave up.
func (b *TokenBucket) cancel() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tokens = min(b.burst, b.tokens+1)
}

// Wait blocks until a request may go, or ctx ends.
func (b *TokenBucket) Wait(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d := b.reserve()
	if d <= 0 {
		return nil
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < d {
		b.cancel()
		return context.DeadlineExceeded
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		b.cancel()
		return ctx.Err()
	}
}
