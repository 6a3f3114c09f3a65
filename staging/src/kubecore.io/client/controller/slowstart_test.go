package controller

import (
	"errors"
	"sync/atomic"
	"testing"
)

func TestSlowStartBatch(t *testing.T) {
	tests := []struct {
		name      string
		count     int
		initial   int
		failFrom  int // calls numbered from 1 at or after this one fail; 0 never
		wantOK    int
		wantCalls int
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			var seq atomic.Int32
			ok, err := SlowStartBatch(tt.count, tt.initial, func() error {
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
