package framework

import (
	"context"
	"errors"
	"sync"
	"testing"

	"kubecore.io/client/informers"
)

// RunControllers starts factory's informers and each run (a controller's
// loop) in its own goroutine until tb ends; then it cancels them, waits
// for every one to return, reports their errors and shuts the factory
// down.
func RunControllers(tb testing.TB, factory *informers.SharedInformerFactory, runs ...func(ctx context.Context) error) {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	factory.Start(ctx)
	var wg sync.WaitGroup
	for _, run := range runs {
		wg.Go(func() {
			if err := run(ctx); err != nil && !errors.Is(err, context.Canceled) {
				tb.Error(err)
			}
		})
	}
	tb.Cleanup(func() {
		cancel()
		wg.Wait()
		factory.Shutdown()
	})
}
