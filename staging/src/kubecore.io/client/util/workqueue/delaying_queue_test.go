package workqueue

import (
	"slices"
	"testing"
	"time"
)

// drainNow takes every waiting item out of q, in order, marking each Done.
func drainNow[T comparable](q TypedInterface[T]) []T {
	var items []T
	for q.Len() > 0 {
		item, _ := q.Get()
		q.Done(item)
		items = append(items, item)
	}
	return items
}

func TestAddAfterOnFakeClock(t *testing.T) {
	type addAfter struct {
		item string
		d    time.Duration
	}
	type tick struct {
		step time.Duration
		want []string // items handed out after the step, in order
	}
	cases := []struct {
		name  string
		adds  []addAfter
		now   []string // items handed out right after the adds
		ticks []tick
	}{{
		name: "items come out in deadline order",
		adds: []addAfter{{"c", 3 * time.Second}, {"a", time.Second}, {"b", 2 * time.Second}},
		ticks: []tick{
			{999 * time.Millisecond, nil},
			{time.Millisecond, []string{"a"}},
			{time.Second, []string{"b"}},
			{5 * time.Second, []string{"c"}},
		},
	}, {
		name:  "a zero or negative delay adds at once",
		adds:  []addAfter{{"a", 0}, {"b", -time.Second}, {"c", time.Second}},
		now:   []string{"a", "b"},
		ticks: []tick{{time.Second, []string{"c"}}},
	}, {
		name:  "one step releases every due item, earliest first",
		adds:  []addAfter{{"c", 3 * time.Second}, {"a", time.Second}, {"b", 2 * time.Second}},
		ticks: []tick{{10 * time.Second, []string{"a", "b", "c"}}},
	}, {
		name:  "equal deadlines keep the order of the calls",
		adds:  []addAfter{{"x", time.Second}, {"a", time.Second}, {"m", time.Second}},
		ticks: []tick{{time.Second, []string{"x", "a", "m"}}},
	}, {
		name: "a later AddAfter of a waiting item keeps the earlier deadline",
		adds: []addAfter{{"a", time.Second}, {"a", 5 * time.Second}},
		ticks: []tick{
			{time.Second, []string{"a"}},
			{10 * time.Second, nil},
		},
	}, {
		name: "an earlier AddAfter of a waiting item moves it forward",
		adds: []addAfter{{"a", 5 * time.Second}, {"b", 2 * time.Second}, {"a", time.Second}},
		ticks: []tick{
			{time.Second, []string{"a"}},
			{time.Second, []string{"b"}},
			{10 * time.Second, nil},
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			q := NewTypedDelayingQueueWithConfig(TypedDelayingQueueConfig[string]{Clock: clock})
			defer q.ShutDown()
			for _, a := range tc.adds {
				q.AddAfter(a.item, a.d)
			}
			if got := drainNow(q); !slices.Equal(got, tc.now) {
				t.Fatalf("before any step: got %q, want %q", got, tc.now)
			}
			for i, tk := range tc.ticks {
				clock.Step(tk.step)
				if got := drainNow(q); !slices.Equal(got, tk.want) {
					t.Fatalf("after step %d (%v): got %q, want %q", i, tk.step, got, tk.want)
				}
			}
			if n := clock.Pending(); n != 0 {
				t.Errorf("%d timers still armed with nothing waiting", n)
			}
		})
	}
}

func TestAddAfterDeduplicatesWithWaitingItem(t *testing.T) {
	clock := newFakeClock()
	q := NewTypedDelayingQueueWithConfig(TypedDelayingQueueConfig[string]{Clock: clock})
	q.Add("a")
	q.AddAfter("a", time.Second)
	clock.Step(time.Second)
	runSteps(t, q, []step{length(1), get("a"), done("a"), length(0)})
}

func TestAddAfterCancelledByShutDown(t *testing.T) {
	for _, drain := range []bool{false, true} {
		clock := newFakeClock()
		q := NewTypedDelayingQueueWithConfig(TypedDelayingQueueConfig[string]{Clock: clock})
		q.AddAfter("a", time.Second)
		q.AddAfter("b", 2*time.Second)
		if clock.Pending() != 1 {
			t.Fatalf("drain=%v: %d timers armed, want 1", drain, clock.Pending())
		}
		if drain {
			q.ShutDownWithDrain()
		} else {
			q.ShutDown()
		}
		if n := clock.Pending(); n != 0 {
			t.Errorf("drain=%v: %d timers still armed after shut down", drain, n)
		}
		q.AddAfter("c", time.Second)
		if n := clock.Pending(); n != 0 {
			t.Errorf("drain=%v: AddAfter after shut down armed %d timers", drain, n)
		}
		clock.Step(time.Minute)
		runSteps(t, q, []step{length(0), getShutdown})
	}
}

func TestStaleTimerDoesNothing(t *testing.T) {
	clock := newFakeClock()
	q := NewTypedDelayingQueueWithConfig(TypedDelayingQueueConfig[string]{Clock: clock}).(*delayingType[string])
	q.AddAfter("late", 5*time.Second)
	staleGen := q.gen
	q.AddAfter("early", time.Second) // re-arms: the 5 s timer is stopped
	// A timer whose Stop lost the race still runs its callback: it must not
	// release anything or disturb the armed timer.
	q.fire(staleGen)
	if q.Len() != 0 || clock.Pending() != 1 {
		t.Fatalf("stale fire: Len %d, %d timers armed; want 0 and 1", q.Len(), clock.Pending())
	}
	clock.Step(time.Second)
	runSteps(t, q, []step{get("early"), done("early"), length(0)})
	clock.Step(4 * time.Second)
	runSteps(t, q, []step{get("late")})
}

func TestAddAfterOnWallClock(t *testing.T) {
	q := NewDelayingQueue()
	defer q.ShutDown()
	start := time.Now()
	q.AddAfter("b", 20*time.Millisecond)
	q.AddAfter("a", 10*time.Millisecond)
	for _, want := range []string{"a", "b"} {
		item, shut := q.Get()
		if item != want || shut {
			t.Fatalf("Get() = (%q, %v), want (%q, false)", item, shut, want)
		}
		q.Done(item)
	}
	if elapsed := time.Since(start); elapsed < 20*time.Millisecond {
		t.Fatalf("both items came out after %v, before the 20ms delay", elapsed)
	}
}
