package workqueue

import (
	"math"
	"sync"
	"time"
)

// TypedRateLimiter decides how long an item waits before it is retried.
type TypedRateLimiter[T comparable] interface {
	// When returns how long item must wait now; each call counts a retry.
	When(item T) time.Duration
	// Forget clears the item's retry history, typically after a success.
	Forget(item T)
	// NumRequeues is how many retries of item were counted since Forget.
	NumRequeues(item T) int
}

// RateLimiter is the rate limiter of string keys.
type RateLimiter = TypedRateLimiter[string]

// DefaultTypedControllerRateLimiter is what controllers use: per item, 5 ms
// doubling up to 1000 s; overall, at most 10 retries a second with bursts of
// 100. The longer of the two delays applies.
func DefaultTypedControllerRateLimiter[T comparable]() TypedRateLimiter[T] {
	return NewTypedMaxOfRateLimiter(
		NewTypedItemExponentialFailureRateLimiter[T](5*time.Millisecond, 1000*time.Second),
		NewTypedBucketRateLimiter[T](10, 100),
	)
}

// DefaultControllerRateLimiter is DefaultTypedControllerRateLimiter for
// string keys.
func DefaultControllerRateLimiter() RateLimiter {
	return DefaultTypedControllerRateLimiter[string]()
}

// DefaultTypedItemBasedRateLimiter backs off each item alone: 1 ms doubling
// up to 1000 s, with no overall limit.
func DefaultTypedItemBasedRateLimiter[T comparable]() TypedRateLimiter[T] {
	return NewTypedItemExponentialFailureRateLimiter[T](time.Millisecond, 1000*time.Second)
}

// DefaultItemBasedRateLimiter is DefaultTypedItemBasedRateLimiter for string
// keys.
func DefaultItemBasedRateLimiter() RateLimiter {
	return DefaultTypedItemBasedRateLimiter[string]()
}

// TypedItemExponentialFailureRateLimiter delays the n-th retry of an item
// (counting from 0) by baseDelay*2^n, capped at maxDelay.
type TypedItemExponentialFailureRateLimiter[T comparable] struct {
	baseDelay time.Duration
	maxDelay  time.Duration

	mu       sync.Mutex
	failures map[T]int
}

var _ TypedRateLimiter[string] = (*TypedItemExponentialFailureRateLimiter[string])(nil)

// NewTypedItemExponentialFailureRateLimiter returns a per-item exponential
// back-off. Negative durations count as zero.
func NewTypedItemExponentialFailureRateLimiter[T comparable](baseDelay, maxDelay time.Duration) *TypedItemExponentialFailureRateLimiter[T] {
	return &TypedItemExponentialFailureRateLimiter[T]{
		baseDelay: max(baseDelay, 0),
		maxDelay:  max(maxDelay, 0),
		failures:  make(map[T]int),
	}
}

// When implements TypedRateLimiter.
func (r *TypedItemExponentialFailureRateLimiter[T]) When(item T) time.Duration {
	r.mu.Lock()
	n := r.failures[item]
	r.failures[item] = n + 1
	r.mu.Unlock()
	return backoff(r.baseDelay, r.maxDelay, n)
}

// backoff is base*2^n capped at limit, without overflowing.
func backoff(base, limit time.Duration, n int) time.Duration {
	if base == 0 {
		return 0
	}
	if n >= 63 || base > limit>>n {
		return limit
	}
	return base << n
}

// Forget implements TypedRateLimiter.
func (r *TypedItemExponentialFailureRateLimiter[T]) Forget(item T) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.failures, item)
}

// NumRequeues implements TypedRateLimiter.
func (r *TypedItemExponentialFailureRateLimiter[T]) NumRequeues(item T) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failures[item]
}

// TypedBucketRateLimiter is a token bucket shared by all items: it holds up to
// burst tokens, refilled at qps a second, and every When takes one. When the
// bucket is empty, When reserves a future token and returns the wait for it.
type TypedBucketRateLimiter[T comparable] struct {
	clock Clock
	qps   float64
	burst float64

	mu     sync.Mutex
	tokens float64   // negative when future tokens are reserved
	last   time.Time // when tokens was last brought up to date
}

var _ TypedRateLimiter[string] = (*TypedBucketRateLimiter[string])(nil)

// NewTypedBucketRateLimiter returns a full token bucket on the wall clock.
// A qps that is not a positive finite number means no limit; a burst below 1
// counts as 1.
func NewTypedBucketRateLimiter[T comparable](qps float64, burst int) *TypedBucketRateLimiter[T] {
	return NewTypedBucketRateLimiterWithClock[T](qps, burst, nil)
}

// NewTypedBucketRateLimiterWithClock is NewTypedBucketRateLimiter on clock;
// nil means the wall clock.
func NewTypedBucketRateLimiterWithClock[T comparable](qps float64, burst int, clock Clock) *TypedBucketRateLimiter[T] {
	if clock == nil {
		clock = RealClock{}
	}
	if !(qps > 0) || math.IsInf(qps, 1) {
		qps = 0
	}
	b := float64(max(burst, 1))
	return &TypedBucketRateLimiter[T]{clock: clock, qps: qps, burst: b, tokens: b, last: clock.Now()}
}

// When implements TypedRateLimiter.
func (r *TypedBucketRateLimiter[T]) When(T) time.Duration {
	if r.qps == 0 {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.clock.Now()
	if elapsed := now.Sub(r.last); elapsed > 0 {
		r.tokens = min(r.burst, r.tokens+elapsed.Seconds()*r.qps)
		r.last = now
	}
	r.tokens--
	if r.tokens >= 0 {
		return 0
	}
	return time.Duration(math.Round(-r.tokens / r.qps * float64(time.Second)))
}

// Forget implements TypedRateLimiter; the bucket keeps no per-item state.
func (r *TypedBucketRateLimiter[T]) Forget(T) {}

// NumRequeues implements TypedRateLimiter; the bucket counts no retries.
func (r *TypedBucketRateLimiter[T]) NumRequeues(T) int { return 0 }

// TypedMaxOfRateLimiter combines limiters: the longest delay and the highest
// retry count win, and Forget reaches every limiter.
type TypedMaxOfRateLimiter[T comparable] struct {
	limiters []TypedRateLimiter[T]
}

var _ TypedRateLimiter[string] = (*TypedMaxOfRateLimiter[string])(nil)

// NewTypedMaxOfRateLimiter combines limiters; nil ones are skipped.
func NewTypedMaxOfRateLimiter[T comparable](limiters ...TypedRateLimiter[T]) *TypedMaxOfRateLimiter[T] {
	r := &TypedMaxOfRateLimiter[T]{}
	for _, l := range limiters {
		if l != nil {
			r.limiters = append(r.limiters, l)
		}
	}
	return r
}

// When implements TypedRateLimiter. Every limiter is asked, so that each
// counts the retry.
func (r *TypedMaxOfRateLimiter[T]) When(item T) time.Duration {
	var d time.Duration
	for _, l := range r.limiters {
		d = max(d, l.When(item))
	}
	return d
}

// Forget implements TypedRateLimiter.
func (r *TypedMaxOfRateLimiter[T]) Forget(item T) {
	for _, l := range r.limiters {
		l.Forget(item)
	}
}

// NumRequeues implements TypedRateLimiter.
func (r *TypedMaxOfRateLimiter[T]) NumRequeues(item T) int {
	var n int
	for _, l := range r.limiters {
		n = max(n, l.NumRequeues(item))
	}
	return n
}
