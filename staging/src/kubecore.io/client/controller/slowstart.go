package controller

import (
	"errors"
	"sync"
)

// SlowStartBatch calls fn count times in batches that double in size,
// starting at initialBatchSize (1, 2, 4, ... for 1); the calls of a batch run
// concurrently. It stops after the first batch in which a call fails, so
// that a request the server will refuse (a quota, an invalid template) is
// not sent count times. It returns how many calls succeeded and the errors
// of the failed batch.
func SlowStartBatch(count, initialBatchSize int, fn func() error) (int, error) {
	if initialBatchSize < 1 {
		initialBatchSize = 1
	}
	done := 0
	for batch := min(initialBatchSize, count); batch > 0; batch = min(2*batch, count-done) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		var errs []error
		for range batch {
			wg.Go(func() {
				if err := fn(); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		done += batch - len(errs)
		if len(errs) > 0 {
			return done, errors.Join(errs...)
		}
	}
	return done, nil
}
