package workqueue

import (
	"math/rand/v2"
	"testing"
)

// TestFIFOAgainstSlice drives the ring and a plain slice with the same
// pushes and pops and compares them, through growth, wrap-around and shrink.
func TestFIFOAgainstSlice(t *testing.T) {
	cases := []struct {
		name     string
		pushBias int // out of 100: chance that an operation is a push
		ops      int
	}{
		{"mostly pushes", 80, 5000},
		{"balanced", 50, 5000},
		{"mostly pops", 30, 5000},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tc.pushBias)))
			var f fifo[int]
			var model []int
			next := 0
			for i := range tc.ops {
				if len(model) == 0 || rng.IntN(100) < tc.pushBias {
					f.push(next)
					model = append(model, next)
					next++
				} else {
					got, want := f.pop(), model[0]
					model = model[1:]
					if got != want {
						t.Fatalf("op %d: pop = %d, want %d", i, got, want)
					}
				}
				if f.len() != len(model) {
					t.Fatalf("op %d: len = %d, want %d", i, f.len(), len(model))
				}
				if c := len(f.buf); c != 0 && c&(c-1) != 0 {
					t.Fatalf("op %d: capacity %d is not a power of two", i, c)
				}
			}
			for len(model) > 0 {
				if got := f.pop(); got != model[0] {
					t.Fatalf("final pop = %d, want %d", got, model[0])
				}
				model = model[1:]
			}
			if len(f.buf) > 4*minFIFOCap {
				t.Errorf("empty fifo kept a ring of %d", len(f.buf))
			}
		})
	}
}
