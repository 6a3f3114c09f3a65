package workqueue

import (
	"testing"
	"time"
)

func TestRateLimitingQueue(t *testing.T) {
	clock := newFakeClock()
	limiter := NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Minute)
	q := NewRateLimitingQueueWithConfig(limiter, RateLimitingQueueConfig{Clock: clock})
	defer q.ShutDown()

	q.AddRateLimited("a") // waits 1 s
	if q.Len() != 0 || q.NumRequeues("a") != 1 {
		t.Fatalf("after AddRateLimited: Len %d, NumRequeues %d; want 0 and 1", q.Len(), q.NumRequeues("a"))
	}
	clock.Step(time.Second)
	runSteps(t, q, []step{get("a")})
	q.AddRateLimited("a") // waits 2 s, added while processing
	q.Done("a")
	clock.Step(time.Second)
	if q.Len() != 0 {
		t.Fatal("the second retry came out before its 2 s back-off")
	}
	clock.Step(time.Second)
	runSteps(t, q, []step{get("a"), done("a")})
	if n := q.NumRequeues("a"); n != 2 {
		t.Fatalf("NumRequeues = %d, want 2", n)
	}
	q.Forget("a")
	if n := q.NumRequeues("a"); n != 0 {
		t.Fatalf("NumRequeues after Forget = %d", n)
	}
	q.AddRateLimited("a")
	clock.Step(time.Second)
	runSteps(t, q, []step{get("a"), done("a")})
}

func TestRateLimitingQueueShuttingDownCountsNothing(t *testing.T) {
	limiter := NewTypedItemExponentialFailureRateLimiter[string](time.Second, time.Minute)
	q := NewRateLimitingQueue(limiter)
	q.ShutDown()
	q.AddRateLimited("a")
	if n := q.NumRequeues("a"); n != 0 {
		t.Fatalf("AddRateLimited after ShutDown counted %d retries", n)
	}
	runSteps(t, q, []step{length(0), getShutdown})
}

func TestRateLimitingQueueNilLimiterUsesDefault(t *testing.T) {
	q := NewTypedRateLimitingQueue[int](nil)
	defer q.ShutDown()
	q.AddRateLimited(7)
	if n := q.NumRequeues(7); n != 1 {
		t.Fatalf("NumRequeues = %d, want 1", n)
	}
	item, shut := q.Get() // the default first back-off is 5 ms
	if item != 7 || shut {
		t.Fatalf("Get() = (%d, %v), want (7, false)", item, shut)
	}
}
