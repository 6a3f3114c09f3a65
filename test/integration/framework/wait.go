package framework

import (
	"testing"
	"time"
)

// WaitFor polls cond every 20 ms until it reports true, and fails tb when
// timeout passes first; what names the awaited state. An error from cond
// counts as "not yet" (the object may not exist yet) and the last one is
// reported with the failure.
func WaitFor(tb testing.TB, timeout time.Duration, what string, cond func() (bool, error)) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	var lastErr error
	for {
		ok, err := cond()
		if ok {
			return
		}
		if err != nil {
			lastErr = err
		}
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %v waiting for %s (last error: %v)", timeout, what, lastErr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitUntil is WaitFor for a condition that cannot fail.
func WaitUntil(tb testing.TB, timeout time.Duration, what string, cond func() bool) {
	tb.Helper()
	WaitFor(tb, timeout, what, func() (bool, error) { return cond(), nil })
}
