package workqueue

import "time"

// unfinishedWorkPeriod is how often a queue with metrics refreshes its
// unfinished-work and longest-running-processor gauges.
const unfinishedWorkPeriod = 500 * time.Millisecond

// GaugeMetric is a value that goes up and down, such as the queue depth.
type GaugeMetric interface {
	Inc()
	Dec()
}

// SettableGaugeMetric is a gauge set to an absolute value.
type SettableGaugeMetric interface {
	Set(float64)
}

// CounterMetric only goes up.
type CounterMetric interface {
	Inc()
}

// HistogramMetric records observations, in seconds for every queue metric.
type HistogramMetric interface {
	Observe(float64)
}

// MetricsProvider makes the metrics of one queue; name is the queue's Name
// from its config. A provider may return nil for a metric it does not keep.
type MetricsProvider interface {
	// NewDepthMetric: items waiting to be handed to a worker.
	NewDepthMetric(name string) GaugeMetric
	// NewAddsMetric: adds that were not deduplicated.
	NewAddsMetric(name string) CounterMetric
	// NewLatencyMetric: seconds an item waited between Add and Get.
	NewLatencyMetric(name string) HistogramMetric
	// NewWorkDurationMetric: seconds between Get and Done.
	NewWorkDurationMetric(name string) HistogramMetric
	// NewUnfinishedWorkSecondsMetric: the sum of the ages of the items being
	// processed, refreshed every 500 ms.
	NewUnfinishedWorkSecondsMetric(name string) SettableGaugeMetric
	// NewLongestRunningProcessorSecondsMetric: the age of the oldest item
	// being processed, refreshed every 500 ms.
	NewLongestRunningProcessorSecondsMetric(name string) SettableGaugeMetric
	// NewRetriesMetric: calls of AddAfter, hence of AddRateLimited.
	NewRetriesMetric(name string) CounterMetric
}

// noopMetric stands in for every metric a provider did not supply.
type noopMetric struct{}

func (noopMetric) Inc()            {}
func (noopMetric) Dec()            {}
func (noopMetric) Set(float64)     {}
func (noopMetric) Observe(float64) {}

var (
	_ GaugeMetric         = noopMetric{}
	_ SettableGaugeMetric = noopMetric{}
	_ CounterMetric       = noopMetric{}
	_ HistogramMetric     = noopMetric{}
)

// orNoop returns m, or the no-op metric when the provider gave nil.
func orNoop[M any](m M) M {
	if any(m) == nil {
		var n any = noopMetric{}
		return n.(M)
	}
	return m
}

// queueMetrics records the metrics of one Typed queue. It is only built when
// the queue has both a Name and a MetricsProvider; the queue's lock guards it.
type queueMetrics[T comparable] struct {
	depth        GaugeMetric
	adds         CounterMetric
	latency      HistogramMetric
	workDuration HistogramMetric
	unfinished   SettableGaugeMetric
	longest      SettableGaugeMetric

	addedAt   map[T]time.Time // when each waiting item was first added
	startedAt map[T]time.Time // when each item in a worker was handed out
}

func newQueueMetrics[T comparable](name string, p MetricsProvider) *queueMetrics[T] {
	if name == "" || p == nil {
		return nil
	}
	return &queueMetrics[T]{
		depth:        orNoop(p.NewDepthMetric(name)),
		adds:         orNoop(p.NewAddsMetric(name)),
		latency:      orNoop(p.NewLatencyMetric(name)),
		workDuration: orNoop(p.NewWorkDurationMetric(name)),
		unfinished:   orNoop(p.NewUnfinishedWorkSecondsMetric(name)),
		longest:      orNoop(p.NewLongestRunningProcessorSecondsMetric(name)),
		addedAt:      make(map[T]time.Time),
		startedAt:    make(map[T]time.Time),
	}
}

// added records an Add that made item dirty.
func (m *queueMetrics[T]) added(item T, now time.Time) {
	m.adds.Inc()
	m.addedAt[item] = now
}

// got records that a worker took item out of the queue.
func (m *queueMetrics[T]) got(item T, now time.Time) {
	m.depth.Dec()
	if at, ok := m.addedAt[item]; ok {
		m.latency.Observe(now.Sub(at).Seconds())
		delete(m.addedAt, item)
	}
	m.startedAt[item] = now
}

// done records that a worker finished item.
func (m *queueMetrics[T]) done(item T, now time.Time) {
	if at, ok := m.startedAt[item]; ok {
		m.workDuration.Observe(now.Sub(at).Seconds())
		delete(m.startedAt, item)
	}
}

// refreshUnfinished sets the two gauges about work still in progress.
func (m *queueMetrics[T]) refreshUnfinished(now time.Time) {
	var total, longest float64
	for _, at := range m.startedAt {
		age := now.Sub(at).Seconds()
		total += age
		longest = max(longest, age)
	}
	m.unfinished.Set(total)
	m.longest.Set(longest)
}
