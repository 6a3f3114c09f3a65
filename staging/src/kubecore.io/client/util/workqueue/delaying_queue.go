package workqueue

import (
	"container/heap"
	"sync"
	"time"
)

// TypedDelayingInterface is a queue that can also add an item later.
type TypedDelayingInterface[T comparable] interface {
	TypedInterface[T]
	// AddAfter adds item once d has elapsed; d <= 0 adds it now. If item is
	// already waiting, the earlier of the two deadlines wins. Items still
	// waiting when the queue shuts down are dropped.
	AddAfter(item T, d time.Duration)
}

// DelayingInterface is the delaying queue of string keys.
type DelayingInterface = TypedDelayingInterface[string]

// TypedDelayingQueueConfig configures a delaying queue. The zero value is valid.
type TypedDelayingQueueConfig[T comparable] struct {
	// Name labels the metrics; see TypedQueueConfig.
	Name string
	// MetricsProvider makes the metrics; nil means none.
	MetricsProvider MetricsProvider
	// Clock times the delays; nil means the wall clock.
	Clock Clock
	// Queue receives the items when they are due; nil means a new Typed
	// queue with the same Name, MetricsProvider and Clock.
	Queue TypedInterface[T]
}

// DelayingQueueConfig configures a delaying queue of string keys.
type DelayingQueueConfig = TypedDelayingQueueConfig[string]

// NewTypedDelayingQueue returns a delaying queue of T without metrics.
func NewTypedDelayingQueue[T comparable]() TypedDelayingInterface[T] {
	return NewTypedDelayingQueueWithConfig(TypedDelayingQueueConfig[T]{})
}

// NewTypedDelayingQueueWithConfig returns a delaying queue configured by cfg.
func NewTypedDelayingQueueWithConfig[T comparable](cfg TypedDelayingQueueConfig[T]) TypedDelayingInterface[T] {
	if cfg.Clock == nil {
		cfg.Clock = RealClock{}
	}
	if cfg.Queue == nil {
		cfg.Queue = NewTypedWithConfig(TypedQueueConfig[T]{
			Name:            cfg.Name,
			MetricsProvider: cfg.MetricsProvider,
			Clock:           cfg.Clock,
		})
	}
	var retries CounterMetric = noopMetric{}
	if cfg.Name != "" && cfg.MetricsProvider != nil {
		retries = orNoop(cfg.MetricsProvider.NewRetriesMetric(cfg.Name))
	}
	return &delayingType[T]{
		TypedInterface: cfg.Queue,
		clock:          cfg.Clock,
		retries:        retries,
		index:          make(map[T]*waitEntry[T]),
	}
}

// NewDelayingQueue returns a delaying queue of string keys without metrics.
func NewDelayingQueue() DelayingInterface { return NewTypedDelayingQueue[string]() }

// NewDelayingQueueWithConfig returns a delaying queue of string keys.
func NewDelayingQueueWithConfig(cfg DelayingQueueConfig) DelayingInterface {
	return NewTypedDelayingQueueWithConfig(cfg)
}

// delayingType keeps the waiting items in a min-heap by deadline and arms one
// timer for the earliest; when it fires, every due item moves to the queue.
type delayingType[T comparable] struct {
	TypedInterface[T]
	clock   Clock
	retries CounterMetric

	mu      sync.Mutex
	waiting waitHeap[T]
	index   map[T]*waitEntry[T] // the waiting entry of each item
	seq     uint64              // orders entries with equal deadlines
	timer   Timer               // nil when no timer is armed
	armedAt time.Time           // deadline the timer was armed for
	gen     uint64              // identifies the armed timer, so a stale one does nothing
	stopped bool
}

var _ TypedDelayingInterface[string] = (*delayingType[string])(nil)

// AddAfter implements TypedDelayingInterface.
func (q *delayingType[T]) AddAfter(item T, d time.Duration) {
	if q.ShuttingDown() {
		return
	}
	q.retries.Inc()
	if d <= 0 {
		q.Add(item)
		return
	}
	readyAt := q.clock.Now().Add(d)

	q.mu.Lock()
	defer q.mu.Unlock()
	if q.stopped {
		return
	}
	if e, ok := q.index[item]; ok {
		if readyAt.Before(e.readyAt) {
			e.readyAt = readyAt
			heap.Fix(&q.waiting, e.index)
		}
	} else {
		q.seq++
		e := &waitEntry[T]{item: item, readyAt: readyAt, seq: q.seq}
		heap.Push(&q.waiting, e)
		q.index[item] = e
	}
	q.armLocked()
}

// armLocked makes sure a timer is armed for the earliest waiting deadline.
func (q *delayingType[T]) armLocked() {
	if len(q.waiting) == 0 {
		return
	}
	next := q.waiting[0].readyAt
	if q.timer != nil {
		if !q.armedAt.After(next) {
			return // the armed timer fires first; it re-arms for the rest
		}
		q.timer.Stop()
	}
	q.gen++
	gen := q.gen
	q.armedAt = next
	q.timer = q.clock.AfterFunc(next.Sub(q.clock.Now()), func() { q.fire(gen) })
}

// fire moves every due item to the queue, in deadline order, and re-arms.
func (q *delayingType[T]) fire(gen uint64) {
	q.mu.Lock()
	if q.stopped || gen != q.gen {
		q.mu.Unlock()
		return
	}
	q.timer = nil
	now := q.clock.Now()
	var due []T
	for len(q.waiting) > 0 && !q.waiting[0].readyAt.After(now) {
		e := heap.Pop(&q.waiting).(*waitEntry[T])
		delete(q.index, e.item)
		due = append(due, e.item)
	}
	q.armLocked()
	q.mu.Unlock()

	for _, item := range due {
		q.Add(item)
	}
}

// stop cancels the timer and drops the waiting items.
func (q *delayingType[T]) stop() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.stopped = true
	if q.timer != nil {
		q.timer.Stop()
		q.timer = nil
	}
	q.waiting = nil
	clear(q.index)
}

// ShutDown implements TypedInterface.
func (q *delayingType[T]) ShutDown() {
	q.stop()
	q.TypedInterface.ShutDown()
}

// ShutDownWithDrain implements TypedInterface.
func (q *delayingType[T]) ShutDownWithDrain() {
	q.stop()
	q.TypedInterface.ShutDownWithDrain()
}

// waitEntry is an item waiting for its deadline.
type waitEntry[T comparable] struct {
	item    T
	readyAt time.Time
	seq     uint64
	index   int // position in the heap
}

// waitHeap is a container/heap of entries, earliest deadline first.
type waitHeap[T comparable] []*waitEntry[T]

var _ heap.Interface = (*waitHeap[string])(nil)

func (h waitHeap[T]) Len() int { return len(h) }

func (h waitHeap[T]) Less(i, j int) bool {
	if h[i].readyAt.Equal(h[j].readyAt) {
		return h[i].seq < h[j].seq
	}
	return h[i].readyAt.Before(h[j].readyAt)
}

func (h waitHeap[T]) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}

func (h *waitHeap[T]) Push(x any) {
	e := x.(*waitEntry[T])
	e.index = len(*h)
	*h = append(*h, e)
}

func (h *waitHeap[T]) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return e
}
