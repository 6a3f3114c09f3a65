// Package controller holds the machinery every controller shares: the worker
// Runner, creation/deletion Expectations, and owner-reference helpers.
package controller

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"kubecore.io/client/util/workqueue"

	"k8s.io/klog/v2"
)

// SyncFunc brings the object named by key ("namespace/name" or "name") to its
// desired state; an error requeues the key with back-off.
type SyncFunc func(ctx context.Context, key string) error

// Runner runs a controller's workers and counts what they did. The zero value
// is ready to use; a Runner runs one controller at a time.
type Runner struct {
	syncs  atomic.Int64
	errors atomic.Int64
	panics atomic.Int64
}

// Syncs is the number of sync calls that returned, panicked or not.
func (r *Runner) Syncs() int64 { return r.syncs.Load() }

// Errors is the number of sync calls that failed, panics included.
func (r *Runner) Errors() int64 { return r.errors.Load() }

// Panics is the number of sync calls that panicked.
func (r *Runner) Panics() int64 { return r.panics.Load() }

// cacheSyncPeriod is how often Run polls the cacheSynced functions.
const cacheSyncPeriod = 100 * time.Millisecond

// Run is new(Runner).Run.
func Run(ctx context.Context, name string, workers int, queue workqueue.TypedRateLimitingInterface[string], syncHandler SyncFunc, cacheSynced ...func() bool) error {
	return new(Runner).Run(ctx, name, workers, queue, syncHandler, cacheSynced...)
}

// Run waits until every cacheSynced returns true, then runs workers
// goroutines that each take a key from queue, call syncHandler with it, Forget the
// key on success or AddRateLimited it on error (a panic in syncHandler is recovered,
// logged and counted as an error), and mark it Done. When ctx is cancelled it
// shuts queue down, lets the workers drain it and returns nil. It returns an
// error for invalid arguments and when ctx ends before the caches sync; the
// queue is shut down in every case.
func (r *Runner) Run(ctx context.Context, name string, workers int, queue workqueue.TypedRateLimitingInterface[string], syncHandler SyncFunc, cacheSynced ...func() bool) error {
	if queue == nil {
		return fmt.Errorf("controller %q: queue is required", name)
	}
	if syncHandler == nil || workers < 1 {
		queue.ShutDown()
		if syncHandler == nil {
			return fmt.Errorf("controller %q: sync function is required", name)
		}
		return fmt.Errorf("controller %q: workers must be at least 1, got %d", name, workers)
	}
	logger := klog.FromContext(ctx).WithValues("controller", name)
	ctx = klog.NewContext(ctx, logger)
	logger.V(2).Info("Waiting for caches to sync")
	if err := WaitForCacheSync(ctx, cacheSynced...); err != nil {
		queue.ShutDown()
		return fmt.Errorf("controller %q: %w", name, err)
	}
	logger.V(2).Info("Starting workers", "workers", workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() { r.worker(ctx, queue, syncHandler) })
	}
	<-ctx.Done()
	logger.V(2).Info("Stopping workers")
	queue.ShutDownWithDrain()
	wg.Wait()
	return nil
}

// ErrCacheSyncStopped is returned by WaitForCacheSync when ctx ends first.
var ErrCacheSyncStopped = errors.New("caches did not sync before the context ended")

// WaitForCacheSync polls every cacheSynced until all return true, or returns
// ErrCacheSyncStopped (wrapping ctx's error) once ctx ends.
func WaitForCacheSync(ctx context.Context, cacheSynced ...func() bool) error {
	synced := func() bool {
		for _, f := range cacheSynced {
			if !f() {
				return false
			}
		}
		return true
	}
	if synced() {
		return nil
	}
	t := time.NewTicker(cacheSyncPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %w", ErrCacheSyncStopped, ctx.Err())
		case <-t.C:
			if synced() {
				return nil
			}
		}
	}
}

func (r *Runner) worker(ctx context.Context, queue workqueue.TypedRateLimitingInterface[string], syncHandler SyncFunc) {
	for r.processNext(ctx, queue, syncHandler) {
	}
}

func (r *Runner) processNext(ctx context.Context, queue workqueue.TypedRateLimitingInterface[string], syncHandler SyncFunc) bool {
	key, shutdown := queue.Get()
	if shutdown {
		return false
	}
	defer queue.Done(key)
	err := r.call(ctx, key, syncHandler)
	r.syncs.Add(1)
	if err == nil {
		queue.Forget(key)
		return true
	}
	r.errors.Add(1)
	klog.FromContext(ctx).Error(err, "Sync failed, requeueing with back-off", "key", key, "retries", queue.NumRequeues(key))
	queue.AddRateLimited(key)
	return true
}

// call runs sync, turning a panic into an error.
func (r *Runner) call(ctx context.Context, key string, syncHandler SyncFunc) (err error) {
	defer func() {
		if p := recover(); p != nil {
			r.panics.Add(1)
			err = fmt.Errorf("sync %q panicked: %v\n%s", key, p, debug.Stack())
		}
	}()
	return syncHandler(ctx, key)
}
