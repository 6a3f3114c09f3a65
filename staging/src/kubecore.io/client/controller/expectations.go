package controller

import (
	"sync"
	"time"
)

// ExpectationsTimeout is how long unobserved expectations hold a controller
// back before it syncs anyway, in case a watch event was lost.
const ExpectationsTimeout = 5 * time.Minute

// Clock reads the time; tests inject a fake one.
type Clock interface {
	Now() time.Time
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// Expectations records, per controller key, how many creations and deletions
// a controller has issued but not yet seen in its informers, so that it does
// not act again on a stale cache. It is safe for concurrent use.
type Expectations struct {
	clock Clock

	mu      sync.Mutex
	pending map[string]*expectation
}

type expectation struct {
	adds, dels int
	setAt      time.Time
}

// NewExpectations returns empty Expectations on clock; nil means the wall clock.
func NewExpectations(clock Clock) *Expectations {
	if clock == nil {
		clock = realClock{}
	}
	return &Expectations{clock: clock, pending: map[string]*expectation{}}
}

// ExpectCreations records that key's controller is about to create n objects,
// replacing what was expected for key before.
func (e *Expectations) ExpectCreations(key string, n int) { e.set(key, n, 0) }

// ExpectDeletions records that key's controller is about to delete n objects,
// replacing what was expected for key before.
func (e *Expectations) ExpectDeletions(key string, n int) { e.set(key, 0, n) }

func (e *Expectations) set(key string, adds, dels int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.pending[key] = &expectation{adds: adds, dels: dels, setAt: e.clock.Now()}
}

// CreationObserved lowers key's expected creations by one, when an informer
// sees an object created or when a create call fails.
func (e *Expectations) CreationObserved(key string) { e.lower(key, 1, 0) }

// DeletionObserved lowers key's expected deletions by one, when an informer
// sees an object deleted or when a delete call fails.
func (e *Expectations) DeletionObserved(key string) { e.lower(key, 0, 1) }

func (e *Expectations) lower(key string, adds, dels int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if x, ok := e.pending[key]; ok {
		x.adds -= adds
		x.dels -= dels
	}
}

// SatisfiedExpectations reports whether key's controller may sync: nothing is
// expected for key, everything expected was observed, or the expectations
// are older than ExpectationsTimeout.
func (e *Expectations) SatisfiedExpectations(key string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	x, ok := e.pending[key]
	if !ok {
		return true
	}
	if x.adds <= 0 && x.dels <= 0 {
		return true
	}
	return e.clock.Now().Sub(x.setAt) > ExpectationsTimeout
}

// DeleteExpectations forgets key, e.g. when its controller object is deleted.
func (e *Expectations) DeleteExpectations(key string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.pending, key)
}
