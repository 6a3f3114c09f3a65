package workqueue

// TypedRateLimitingInterface is a delaying queue whose retries are paced by a
// rate limiter.
type TypedRateLimitingInterface[T comparable] interface {
	TypedDelayingInterface[T]
	// AddRateLimited adds item after the delay the rate limiter gives it.
	AddRateLimited(item T)
	// Forget tells the rate limiter that item is done being retried; the
	// item stays in the queue if it is there.
	Forget(item T)
	// NumRequeues is how many times item was rate-limited since Forget.
	NumRequeues(item T) int
}

// RateLimitingInterface is the rate-limited queue of string keys.
type RateLimitingInterface = TypedRateLimitingInterface[string]

// TypedRateLimitingQueueConfig configures a rate-limited queue. The zero value
// is valid.
type TypedRateLimitingQueueConfig[T comparable] struct {
	// Name labels the metrics; see TypedQueueConfig.
	Name string
	// MetricsProvider makes the metrics; nil means none.
	MetricsProvider MetricsProvider
	// Clock times the delays; nil means the wall clock. The rate limiter
	// keeps its own clock.
	Clock Clock
	// DelayingQueue holds the items; nil means a new delaying queue with the
	// same Name, MetricsProvider and Clock.
	DelayingQueue TypedDelayingInterface[T]
}

// RateLimitingQueueConfig configures a rate-limited queue of string keys.
type RateLimitingQueueConfig = TypedRateLimitingQueueConfig[string]

// NewTypedRateLimitingQueue returns a rate-limited queue of T without metrics.
// A nil limiter means DefaultTypedControllerRateLimiter.
func NewTypedRateLimitingQueue[T comparable](limiter TypedRateLimiter[T]) TypedRateLimitingInterface[T] {
	return NewTypedRateLimitingQueueWithConfig(limiter, TypedRateLimitingQueueConfig[T]{})
}

// NewTypedRateLimitingQueueWithConfig returns a rate-limited queue configured
// by cfg. A nil limiter means DefaultTypedControllerRateLimiter.
func NewTypedRateLimitingQueueWithConfig[T comparable](limiter TypedRateLimiter[T], cfg TypedRateLimitingQueueConfig[T]) TypedRateLimitingInterface[T] {
	if limiter == nil {
		limiter = DefaultTypedControllerRateLimiter[T]()
	}
	if cfg.DelayingQueue == nil {
		cfg.DelayingQueue = NewTypedDelayingQueueWithConfig(TypedDelayingQueueConfig[T]{
			Name:            cfg.Name,
			MetricsProvider: cfg.MetricsProvider,
			Clock:           cfg.Clock,
		})
	}
	return &rateLimitingType[T]{TypedDelayingInterface: cfg.DelayingQueue, limiter: limiter}
}

// NewRateLimitingQueue returns a rate-limited queue of string keys.
func NewRateLimitingQueue(limiter RateLimiter) RateLimitingInterface {
	return NewTypedRateLimitingQueue(limiter)
}

// NewRateLimitingQueueWithConfig returns a rate-limited queue of string keys
// configured by cfg.
func NewRateLimitingQueueWithConfig(limiter RateLimiter, cfg RateLimitingQueueConfig) RateLimitingInterface {
	return NewTypedRateLimitingQueueWithConfig(limiter, cfg)
}

// rateLimitingType asks its limiter for each retry's delay.
type rateLimitingType[T comparable] struct {
	TypedDelayingInterface[T]
	limiter TypedRateLimiter[T]
}

var _ TypedRateLimitingInterface[string] = (*rateLimitingType[string])(nil)

// AddRateLimited implements TypedRateLimitingInterface. A queue that is
// shutting down neither adds the item nor counts a retry.
func (q *rateLimitingType[T]) AddRateLimited(item T) {
	if q.ShuttingDown() {
		return
	}
	q.AddAfter(item, q.limiter.When(item))
}

// Forget implements TypedRateLimitingInterface.
func (q *rateLimitingType[T]) Forget(item T) { q.limiter.Forget(item) }

// NumRequeues implements TypedRateLimitingInterface.
func (q *rateLimitingType[T]) NumRequeues(item T) int { return q.limiter.NumRequeues(item) }
