package controller

import (
	"testing"
	"time"
)

func TestOrDefault(t *testing.T) {
	if got := OrDefault(0, 5); got != 5 {
		t.Errorf("OrDefault(0, 5) = %d", got)
	}
	if got := OrDefault(-1, 5); got != 5 {
		t.Errorf("OrDefault(-1, 5) = %d", got)
	}
	if got := OrDefault(3, 5); got != 3 {
		t.Errorf("OrDefault(3, 5) = %d", got)
	}
	if got := OrDefault(0.5, 0.1); got != 0.5 {
		t.Errorf("OrDefault(0.5, 0.1) = %v", got)
	}
	if got := OrDefault(time.Duration(0), time.Second); got != time.Second {
		t.Errorf("OrDefault(0s, 1s) = %v", got)
	}
	fixed := time.Unix(100, 0)
	if got := OrNow(func() time.Time { return fixed })(); !got.Equal(fixed) {
		t.Errorf("OrNow(fixed)() = %v", got)
	}
	if got := OrNow(nil)(); time.Since(got) > time.Minute || time.Since(got) < 0 {
		t.Errorf("OrNow(nil)() = %v, not the wall clock", got)
	}
}
