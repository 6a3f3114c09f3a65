package workqueue

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// Each benchmark op moves a whole batch of items, so that the ops/s figure
// (items through the queue per second) holds even at -benchtime=1x, which is
// what `make bench` runs.

const (
	benchBatch = 1 << 16 // items per op, single goroutine
	benchKeys  = 1024    // distinct keys each goroutine cycles through
)

// reportItemsPerSecond reports items/s as a metric and prints it as a
// figure on stdout, where `make bench` shows it; issue 4 sets no target.
func reportItemsPerSecond(b *testing.B, name string, items int) {
	s := b.Elapsed().Seconds()
	if s <= 0 {
		return
	}
	rate := float64(items) / s
	b.ReportMetric(rate, "ops/s")
	fmt.Printf("figure: %-62s %12.0f %-4s (target none set)\n", name, rate, "/s")
}

func makeKeys(prefix string, n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("%s/pod-%d", prefix, i)
	}
	return keys
}

// BenchmarkQueueAddGetDone: one goroutine adds a key, gets it and marks it
// done, over and over.
func BenchmarkQueueAddGetDone(b *testing.B) {
	keys := makeKeys("default", benchKeys)
	q := New()
	b.ReportAllocs()
	items := 0
	for b.Loop() {
		for i := range benchBatch {
			q.Add(keys[i%benchKeys])
			item, _ := q.Get()
			q.Done(item)
		}
		items += benchBatch
	}
	reportItemsPerSecond(b, "workqueue add/get/done, 1 goroutine (items/s)", items)
}

// BenchmarkQueueParallel: GOMAXPROCS goroutines each add one of their own
// keys, then get and finish whatever comes out, contending on one queue. It
// starts its own goroutines rather than use b.RunParallel, which at
// -benchtime=1x runs a single item on a single goroutine.
// Keys of one goroutine repeat only every benchKeys adds, long after the
// FIFO (never deeper than the goroutine count) has handed them out, so no
// add is deduplicated away and every Get is matched.
func BenchmarkQueueParallel(b *testing.B) {
	workers := runtime.GOMAXPROCS(0)
	perWorker := benchBatch / workers
	keys := make([][]string, workers)
	for w := range keys {
		keys[w] = makeKeys(fmt.Sprintf("ns-%d", w), benchKeys)
	}
	q := New()
	b.ReportAllocs()
	items := 0
	for b.Loop() {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := range perWorker {
					q.Add(keys[w][i%benchKeys])
					item, _ := q.Get()
					q.Done(item)
				}
			})
		}
		wg.Wait()
		items += workers * perWorker
	}
	b.ReportMetric(float64(workers), "goroutines")
	reportItemsPerSecond(b, fmt.Sprintf("workqueue add/get/done, %d goroutines (items/s)", workers), items)
}

// BenchmarkRateLimitingQueue: a batch of keys fails once (AddRateLimited with
// the controller's per-item back-off, 5 ms), comes due together on a fake
// clock, and is processed and forgotten: limiter, delay heap, timer and queue.
func BenchmarkRateLimitingQueue(b *testing.B) {
	const batch = 1 << 14
	keys := makeKeys("default", batch)
	clock := newFakeClock()
	q := NewRateLimitingQueueWithConfig(
		NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 1000*time.Second),
		RateLimitingQueueConfig{Clock: clock},
	)
	defer q.ShutDown()
	b.ReportAllocs()
	items := 0
	for b.Loop() {
		for _, k := range keys {
			q.AddRateLimited(k)
		}
		clock.Step(5 * time.Millisecond)
		for range batch {
			item, _ := q.Get()
			q.Forget(item)
			q.Done(item)
		}
		items += batch
	}
	reportItemsPerSecond(b, "rate-limited queue: AddRateLimited/Get/Forget/Done (items/s)", items)
}
