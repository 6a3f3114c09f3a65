package workqueue

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

const ms = time.Millisecond

// whens calls r.When(item) n times.
func whens(r TypedRateLimiter[string], item string, n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = r.When(item)
	}
	return out
}

func TestItemExponentialFailureRateLimiter(t *testing.T) {
	cases := []struct {
		name      string
		base, max time.Duration
		want      []time.Duration
	}{
		{"doubles up to the cap", ms, 100 * ms, []time.Duration{1 * ms, 2 * ms, 4 * ms, 8 * ms, 16 * ms, 32 * ms, 64 * ms, 100 * ms, 100 * ms}},
		{"controller default", 5 * ms, 1000 * time.Second, []time.Duration{5 * ms, 10 * ms, 20 * ms, 40 * ms, 80 * ms}},
		{"cap below base", time.Second, 10 * ms, []time.Duration{10 * ms, 10 * ms}},
		{"zero base never waits", 0, time.Second, []time.Duration{0, 0, 0}},
		{"negative durations count as zero", -ms, -ms, []time.Duration{0, 0}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := NewTypedItemExponentialFailureRateLimiter[string](tc.base, tc.max)
			if got := whens(r, "a", len(tc.want)); !slices.Equal(got, tc.want) {
				t.Fatalf("When sequence = %v, want %v", got, tc.want)
			}
			if n := r.NumRequeues("a"); n != len(tc.want) {
				t.Errorf("NumRequeues = %d, want %d", n, len(tc.want))
			}
			if n := r.NumRequeues("b"); n != 0 {
				t.Errorf("NumRequeues of an unseen item = %d", n)
			}
			r.Forget("a")
			if n := r.NumRequeues("a"); n != 0 {
				t.Errorf("NumRequeues after Forget = %d", n)
			}
			if got := whens(r, "a", 1); got[0] != tc.want[0] {
				t.Errorf("first When after Forget = %v, want %v", got[0], tc.want[0])
			}
		})
	}
}

func TestItemExponentialItemsAreIndependent(t *testing.T) {
	r := NewTypedItemExponentialFailureRateLimiter[string](ms, time.Second)
	whens(r, "a", 3)
	if got := r.When("b"); got != ms {
		t.Fatalf("first When of b = %v, want 1ms", got)
	}
	if got := r.When("a"); got != 8*ms {
		t.Fatalf("fourth When of a = %v, want 8ms", got)
	}
}

func TestBackoffDoesNotOverflow(t *testing.T) {
	limit := time.Duration(1<<63 - 1)
	for n := range 200 {
		if d := backoff(time.Nanosecond, limit, n); d <= 0 || d > limit {
			t.Fatalf("backoff(1ns, max, %d) = %v", n, d)
		}
	}
	if d := backoff(time.Nanosecond, limit, 62); d != 1<<62 {
		t.Fatalf("backoff(1ns, max, 62) = %v, want 2^62ns", d)
	}
	if d := backoff(3, 1000, 100); d != 1000 {
		t.Fatalf("backoff(3, 1000, 100) = %v, want the cap", d)
	}
}

func TestBucketRateLimiter(t *testing.T) {
	type call struct {
		step time.Duration // clock step before the call
		want time.Duration
	}
	cases := []struct {
		name  string
		qps   float64
		burst int
		calls []call
	}{{
		name:  "burst, then one token per 1/qps",
		qps:   10,
		burst: 2,
		calls: []call{{0, 0}, {0, 0}, {0, 100 * ms}, {0, 200 * ms}, {0, 300 * ms}},
	}, {
		name:  "tokens refill with time, up to the burst",
		qps:   10,
		burst: 2,
		calls: []call{{0, 0}, {0, 0}, {0, 100 * ms}, {time.Hour, 0}, {0, 0}, {0, 100 * ms}},
	}, {
		name:  "a reservation is paid back by elapsed time",
		qps:   10,
		burst: 1,
		calls: []call{{0, 0}, {0, 100 * ms}, {50 * ms, 150 * ms}, {200 * ms, 50 * ms}},
	}, {
		name:  "fractional qps",
		qps:   0.5,
		burst: 1,
		calls: []call{{0, 0}, {0, 2 * time.Second}, {time.Second, 3 * time.Second}},
	}, {
		name:  "qps zero means no limit",
		qps:   0,
		burst: 1,
		calls: []call{{0, 0}, {0, 0}, {0, 0}},
	}, {
		name:  "a burst below one counts as one",
		qps:   1,
		burst: 0,
		calls: []call{{0, 0}, {0, time.Second}},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			r := NewTypedBucketRateLimiterWithClock[string](tc.qps, tc.burst, clock)
			for i, c := range tc.calls {
				clock.Step(c.step)
				if got := r.When("any"); got != c.want {
					t.Fatalf("call %d: When = %v, want %v", i, got, c.want)
				}
			}
			r.Forget("any")
			if n := r.NumRequeues("any"); n != 0 {
				t.Errorf("NumRequeues = %d, want 0", n)
			}
		})
	}
}

func TestMaxOfRateLimiter(t *testing.T) {
	clock := newFakeClock()
	exp := NewTypedItemExponentialFailureRateLimiter[string](10*ms, time.Second)
	bucket := NewTypedBucketRateLimiterWithClock[string](1, 3, clock)
	r := NewTypedMaxOfRateLimiter(exp, nil, bucket)
	// The bucket allows three, then one a second; the item backs off 10 ms doubling.
	want := []time.Duration{10 * ms, 20 * ms, 40 * ms, time.Second, 2 * time.Second}
	if got := whens(r, "a", len(want)); !slices.Equal(got, want) {
		t.Fatalf("When sequence = %v, want %v", got, want)
	}
	if n := r.NumRequeues("a"); n != 5 {
		t.Fatalf("NumRequeues = %d, want 5", n)
	}
	r.Forget("a")
	if n := r.NumRequeues("a"); n != 0 || exp.NumRequeues("a") != 0 {
		t.Fatalf("Forget did not reach every limiter: NumRequeues = %d", n)
	}
	if got := NewTypedMaxOfRateLimiter[string]().When("a"); got != 0 {
		t.Fatalf("empty max-of When = %v, want 0", got)
	}
}

func TestDefaultRateLimiters(t *testing.T) {
	r := DefaultControllerRateLimiter()
	want := []time.Duration{5 * ms, 10 * ms, 20 * ms, 40 * ms, 80 * ms, 160 * ms}
	if got := whens(r, "a", len(want)); !slices.Equal(got, want) {
		t.Fatalf("controller limiter sequence = %v, want %v", got, want)
	}
	// 100 tokens of burst: 6 went to "a"; 94 more first tries pass at 5 ms.
	for i := range 94 {
		if got := r.When(fmt.Sprintf("item-%d", i)); got != 5*ms {
			t.Fatalf("first try %d = %v, want 5ms", i, got)
		}
	}
	// The bucket is empty: the next first try waits for a token (~100 ms).
	if got := r.When("z"); got < 90*ms || got > 100*ms {
		t.Fatalf("first try past the burst = %v, want about 100ms", got)
	}

	item := DefaultItemBasedRateLimiter()
	if got := whens(item, "a", 3); !slices.Equal(got, []time.Duration{ms, 2 * ms, 4 * ms}) {
		t.Fatalf("item-based sequence = %v", got)
	}
}
