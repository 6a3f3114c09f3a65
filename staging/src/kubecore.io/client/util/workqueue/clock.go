package workqueue

import "time"

// Clock is the time source of the queues and rate limiters. Tests inject a fake
// one so that delays and back-off run without sleeping.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has elapsed, unless the
	// returned Timer is stopped first.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call. It is an alias of an unnamed interface so
// that any clock package can implement Clock without importing this one.
type Timer = interface {
	// Stop prevents the call; it reports false if the call already started.
	Stop() bool
}

// RealClock is the wall clock, the default of every queue and limiter.
type RealClock struct{}

var _ Clock = RealClock{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// AfterFunc wraps time.AfterFunc.
func (RealClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
