package workqueue

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The tests of this file are the queue's guarantees under many goroutines;
// they are meant for -race, which `make test` uses.

// TestRateLimitingQueueManyGoroutines runs 48 producers (Add, AddAfter,
// AddRateLimited) and 64 workers (which fail and retry a share of their
// items) on one rate-limited queue with metrics, with readers of Len and
// NumRequeues alongside: no key is ever held by two workers, every key is
// processed after its last add, the queue drains, and the metrics add up.
func TestRateLimitingQueueManyGoroutines(t *testing.T) {
	const (
		producers = 48
		workers   = 64
		readers   = 8
		keys      = 200
		addsEach  = 1500
	)
	metrics := newRecordingProvider()
	q := NewRateLimitingQueueWithConfig(
		NewTypedItemExponentialFailureRateLimiter[string](100*time.Microsecond, 5*time.Millisecond),
		RateLimitingQueueConfig{Name: "stress", MetricsProvider: metrics},
	)
	var (
		busy      [keys]atomic.Bool
		addSeq    [keys]atomic.Int64 // bumped before every add of the key, whatever its kind
		seenSeq   [keys]atomic.Int64 // the highest addSeq a worker saw as it took the key
		gets      atomic.Int64
		retries   atomic.Int64 // AddAfter and AddRateLimited calls
		stopRetry atomic.Bool  // set once the producers are done: workers stop failing
	)
	names := make([]string, keys)
	index := make(map[string]int, keys)
	for i := range names {
		names[i] = fmt.Sprintf("ns-%d/key-%d", i%7, i)
		index[names[i]] = i
	}

	var workerWG sync.WaitGroup
	for range workers {
		workerWG.Go(func() {
			for {
				item, shut := q.Get()
				if shut {
					return
				}
				gets.Add(1)
				i := index[item]
				if !busy[i].CompareAndSwap(false, true) {
					t.Errorf("%s is processed by two workers at once", item)
				}
				if seen := addSeq[i].Load(); seen > seenSeq[i].Load() {
					seenSeq[i].Store(seen) // only this worker holds key i
				}
				if rand.IntN(4) == 0 {
					time.Sleep(time.Duration(rand.IntN(100)) * time.Microsecond)
				}
				busy[i].Store(false)
				if !stopRetry.Load() && rand.IntN(5) == 0 {
					addSeq[i].Add(1)
					retries.Add(1)
					q.AddRateLimited(item) // failed: try again later
				} else {
					q.Forget(item)
				}
				q.Done(item)
			}
		})
	}

	stopReaders := make(chan struct{})
	var readerWG sync.WaitGroup
	for range readers {
		readerWG.Go(func() {
			for {
				select {
				case <-stopReaders:
					return
				default:
				}
				if n := q.Len(); n < 0 || n > keys {
					t.Errorf("Len() = %d with %d keys", n, keys)
				}
				_ = q.NumRequeues(names[rand.IntN(keys)])
				_ = q.ShuttingDown()
				time.Sleep(50 * time.Microsecond)
			}
		})
	}

	var producerWG sync.WaitGroup
	for range producers {
		producerWG.Go(func() {
			for range addsEach {
				i := rand.IntN(keys)
				addSeq[i].Add(1)
				switch rand.IntN(10) {
				case 0:
					retries.Add(1)
					q.AddAfter(names[i], time.Duration(rand.IntN(2000))*time.Microsecond)
				case 1:
					retries.Add(1)
					q.AddRateLimited(names[i])
				default:
					q.Add(names[i])
				}
				if rand.IntN(16) == 0 {
					time.Sleep(time.Duration(rand.IntN(20)) * time.Microsecond)
				}
			}
		})
	}
	producerWG.Wait()
	stopRetry.Store(true)

	// Delayed adds (at most 5 ms away) must land before the shut down, which
	// drops the ones still waiting: wait until every key's last add was seen.
	deadline := time.Now().Add(30 * time.Second)
	for !allSeen(addSeq[:], seenSeq[:]) {
		if time.Now().After(deadline) {
			q.ShutDown()
			workerWG.Wait()
			for i := range keys {
				if last, seen := addSeq[i].Load(), seenSeq[i].Load(); seen != last {
					t.Errorf("%s: last add #%d never processed (last seen #%d)", names[i], last, seen)
				}
			}
			t.FailNow()
		}
		time.Sleep(time.Millisecond)
	}
	finished := make(chan struct{})
	go func() {
		q.ShutDownWithDrain()
		workerWG.Wait()
		close(finished)
	}()
	if !returned(finished, 30*time.Second) {
		q.ShutDown()
		t.Fatalf("the queue did not drain within 30s; %d items handed out", gets.Load())
	}
	close(stopReaders)
	readerWG.Wait()

	if n := q.Len(); n != 0 {
		t.Errorf("Len() = %d after the drain", n)
	}
	metrics.mu.Lock()
	defer metrics.mu.Unlock()
	if depth := metrics.values["stress/depth"]; depth != 0 {
		t.Errorf("depth metric %v after the drain, want 0", depth)
	}
	n := float64(gets.Load())
	if adds := metrics.values["stress/adds"]; adds != n {
		t.Errorf("adds metric %v, want one per item handed out (%v)", adds, n)
	}
	if l := len(metrics.samples["stress/latency"]); float64(l) != n {
		t.Errorf("%d latency samples, want one per item handed out (%v)", l, n)
	}
	if w := len(metrics.samples["stress/work"]); float64(w) != n {
		t.Errorf("%d work duration samples, want one per item handed out (%v)", w, n)
	}
	if r := metrics.values["stress/retries"]; r != float64(retries.Load()) {
		t.Errorf("retries metric %v, want %d", r, retries.Load())
	}
	t.Logf("%d goroutines: %d adds of %d keys, %d retries, %d items handed out",
		producers+workers+readers, producers*addsEach, keys, retries.Load(), gets.Load())
}

