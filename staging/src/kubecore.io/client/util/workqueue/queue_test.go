package workqueue

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// step is one operation of a scripted queue test.
type step struct {
	op   string // add, get, done, len, shutdown
	item string // item to add or finish; item get must return
	n    int    // len: expected Len
	shut bool   // get: expected shutdown
}

func add(item string) step  { return step{op: "add", item: item} }
func get(item string) step  { return step{op: "get", item: item} }
func done(item string) step { return step{op: "done", item: item} }
func length(n int) step     { return step{op: "len", n: n} }

var (
	getShutdown = step{op: "get", shut: true}
	shutDown    = step{op: "shutdown"}
)

// runSteps plays steps against q; a get that would block is a failure.
func runSteps(t *testing.T, q TypedInterface[string], steps []step) {
	t.Helper()
	for i, s := range steps {
		switch s.op {
		case "add":
			q.Add(s.item)
		case "done":
			q.Done(s.item)
		case "shutdown":
			q.ShutDown()
		case "len":
			if got := q.Len(); got != s.n {
				t.Fatalf("step %d: Len() = %d, want %d", i, got, s.n)
			}
		case "get":
			if q.Len() == 0 && !q.ShuttingDown() {
				t.Fatalf("step %d: Get would block on an empty queue", i)
			}
			item, shut := q.Get()
			if item != s.item || shut != s.shut {
				t.Fatalf("step %d: Get() = (%q, %v), want (%q, %v)", i, item, shut, s.item, s.shut)
			}
		default:
			t.Fatalf("step %d: unknown op %q", i, s.op)
		}
	}
}

func TestQueueScripts(t *testing.T) {
	cases := []struct {
		name  string
		steps []step
	}{{
		name:  "first in, first out",
		steps: []step{add("a"), add("b"), add("c"), length(3), get("a"), get("b"), get("c"), length(0)},
	}, {
		name:  "an item added twice while waiting is handed out once",
		steps: []step{add("a"), add("b"), add("a"), add("b"), add("a"), length(2), get("a"), get("b"), length(0)},
	}, {
		name: "an item added while processing waits for Done",
		steps: []step{
			add("a"), get("a"), add("a"), length(0), add("a"), length(0),
			done("a"), length(1), get("a"), done("a"), length(0),
		},
	}, {
		name:  "an item processed without new adds is forgotten after Done",
		steps: []step{add("a"), get("a"), done("a"), length(0), add("a"), length(1), get("a")},
	}, {
		name:  "Done of an item not being processed does nothing",
		steps: []step{done("x"), length(0), add("a"), done("a"), length(1), get("a"), done("a"), done("a"), length(0)},
	}, {
		name: "the re-queued item goes to the back",
		steps: []step{
			add("a"), get("a"), add("b"), add("a"), done("a"), length(2), get("b"), get("a"),
		},
	}, {
		name:  "after ShutDown adds are ignored and the items left are handed out",
		steps: []step{add("a"), add("b"), shutDown, add("c"), length(2), get("a"), get("b"), getShutdown, getShutdown},
	}, {
		name:  "a dirty item is re-queued by Done even when shutting down",
		steps: []step{add("a"), get("a"), add("a"), shutDown, done("a"), get("a"), done("a"), getShutdown},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			runSteps(t, New(), tc.steps)
		})
	}
}

func TestQueueFIFOAcrossResizes(t *testing.T) {
	q := NewTyped[int]()
	next, want := 0, 0
	// Interleave bursts so that the ring wraps, grows and shrinks.
	for _, burst := range []int{5, 100, 3, 1000, 7, 300} {
		for range burst {
			q.Add(next)
			next++
		}
		for range burst / 2 {
			got, _ := q.Get()
			if got != want {
				t.Fatalf("Get() = %d, want %d", got, want)
			}
			q.Done(got)
			want++
		}
	}
	for want < next {
		got, _ := q.Get()
		if got != want {
			t.Fatalf("Get() = %d, want %d", got, want)
		}
		want++
	}
}

