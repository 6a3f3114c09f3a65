package controller

import (
	"sync"
	"testing"
	"time"
)

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestExpectations(t *testing.T) {
	tests := []struct {
		name string
		do   func(e *Expectations, c *fakeClock)
		want bool
	}{
		{name: "nothing expected", do: func(*Expectations, *fakeClock) {}, want: true},
		{name: "creations pending", do: func(e *Expectations, _ *fakeClock) {
			e.ExpectCreations("k", 2)
			e.CreationObserved("k")
		}, want: false},
		{name: "creations observed", do: func(e *Expectations, _ *fakeClock) {
			e.ExpectCreations("k", 2)
			e.CreationObserved("k")
			e.CreationObserved("k")
		}, want: true},
		{name: "deletions pending", do: func(e *Expectations, _ *fakeClock) {
			e.ExpectDeletions("k", 1)
			e.CreationObserved("k")
		}, want: false},
		{name: "deletions observed", do: func(e *Expectations, _ *fakeClock) {
			e.ExpectDeletions("k", 1)
			e.DeletionObserved("k")
		}, want: true},
		{name: "other key observed", do: func(e *Expectations, _ *fakeClock) {
			e.ExpectCreations("k", 1)
			e.CreationObserved("other")
		}, want: false},
		{name: "expired after timeout", do: func(e *Expectations, c *fakeClock) {
			e.ExpectCreations("k", 3)
			c.Step(ExpectationsTimeout + time.Second)
		}, want: true},
		{name: "not expired at timeout", do: func(e *Expectations, c *fakeClock) {
			e.ExpectCreations("k", 3)
			c.Step(ExpectationsTimeout)
		}, want: false},
		{name: "new expectation resets the timer", do: func(e *Expectations, c *fakeClock) {
			e.ExpectCreations("k", 3)
			c.Step(ExpectationsTimeout)
			e.ExpectDeletions("k", 1)
			c.Step(time.Minute)
		}, want: false},
		{name: "deleted", do: func(e *Expectations, _ *fakeClock) {
			e.ExpectCreations("k", 3)
			e.DeleteExpectations("k")
		}, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			e := NewExpectations(c)
			tt.do(e, c)
			if got := e.SatisfiedExpectations("k"); got != tt.want {
				t.Fatalf("SatisfiedExpectations = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestExpectationsConcurrent(t *testing.T) {
	e := NewExpectations(nil)
	e.ExpectCreations("k", 1000)
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			for range 100 {
				e.CreationObserved("k")
				_ = e.SatisfiedExpectations("k")
			}
		})
	}
	wg.Wait()
	if !e.SatisfiedExpectations("k") {
		t.Fatal("1000 observed creations did not satisfy 1000 expected")
	}
}
