package workqueue

import (
	"maps"
	"slices"
	"sync"
	"testing"
	"time"
)

// recordingProvider keeps every metric it made, by "queue/metric", and what
// the queue did to each.
type recordingProvider struct {
	mu      sync.Mutex
	values  map[string]float64   // gauges and counters
	samples map[string][]float64 // histograms
}

var _ MetricsProvider = (*recordingProvider)(nil)

func newRecordingProvider() *recordingProvider {
	return &recordingProvider{values: map[string]float64{}, samples: map[string][]float64{}}
}

type recordedMetric struct {
	p   *recordingProvider
	key string
}

func (m recordedMetric) Inc() { m.add(1) }
func (m recordedMetric) Dec() { m.add(-1) }

func (m recordedMetric) add(v float64) {
	m.p.mu.Lock()
	defer m.p.mu.Unlock()
	m.p.values[m.key] += v
}

func (m recordedMetric) Set(v float64) {
	m.p.mu.Lock()
	defer m.p.mu.Unlock()
	m.p.values[m.key] = v
}

func (m recordedMetric) Observe(v float64) {
	m.p.mu.Lock()
	defer m.p.mu.Unlock()
	m.p.samples[m.key] = append(m.p.samples[m.key], v)
}

func (p *recordingProvider) metric(name, what string) recordedMetric {
	key := name + "/" + what
	p.mu.Lock()
	defer p.mu.Unlock()
	p.values[key] += 0 // shows that the metric was made
	return recordedMetric{p: p, key: key}
}

func (p *recordingProvider) NewDepthMetric(name string) GaugeMetric {
	return p.metric(name, "depth")
}
func (p *recordingProvider) NewAddsMetric(name string) CounterMetric {
	return p.metric(name, "adds")
}
func (p *recordingProvider) NewLatencyMetric(name string) HistogramMetric {
	return p.metric(name, "latency")
}
func (p *recordingProvider) NewWorkDurationMetric(name string) HistogramMetric {
	return p.metric(name, "work")
}
func (p *recordingProvider) NewUnfinishedWorkSecondsMetric(name string) SettableGaugeMetric {
	return p.metric(name, "unfinished")
}
func (p *recordingProvider) NewLongestRunningProcessorSecondsMetric(name string) SettableGaugeMetric {
	return p.metric(name, "longest")
}
func (p *recordingProvider) NewRetriesMetric(name string) CounterMetric {
	return p.metric(name, "retries")
}

func (p *recordingProvider) value(key string) float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.values[key]
}

func (p *recordingProvider) observed(key string) []float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.samples[key])
}

func (p *recordingProvider) keys() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Sorted(maps.Keys(p.values))
}

func TestQueueMetrics(t *testing.T) {
	clock := newFakeClock()
	p := newRecordingProvider()
	limiter := NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Minute)
	q := NewRateLimitingQueueWithConfig(limiter, RateLimitingQueueConfig{
		Name: "pods", MetricsProvider: p, Clock: clock,
	})

	wantKeys := []string{"pods/adds", "pods/depth", "pods/latency", "pods/longest", "pods/retries", "pods/unfinished", "pods/work"}
	if got := p.keys(); !slices.Equal(got, wantKeys) {
		t.Fatalf("metrics made = %q, want %q", got, wantKeys)
	}

	type check struct {
		key  string
		want float64
	}
	expect := func(when string, checks ...check) {
		t.Helper()
		for _, c := range checks {
			if got := p.value(c.key); got != c.want {
				t.Errorf("%s: %s = %v, want %v", when, c.key, got, c.want)
			}
		}
	}
	expectSamples := func(when, key string, want ...float64) {
		t.Helper()
		if got := p.observed(key); !slices.Equal(got, want) {
			t.Errorf("%s: %s observed %v, want %v", when, key, got, want)
		}
	}

	q.Add("a")
	q.Add("a") // deduplicated: not counted
	q.Add("b")
	expect("two adds", check{"pods/adds", 2}, check{"pods/depth", 2})

	clock.Step(time.Second)
	q.Get() // a waited 1 s
	expect("first get", check{"pods/depth", 1})
	expectSamples("first get", "pods/latency", 1)

	clock.Step(2 * time.Second) // refresh: a in flight for 2 s
	expect("a in flight", check{"pods/unfinished", 2}, check{"pods/longest", 2})

	q.Get() // b waited 3 s
	expectSamples("second get", "pods/latency", 1, 3)
	clock.Step(time.Second) // a 3 s, b 1 s
	expect("a and b in flight", check{"pods/unfinished", 4}, check{"pods/longest", 3}, check{"pods/depth", 0})

	q.Done("a")
	expectSamples("done a", "pods/work", 3)
	q.AddRateLimited("b") // b is processing: counted as a retry, not yet queued
	q.Done("b")
	expectSamples("done b", "pods/work", 3, 1)
	expect("retry", check{"pods/retries", 1}, check{"pods/adds", 2}, check{"pods/depth", 0})

	clock.Step(time.Second) // b is due
	expect("retry due", check{"pods/adds", 3}, check{"pods/depth", 1},
		check{"pods/unfinished", 0}, check{"pods/longest", 0})

	q.ShutDown()
	if n := clock.Pending(); n != 0 {
		t.Errorf("%d timers still armed after ShutDown", n)
	}
}

func TestNoMetricsWithoutName(t *testing.T) {
	clock := newFakeClock()
	p := newRecordingProvider()
	q := NewTypedRateLimitingQueueWithConfig(DefaultTypedControllerRateLimiter[string](),
		TypedRateLimitingQueueConfig[string]{MetricsProvider: p, Clock: clock})
	q.Add("a")
	q.Get()
	q.Done("a")
	if keys := p.keys(); len(keys) != 0 {
		t.Fatalf("a queue without a Name made metrics %q", keys)
	}
	if n := clock.Pending(); n != 0 {
		t.Fatalf("a queue without metrics armed %d timers", n)
	}
}

// nilProvider returns nil for every metric.
type nilProvider struct{}

func (nilProvider) NewDepthMetric(string) GaugeMetric                                  { return nil }
func (nilProvider) NewAddsMetric(string) CounterMetric                                 { return nil }
func (nilProvider) NewLatencyMetric(string) HistogramMetric                            { return nil }
func (nilProvider) NewWorkDurationMetric(string) HistogramMetric                       { return nil }
func (nilProvider) NewUnfinishedWorkSecondsMetric(string) SettableGaugeMetric          { return nil }
func (nilProvider) NewLongestRunningProcessorSecondsMetric(string) SettableGaugeMetric { return nil }
func (nilProvider) NewRetriesMetric(string) CounterMetric                              { return nil }

func TestProviderReturningNilMetrics(t *testing.T) {
	clock := newFakeClock()
	q := NewRateLimitingQueueWithConfig(nil, RateLimitingQueueConfig{
		Name: "partial", MetricsProvider: nilProvider{}, Clock: clock,
	})
	q.Add("a")
	q.AddAfter("b", time.Second)
	clock.Step(time.Second)
	runSteps(t, q, []step{get("a"), get("b"), done("a"), done("b"), shutDown, getShutdown})
}
