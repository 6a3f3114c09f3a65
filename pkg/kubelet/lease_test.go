package kubelet

import (
	"testing"
	"time"
)

func TestLeaseRenewIntervalIsAQuarterOfTheLease(t *testing.T) {
	for _, tc := range []struct {
		seconds int32
		want    time.Duration
	}{{0, 10 * time.Second}, {40, 10 * time.Second}, {20, 5 * time.Second}} {
		c := Config{LeaseDurationSeconds: tc.seconds}
		_ = c.defaults() // the missing name, runtime... are not looked at here
		if c.LeaseRenewInterval != tc.want {
			t.Errorf("lease of %d s: renewed every %v, want %v", tc.seconds, c.LeaseRenewInterval, tc.want)
		}
	}
}