func TestGetBlocksUntilAdd(t *testing.T) {
	q := New()
	got := make(chan string)
	go func() {
		item, _ := q.Get()
		got <- item
	}()
	select {
	case item := <-got:
		t.Fatalf("Get returned %q from an empty queue", item)
	case <-time.After(10 * time.Millisecond):
	}
	q.Add("a")
	select {
	case item := <-got:
		if item != "a" {
			t.Fatalf("Get() = %q, want a", item)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Get did not return after Add")
	}
}

func TestShutDownWakesEveryGet(t *testing.T) {
	q := New()
	const getters = 5
	results := make(chan bool, getters)
	for range getters {
		go func() {
			_, shut := q.Get()
			results <- shut
		}()
	}
	q.ShutDown()
	for range getters {
		select {
		case shut := <-results:
			if !shut {
				t.Fatal("Get after ShutDown of an empty queue reported no shutdown")
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a Get stayed blocked after ShutDown")
		}
	}
}

// returned reports whether ch is closed within wait.
func returned(ch <-chan struct{}, wait time.Duration) bool {
	select {
	case <-ch:
		return true
	case <-time.After(wait):
		return false
	}
}

func TestShutDownWithDrainWaitsForDone(t *testing.T) {
	q := New()
	q.Add("a")
	q.Add("b")
	q.Add("c")
	a, _ := q.Get()
	b, _ := q.Get()

	drained := make(chan struct{})
	go func() {
		q.ShutDownWithDrain()
		close(drained)
	}()
	for !q.ShuttingDown() {
		time.Sleep(time.Millisecond)
	}
	q.Add("d") // ignored while draining
	if returned(drained, 20*time.Millisecond) {
		t.Fatal("ShutDownWithDrain returned with two items in flight")
	}
	q.Done(a)
	if returned(drained, 20*time.Millisecond) {
		t.Fatal("ShutDownWithDrain returned with one item in flight")
	}
	q.Done(b)
	if !returned(drained, 5*time.Second) {
		t.Fatal("ShutDownWithDrain did not return after the last Done")
	}
	// The item left over is still handed out, then Get reports shutdown.
	runSteps(t, q, []step{length(1), get("c"), done("c"), getShutdown})
}

func TestShutDownEndsAWaitingDrain(t *testing.T) {
	q := New()
	q.Add("a")
	q.Get()
	drained := make(chan struct{})
	go func() {
		q.ShutDownWithDrain()
		close(drained)
	}()
	for !q.ShuttingDown() {
		time.Sleep(time.Millisecond)
	}
	q.ShutDown()
	if !returned(drained, 5*time.Second) {
		t.Fatal("ShutDown did not end ShutDownWithDrain")
	}
}

func TestShutDownWithDrainOfIdleQueueReturns(t *testing.T) {
	q := New()
	done := make(chan struct{})
	go func() {
		q.ShutDownWithDrain()
		close(done)
	}()
	if !returned(done, 5*time.Second) {
		t.Fatal("ShutDownWithDrain of an idle queue blocked")
	}
	runSteps(t, q, []step{getShutdown})
}

// TestNoConcurrentProcessing runs producers and workers on a small key set:
// no key may be in two workers at once, and every key must be processed after
// its last Add.
func TestNoConcurrentProcessing(t *testing.T) {
	const (
		producers = 8
		workers   = 8
		keys      = 16
		addsEach  = 5000
	)
	q := New()
	var (
		busy      [keys]atomic.Bool
		addSeq    [keys]atomic.Int64 // bumped before every Add of the key
		seenSeq   [keys]atomic.Int64 // addSeq as a worker saw it when it took the key
		processed atomic.Int64
	)
	names := make([]string, keys)
	index := make(map[string]int, keys)
	for i := range names {
		names[i] = fmt.Sprintf("ns/key-%d", i)
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
				i := index[item]
				if !busy[i].CompareAndSwap(false, true) {
					t.Errorf("%s is processed by two workers at once", item)
				}
				seen := addSeq[i].Load()
				if seen > seenSeq[i].Load() {
					seenSeq[i].Store(seen) // only this worker holds key i
				}
				if rand.IntN(2) == 0 {
					time.Sleep(time.Duration(rand.IntN(50)) * time.Microsecond)
				}
				processed.Add(1)
				busy[i].Store(false)
				q.Done(item)
			}
		})
	}

	var producerWG sync.WaitGroup
	for range producers {
		producerWG.Go(func() {
			for range addsEach {
				i := rand.IntN(keys)
				addSeq[i].Add(1)
				q.Add(names[i])
				if rand.IntN(8) == 0 { // let the workers catch up, so that many adds meet a key in flight
					time.Sleep(time.Duration(rand.IntN(20)) * time.Microsecond)
				}
			}
		})
	}
	producerWG.Wait()
	finished := make(chan struct{})
	go func() {
		q.ShutDownWithDrain()
		workerWG.Wait()
		close(finished)
	}()
	if !returned(finished, 30*time.Second) {
		q.ShutDown() // let the workers go, then report what went wrong
		t.Fatalf("the queue did not drain within 30s; %d items processed", processed.Load())
	}

	for i := range keys {
		if last, seen := addSeq[i].Load(), seenSeq[i].Load(); seen != last {
			t.Errorf("%s: last add #%d was never processed (last seen #%d)", names[i], last, seen)
		}
	}
	if n := processed.Load(); n > producers*addsEach || n < keys {
		t.Errorf("processed %d items for %d adds of %d keys", n, producers*addsEach, keys)
	}
	t.Logf("%d adds of %d keys were processed %d times", producers*addsEach, keys, processed.Load())
}
