package kubelet

import (
	"testing"
	"time"
)

func TestBackOff(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		restarts int // restarted() calls before
		ran      time.Duration
		since    time.Duration // now - finished
		want     time.Duration
	}{
		{"first crash restarts at once", 0, time.Second, 0, 0},
		{"second crash waits 10s", 1, time.Second, 0, 10 * time.Second},
		{"part of the wait passed", 1, time.Second, 4 * time.Second, 6 * time.Second},
		{"wait over", 1, time.Second, 10 * time.Second, 0},
		{"doubles", 2, time.Second, 0, 20 * time.Second},
		{"caps at five minutes", 10, time.Second, 0, 5 * time.Minute},
		{"reset after ten minutes of running", 10, 10 * time.Minute, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b backOff
			for range tc.restarts {
				b.restarted()
			}
			started := t0
			finished := started.Add(tc.ran)
			if got := b.wait(finished.Add(tc.since), started, finished); got != tc.want {
				t.Errorf("wait = %s, want %s", got, tc.want)
			}
		})
	}
}
