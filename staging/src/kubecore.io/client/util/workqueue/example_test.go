package workqueue_test

import (
	"errors"
	"fmt"

	"kubecore.io/client/util/workqueue"
)

// A controller's worker loop: take a key, sync it, retry it with back-off on
// error, forget its back-off on success, and always mark it Done.
func Example() {
	queue := workqueue.NewRateLimitingQueueWithConfig(
		workqueue.DefaultControllerRateLimiter(),
		workqueue.RateLimitingQueueConfig{Name: "example"},
	)
	failures := map[string]int{"default/flaky": 2}
	sync := func(key string) error {
		if failures[key] > 0 {
			failures[key]--
			return errors.New("not yet")
		}
		fmt.Println("synced", key)
		return nil
	}

	queue.Add("default/web")
	queue.Add("default/flaky")
	queue.Add("default/web") // already queued: synced once
	for range 4 {            // web once, flaky three times
		key, shutdown := queue.Get()
		if shutdown {
			return
		}
		if err := sync(key); err != nil {
			queue.AddRateLimited(key)
		} else {
			queue.Forget(key)
		}
		queue.Done(key)
	}
	queue.ShutDownWithDrain()
	// Output:
	// synced default/web
	// synced default/flaky
}
