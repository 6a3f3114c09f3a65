package kubelet

import "time"

// The container restart back-off: 10 s, doubling to 5 min, forgotten once a
// container has run for 10 min.
const (
	initialBackOff = 10 * time.Second
	maxBackOff     = 5 * time.Minute
	backOffReset   = 10 * time.Minute
)

// backOff is the restart back-off of one container.
type backOff struct{ delay time.Duration }

// wait returns how long a container that ran from started to finished
// must still wait at now before it restarts; 0 means restart now.
func (b *backOff) wait(now, started, finished time.Time) time.Duration {
	if !started.IsZero() && finished.Sub(started) >= backOffReset {
		b.delay = 0
	}
	if b.delay == 0 {
		return 0
	}
	if until := finished.Add(b.delay); now.Before(until) {
		return until.Sub(now)
	}
	return 0
}

// restarted records a restart: the next one waits longer.
func (b *backOff) restarted() {
	switch {
	case b.delay == 0:
		b.delay = initialBackOff
	case b.delay*2 > maxBackOff:
		b.delay = maxBackOff
	default:
		b.delay *= 2
	}
}
