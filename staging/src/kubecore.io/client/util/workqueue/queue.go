package workqueue

import (
	"sync"
)

// TypedInterface is a work queue of keys of type T. A key added several times
// while it waits is handed out once, and a key is never held by two workers at
// once: adding it while a worker holds it queues it again after Done.
type TypedInterface[T comparable] interface {
	// Add queues item unless it is already waiting; it does nothing once the
	// queue is shutting down.
	Add(item T)
	// Len is the number of items waiting to be handed out.
	Len() int
	// Get blocks until an item is waiting and hands it out; the caller must
	// call Done with it when finished. After a shut down, Get still hands out
	// the items left, then returns shutdown=true.
	Get() (item T, shutdown bool)
	// Done marks item as finished; if it was added meanwhile it is queued
	// again. Done of an item that is not being processed does nothing.
	Done(item T)
	// ShutDown makes the queue ignore new items and wakes every Get.
	ShutDown()
	// ShutDownWithDrain is ShutDown that then waits until every item handed
	// out has been passed to Done (or until ShutDown is called).
	ShutDownWithDrain()
	// ShuttingDown reports whether ShutDown or ShutDownWithDrain was called.
	ShuttingDown() bool
}

// Interface is the queue of string keys ("namespace/name") controllers use.
type Interface = TypedInterface[string]

// TypedQueueConfig configures a Typed queue. The zero value is valid.
type TypedQueueConfig[T comparable] struct {
	// Name labels the queue's metrics. A queue without a Name, or without a
	// MetricsProvider, records no metrics.
	Name string
	// MetricsProvider makes the queue's metrics; nil means none.
	MetricsProvider MetricsProvider
	// Clock times the metrics; nil means the wall clock.
	Clock Clock
}

// QueueConfig configures a queue of string keys.
type QueueConfig = TypedQueueConfig[string]

// itemState says where a known item is; items in neither state are forgotten.
type itemState uint8

const (
	// stateDirty: the item is to be handed out, and sits in the fifo unless
	// it is also being processed (then Done puts it there).
	stateDirty itemState = 1 << iota
	// stateProcessing: a worker holds the item.
	stateProcessing
)

// Typed is the basic work queue. Make one with NewTyped or NewTypedWithConfig.
type Typed[T comparable] struct {
	clock   Clock
	metrics *queueMetrics[T] // nil when the queue records no metrics

	mu           sync.Mutex
	ready        sync.Cond // signalled when an item is pushed or on shut down
	idle         sync.Cond // broadcast when a drain may end
	fifo         fifo[T]
	state        map[T]itemState
	processing   int // items in stateProcessing
	shuttingDown bool
	draining     bool
	metricsTimer Timer // refreshes the unfinished-work gauges; nil when stopped
}

var _ TypedInterface[string] = (*Typed[string])(nil)

// NewTyped returns a queue of T without metrics.
func NewTyped[T comparable]() *Typed[T] {
	return NewTypedWithConfig(TypedQueueConfig[T]{})
}

// NewTypedWithConfig returns a queue of T configured by cfg.
func NewTypedWithConfig[T comparable](cfg TypedQueueConfig[T]) *Typed[T] {
	q := &Typed[T]{
		clock:   cfg.Clock,
		metrics: newQueueMetrics[T](cfg.Name, cfg.MetricsProvider),
		state:   make(map[T]itemState),
	}
	if q.clock == nil {
		q.clock = RealClock{}
	}
	q.ready.L = &q.mu
	q.idle.L = &q.mu
	if q.metrics != nil {
		q.metricsTimer = q.clock.AfterFunc(unfinishedWorkPeriod, q.refreshUnfinished)
	}
	return q
}

// New returns a queue of string keys without metrics.
func New() *Typed[string] { return NewTyped[string]() }

// NewWithConfig returns a queue of string keys configured by cfg.
func NewWithConfig(cfg QueueConfig) *Typed[string] { return NewTypedWithConfig(cfg) }

// Add implements TypedInterface.
func (q *Typed[T]) Add(item T) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shuttingDown {
		return
	}
	s := q.state[item]
	if s&stateDirty != 0 {
		return
	}
	q.state[item] = s | stateDirty
	if q.metrics != nil {
		q.metrics.added(item, q.clock.Now())
	}
	if s&stateProcessing == 0 {
		q.pushLocked(item)
	}
}

func (q *Typed[T]) pushLocked(item T) {
	q.fifo.push(item)
	if q.metrics != nil {
		q.metrics.depth.Inc()
	}
	q.ready.Signal()
}

// Len implements TypedInterface.
func (q *Typed[T]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.fifo.len()
}

// Get implements TypedInterface.
func (q *Typed[T]) Get() (item T, shutdown bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.fifo.len() == 0 && !q.shuttingDown {
		q.ready.Wait()
	}
	if q.fifo.len() == 0 {
		return item, true
	}
	item = q.fifo.pop()
	q.state[item] = stateProcessing
	q.processing++
	if q.metrics != nil {
		q.metrics.got(item, q.clock.Now())
	}
	return item, false
}

// Done implements TypedInterface.
func (q *Typed[T]) Done(item T) {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := q.state[item]
	if s&stateProcessing == 0 {
		return
	}
	q.processing--
	if q.metrics != nil {
		q.metrics.done(item, q.clock.Now())
	}
	if s&stateDirty != 0 {
		q.state[item] = stateDirty
		q.pushLocked(item)
	} else {
		delete(q.state, item)
	}
	if q.processing == 0 && q.draining {
		q.idle.Broadcast()
	}
}

// ShutDown implements TypedInterface. It also ends a ShutDownWithDrain that
// is still waiting.
func (q *Typed[T]) ShutDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.shuttingDown = true
	q.draining = false
	q.stopMetricsLocked()
	q.ready.Broadcast()
	q.idle.Broadcast()
}

// ShutDownWithDrain implements TypedInterface. Workers must go on calling Get
// and Done until Get reports shutdown, or ShutDownWithDrain never returns.
func (q *Typed[T]) ShutDownWithDrain() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.shuttingDown = true
	q.draining = true
	q.ready.Broadcast()
	for q.draining && q.processing > 0 {
		q.idle.Wait()
	}
	q.stopMetricsLocked()
}

// ShuttingDown implements TypedInterface.
func (q *Typed[T]) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shuttingDown
}

// refreshUnfinished updates the unfinished-work gauges and re-arms itself
// until the queue shuts down.
func (q *Typed[T]) refreshUnfinished() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.metricsTimer == nil {
		return
	}
	q.metrics.refreshUnfinished(q.clock.Now())
	q.metricsTimer = q.clock.AfterFunc(unfinishedWorkPeriod, q.refreshUnfinished)
}

func (q *Typed[T]) stopMetricsLocked() {
	if q.metricsTimer != nil {
		q.metricsTimer.Stop()
		q.metricsTimer = nil
	}
}