func allSeen(added, seen []atomic.Int64) bool {
	for i := range added {
		if seen[i].Load() != added[i].Load() {
			return false
		}
	}
	return true
}

// TestManyAddersOfOneWaitingKey: 64 goroutines add the same key 500 times
// each while no worker takes it; it is handed out once.
func TestManyAddersOfOneWaitingKey(t *testing.T) {
	q := New()
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			for range 500 {
				q.Add("ns/only")
			}
		})
	}
	wg.Wait()
	if n := q.Len(); n != 1 {
		t.Fatalf("Len() = %d after 32,000 adds of one key, want 1", n)
	}
	item, _ := q.Get()
	q.Done(item)
	if n := q.Len(); n != 0 {
		t.Errorf("Len() = %d after the key was processed, want 0", n)
	}
}

// TestManyAddersOfOneKeyInFlight: while a worker holds a key, 64
// goroutines add it; no other worker gets it until Done, and then it is
// handed out exactly once more.
func TestManyAddersOfOneKeyInFlight(t *testing.T) {
	q := New()
	q.Add("ns/k")
	item, _ := q.Get()

	got := make(chan string, 8)
	var getters sync.WaitGroup
	for range 8 {
		getters.Go(func() {
			if it, shut := q.Get(); !shut {
				got <- it
			}
		})
	}
	var adders sync.WaitGroup
	for range 64 {
		adders.Go(func() {
			for range 100 {
				q.Add("ns/k")
			}
		})
	}
	adders.Wait()
	select {
	case it := <-got:
		t.Fatalf("a second worker got %q while the first still holds it", it)
	case <-time.After(20 * time.Millisecond):
	}
	if n := q.Len(); n != 0 {
		t.Errorf("Len() = %d while the only key is held, want 0", n)
	}
	q.Done(item)
	select {
	case it := <-got:
		if it != "ns/k" {
			t.Errorf("got %q", it)
		}
		q.Done(it)
	case <-time.After(10 * time.Second):
		t.Fatal("the key added while held was not handed out after Done")
	}
	select {
	case it := <-got:
		t.Fatalf("%q handed out a third time", it)
	case <-time.After(20 * time.Millisecond):
	}
	q.ShutDown()
	getters.Wait()
}
