package controller

import (
	"cmp"
	"time"
)

// OrDefault returns v, or def when v is zero or negative: how the counts,
// rates and durations of controllers' Options take their defaults.
func OrDefault[T cmp.Ordered](v, def T) T {
	var zero T
	if v <= zero {
		return def
	}
	return v
}

// OrNow returns now, or time.Now when now is nil: the clock of controllers'
// Options, which tests replace.
func OrNow(now func() time.Time) func() time.Time {
	if now == nil {
		return time.Now
	}
	return now
}
