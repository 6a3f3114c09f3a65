package daemonset

import (
	"sync"
	"time"
)

// The back-off between replacements of failed daemon pods on one node: a
// pod that keeps failing (a bad command, a port in use) is replaced after
// 1 s, 2 s, 4 s, ... up to 15 min, as Kubernetes does, instead of in a
// tight create-fail-delete loop.
const (
	failedPodInitialBackoff = time.Second
	failedPodMaxBackoff     = 15 * time.Minute
)

// backoff spaces out actions per key with exponential delays. An entry
// idle for twice the longest delay starts again from the shortest.
type backoff struct {
	initial, max time.Duration

	mu      sync.Mutex
	entries map[string]*backoffEntry
}

type backoffEntry struct {
	delay time.Duration
	last  time.Time
}

func newBackoff(initial, maxDelay time.Duration) *backoff {
	return &backoff{initial: initial, max: maxDelay, entries: map[string]*backoffEntry{}}
}

// next returns how long key must still wait at now; when it need not
// (0), the action is recorded and the following one waits twice as long.
func (b *backoff) next(key string, now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k, e := range b.entries {
		if now.Sub(e.last) > 2*b.max {
			delete(b.entries, k)
		}
	}
	e, ok := b.entries[key]
	if !ok {
		b.entries[key] = &backoffEntry{delay: b.initial, last: now}
		return 0
	}
	if wait := e.last.Add(e.delay).Sub(now); wait > 0 {
		return wait
	}
	e.delay, e.last = min(2*e.delay, b.max), now
	return 0
}
