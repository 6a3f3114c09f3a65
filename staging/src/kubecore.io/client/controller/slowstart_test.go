package controller

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

func TestSlowStartBatch(t *testing.T) {
	tests := []struct {
		name        string
		count       int
		initial     int
		maxInFlight int
		failFrom    int // calls numbered from 1 at or after this one fail; 0 never
		wantOK      int
		wantCalls   int
	}{
		{name: "nothing", count: 0, initial: 1},
		{name: "one", count: 1, initial: 1, wantOK: 1, wantCalls: 1},
		{name: "all succeed", count: 10, initial: 1, wantOK: 10, wantCalls: 10},
		{name: "bad initial is 1", count: 3, initial: 0, wantOK: 3, wantCalls: 3},
		// Batches 1, 2, 4: the third (calls 4..7) fails from call 5 on.
		{name: "stops after the failing batch", count: 100, initial: 1, failFrom: 5, wantOK: 4, wantCalls: 7},
		// Batches 3, 6: the second (calls 4..9) fails from call 9 on.
		{name: "initial batch size", count: 100, initial: 3, failFrom: 9, wantOK: 8, wantCalls: 9},
		{name: "first call fails", count: 100, initial: 1, failFrom: 1, wantOK: 0, wantCalls: 1},
		{name: "bounded, all succeed", count: 100, initial: 1, maxInFlight: 3, wantOK: 100, wantCalls: 100},
		// One call at a time: the failing call 5 is the last one made.
		{name: "bounded, starts no call after a failure", count: 100, initial: 1, maxInFlight: 1, failFrom: 5, wantOK: 4, wantCalls: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			var seq atomic.Int32
			ok, err := SlowStartBatch(tt.count, tt.initial, tt.maxInFlight, func() error {
				calls.Add(1)
				// Number calls in batch order: a batch starts only once the
				// previous one ended, so seq within a batch is a permutation.
				if n := int(seq.Add(1)); tt.failFrom > 0 && n >= tt.failFrom {
					return errors.New("refused")
				}
				return nil
			})
			if ok != tt.wantOK || int(calls.Load()) != tt.wantCalls {
				t.Fatalf("ok=%d calls=%d, want ok=%d calls=%d", ok, calls.Load(), tt.wantOK, tt.wantCalls)
			}
			if (err != nil) != (tt.failFrom > 0) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

// tracker counts the calls running at once and the most ever seen.
type tracker struct{ running, most atomic.Int32 }

func (tr *tracker) call() {
	n := tr.running.Add(1)
	for m := tr.most.Load(); n > m && !tr.most.CompareAndSwap(m, n); m = tr.most.Load() {
	}
	time.Sleep(time.Millisecond)
	tr.running.Add(-1)
}

func TestSlowStartBatchBoundsCallsInFlight(t *testing.T) {
	for _, limit := range []int{1, 5, 0} {
		var tr tracker
		ok, err := SlowStartBatch(200, 1, limit, func() error { tr.call(); return nil })
		if ok != 200 || err != nil {
			t.Fatalf("limit %d: ok=%d err=%v, want 200, nil", limit, ok, err)
		}
		// Unbounded, the last batch (73 calls) may run at once.
		if most := int(tr.most.Load()); limit > 0 && most > limit || limit == 0 && most > 73 {
			t.Errorf("limit %d: %d calls at once", limit, most)
		}
	}
}

func TestParallel(t *testing.T) {
	var tr tracker
	var calls [50]atomic.Int32
	err := Parallel(len(calls), 4, func(i int) error {
		tr.call()
		calls[i].Add(1)
		if i%10 == 0 {
			return errors.New("refused")
		}
		return nil
	})
	for i := range calls {
		if n := calls[i].Load(); n != 1 {
			t.Errorf("fn(%d) called %d times, want once", i, n)
		}
	}
	if most := tr.most.Load(); most > 4 {
		t.Errorf("%d calls at once, want at most 4", most)
	}
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) || len(joined.Unwrap()) != 5 {
		t.Errorf("err = %v, want the 5 failures", err)
	}
	if err := Parallel(0, 4, func(int) error { t.Fatal("called"); return nil }); err != nil {
		t.Errorf("Parallel(0) = %v", err)
	}
}
