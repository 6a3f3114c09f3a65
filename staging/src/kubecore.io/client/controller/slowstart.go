package controller

import (
	"errors"
	"sync"
)

// SlowStartBatch calls fn count times in batches that double in size,
// starting at initialBatchSize (1, 2, 4, ... for 1). The calls of a batch
// run concurrently, at most maxInFlight at once (a batch at once when
// maxInFlight < 1), so that a large batch does not overrun the API
// server's limit of requests in flight (it answers 429 and Retry-After:
// 1 s beyond it). It stops at the first failure: no batch follows, and a
// bounded batch starts no further call, so that a request the server will
// refuse (a quota, an invalid template) is not sent count times. It
// returns how many calls succeeded and the errors of the failed batch.
func SlowStartBatch(count, initialBatchSize, maxInFlight int, fn func() error) (int, error) {
	if initialBatchSize < 1 {
		initialBatchSize = 1
	}
	done := 0
	for batch := min(initialBatchSize, count); batch > 0; batch = min(2*batch, count-done) {
		ok, err := runBatch(batch, maxInFlight, fn)
		done += ok
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// runBatch calls fn n times, all at once when limit < 1 or limit >= n;
// otherwise from limit goroutines, which start no call once one has
// failed. It returns the number of calls that succeeded and the errors of
// those that failed.
func runBatch(n, limit int, fn func() error) (int, error) {
	bounded := limit >= 1 && limit < n
	if !bounded {
		limit = n
	}
	var (
		mu      sync.Mutex
		started int
		ok      int
		errs    []error
	)
	// claim reserves the next call: every goroutine's first one when
	// unbounded, else the next unless all are taken or one failed.
	claim := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if started == n || bounded && len(errs) > 0 {
			return false
		}
		started++
		return true
	}
	var wg sync.WaitGroup
	for range limit {
		wg.Go(func() {
			for claim() {
				err := fn()
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else {
					ok++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return ok, errors.Join(errs...)
}

// Parallel calls fn(i) for every i in [0, n), at most maxInFlight calls at
// once (all at once when maxInFlight < 1), and returns the errors of the
// calls that failed, joined. Unlike SlowStartBatch it makes every call
// whatever the others return.
func Parallel(n, maxInFlight int, fn func(i int) error) error {
	if maxInFlight < 1 || maxInFlight > n {
		maxInFlight = n
	}
	errs := make([]error, n)
	var (
		mu   sync.Mutex
		next int
	)
	// claim returns the next index to call, or false when none is left.
	claim := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if next == n {
			return 0, false
		}
		next++
		return next - 1, true
	}
	var wg sync.WaitGroup
	for range maxInFlight {
		wg.Go(func() {
			for i, ok := claim(); ok; i, ok = claim() {
				errs[i] = fn(i)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
