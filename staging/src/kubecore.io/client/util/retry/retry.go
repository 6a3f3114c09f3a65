// Package retry re-runs an operation with exponential back-off while it fails
// with a retriable error, typically an update that lost an optimistic-concurrency race.
package retry

import (
	"math/rand/v2"
	"time"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
)

// Backoff describes the pauses between attempts: Duration, then multiplied by
// Factor after each attempt up to Cap, each randomised by up to Jitter*d.
type Backoff struct {
	// Duration is the first pause.
	Duration time.Duration
	// Factor multiplies the pause after every attempt; below 1 means 1.
	Factor float64
	// Jitter adds a random extra of up to Jitter times the pause.
	Jitter float64
	// Steps is the number of attempts; below 1 means 1.
	Steps int
	// Cap bounds the pause; zero means no bound.
	Cap time.Duration
}

// DefaultRetry is the back-off for conflicts between controllers: short and
// few, because the caller re-reads the object on every attempt.
var DefaultRetry = Backoff{Steps: 5, Duration: 10 * time.Millisecond, Factor: 1.0, Jitter: 0.1}

// DefaultBackoff is the back-off for errors that take a while to clear, such as
// an apiserver that is restarting.
var DefaultBackoff = Backoff{Steps: 4, Duration: 10 * time.Millisecond, Factor: 5.0, Jitter: 0.1}

// pause returns the i-th pause (i from 0) of b.
func (b Backoff) pause(i int) time.Duration {
	d := float64(b.Duration)
	f := b.Factor
	if f < 1 {
		f = 1
	}
	for range i {
		d *= f
		if b.Cap > 0 && d > float64(b.Cap) {
			d = float64(b.Cap)
			break
		}
	}
	if b.Jitter > 0 {
		d += rand.Float64() * b.Jitter * d
	}
	return time.Duration(d)
}

// OnError runs fn until it succeeds, until it returns an error retriable
// rejects (returned unchanged), or until backoff.Steps attempts have failed
// (the last error is returned unchanged, so callers can still test it with
// apierrors.IsConflict and the like).
func OnError(backoff Backoff, retriable func(error) bool, fn func() error) error {
	return onError(backoff, retriable, fn, time.Sleep)
}

func onError(backoff Backoff, retriable func(error) bool, fn func() error, sleep func(time.Duration)) error {
	steps := max(backoff.Steps, 1)
	var err error
	for i := range steps {
		if i > 0 {
			sleep(backoff.pause(i - 1))
		}
		err = fn()
		if err == nil || !retriable(err) {
			return err
		}
	}
	return err
}

// RetryOnConflict runs fn again while it returns a Conflict error (HTTP 409);
// fn must re-read the object it updates on every call.
func RetryOnConflict(backoff Backoff, fn func() error) error {
	return OnError(backoff, apierrors.IsConflict, fn)
}
