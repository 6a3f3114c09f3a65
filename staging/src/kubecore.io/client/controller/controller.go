package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/util/workqueue"

	"k8s.io/klog/v2"
)

// Controller is the skeleton every controller shares: one or more named,
// rate-limited work queues, each with the sync function that drains it and
// the Runner that counts its syncs, and the informer registrations whose
// sync gates the workers. A controller is its sync function plus a few
// Watch lines:
//
//	c.Controller = controller.New(Name, c.sync)
//	controller.Watch(c.Controller, rsInformer, controller.ObjectKeys[*appsv1.ReplicaSet]())
//	controller.Watch(c.Controller, podInformer, controller.Owned[*appsv1.ReplicaSet, *corev1.Pod]{...}.Handler())
//
// Handlers only map objects to keys; the sync function reads the current
// state from the listers (level-based) and an error requeues the key with
// back-off. Controller is safe for concurrent use once built.
type Controller struct {
	name   string
	queues []*Queue

	mu     sync.Mutex
	synced []func() bool
	loops  []func(ctx context.Context)
	errs   []error
}

// Queue is one named rate-limited work queue of a Controller, with the
// sync function its workers call and the Runner that counts them.
type Queue struct {
	workqueue.TypedRateLimitingInterface[string]
	owner   *Controller
	name    string
	sync    SyncFunc
	workers int
	runner  Runner
}

// QueueOptions tune a Queue; the zero value gives the defaults.
type QueueOptions struct {
	// RateLimiter spaces the retries of a failing key; nil means
	// workqueue.DefaultTypedControllerRateLimiter.
	RateLimiter workqueue.TypedRateLimiter[string]
	// Workers, when positive, is the number of workers of this queue
	// whatever Run is given.
	Workers int
}

// New returns a Controller with one queue named name, drained by sync.
func New(name string, sync SyncFunc, opts ...QueueOptions) *Controller {
	c := &Controller{name: name}
	c.AddQueue(name, sync, opts...)
	return c
}

// AddQueue adds a queue named name, drained by sync, that Run runs beside
// the others (for example the Job controller's queue of orphan pods).
func (c *Controller) AddQueue(name string, sync SyncFunc, opts ...QueueOptions) *Queue {
	var o QueueOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	q := &Queue{
		TypedRateLimitingInterface: workqueue.NewTypedRateLimitingQueueWithConfig(o.RateLimiter, workqueue.TypedRateLimitingQueueConfig[string]{Name: name}),
		owner:                      c,
		name:                       name,
		sync:                       sync,
		workers:                    o.Workers,
	}
	c.queues = append(c.queues, q)
	return q
}

// Name is the controller's name, that of its first queue.
func (c *Controller) Name() string { return c.name }

// Queue returns the controller's first queue.
func (c *Controller) Queue() *Queue { return c.queues[0] }

// Runner returns the counters of the first queue's workers.
func (c *Controller) Runner() *Runner { return &c.queues[0].runner }

// Runners returns the counters of every queue's workers, in the order
// the queues were made.
func (c *Controller) Runners() []*Runner {
	out := make([]*Runner, len(c.queues))
	for i, q := range c.queues {
		out[i] = &q.runner
	}
	return out
}

// AddSynced adds a function Run waits for before starting workers, for
// caches a controller fills without Watch.
func (c *Controller) AddSynced(synced ...func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.synced = append(c.synced, synced...)
}

// AddLoop adds a loop Run runs beside the workers, from the start (before
// the caches sync) until ctx ends, such as a periodic check of every
// object that no event would trigger. Run waits for it to return.
func (c *Controller) AddLoop(loop func(ctx context.Context)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.loops = append(c.loops, loop)
}

// Every returns a loop for AddLoop that calls f each period until ctx
// ends, the first time one period after the start.
func Every(period time.Duration, f func(ctx context.Context)) func(ctx context.Context) {
	return func(ctx context.Context) {
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				f(ctx)
			}
		}
	}
}

// Err returns the errors of the Watch calls that failed, nil when all
// succeeded. Constructors return it after their Watch lines.
func (c *Controller) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.errs) == 0 {
		return nil
	}
	return fmt.Errorf("%s controller: %w", c.name, errors.Join(c.errs...))
}

func (c *Controller) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.errs = append(c.errs, err)
}

// Run waits for every watched cache, then runs each queue's workers
// (workers each, unless the queue fixes its own number) and the added
// loops until ctx ends; it returns once every queue has drained, its
// workers and the loops stopped, with the errors of the queues that failed
// to start.
func (c *Controller) Run(ctx context.Context, workers int) error {
	if err := c.Err(); err != nil {
		c.ShutDown()
		return err
	}
	c.mu.Lock()
	synced := slices.Clone(c.synced)
	loops := slices.Clone(c.loops)
	c.mu.Unlock()
	errs := make([]error, len(c.queues))
	var wg sync.WaitGroup
	for _, loop := range loops {
		wg.Go(func() { loop(ctx) })
	}
	for i, q := range c.queues {
		n := workers
		if q.workers > 0 {
			n = q.workers
		}
		wg.Go(func() { errs[i] = q.runner.Run(ctx, q.name, n, q, q.sync, synced...) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Target is where Watch sends keys: a *Controller (its first queue) or
// one of its *Queue.
type Target interface {
	target() *Queue
}

func (c *Controller) target() *Queue { return c.queues[0] }
func (q *Queue) target() *Queue      { return q }

var (
	_ Target = (*Controller)(nil)
	_ Target = (*Queue)(nil)
)

// Handler maps the events of an informer to the keys to enqueue. A nil
// func ignores its events. The funcs run on the informer's delivery
// goroutine: they must be quick and must not change the objects.
type Handler[T cache.Object] struct {
	Add    func(obj T) []string
	Update func(oldObj, newObj T) []string
	Delete func(obj T) []string
}

// Keys is a Handler that enqueues keys(obj) for every add, update (of the
// new state) and delete.
func Keys[T cache.Object](keys func(obj T) []string) Handler[T] {
	return Handler[T]{
		Add:    keys,
		Update: func(_, obj T) []string { return keys(obj) },
		Delete: keys,
	}
}

// Upserts is a Handler that enqueues keys(obj) for every add and update
// (of the new state), and nothing for a delete.
func Upserts[T cache.Object](keys func(obj T) []string) Handler[T] {
	h := Keys(keys)
	h.Delete = nil
	return h
}

// ObjectKeys is the Handler that enqueues an object's own key for every
// event, as a controller does for the objects it manages.
func ObjectKeys[T cache.Object]() Handler[T] { return Keys(KeyOf[T]) }

// ForgetOnDelete is ObjectKeys that first calls forget with the key of a
// deleted object, for a controller that remembers things per object
// (expectations, back-off) to drop them.
func ForgetOnDelete[T cache.Object](forget func(key string)) Handler[T] {
	h := ObjectKeys[T]()
	h.Delete = func(obj T) []string {
		keys := KeyOf(obj)
		forget(keys[0])
		return keys
	}
	return h
}

// KeyOf returns obj's own key, "namespace/name" or "name".
func KeyOf[T cache.Object](obj T) []string {
	return []string{cache.ObjectKey(obj.GetNamespace(), obj.GetName())}
}

// Watch adds h to inf: every key h maps an event to is added to t's queue.
// Run waits for the registration to sync before starting the workers. A
// failure is kept for Controller.Err and Run.
func Watch[T cache.Object](t Target, inf *cache.Informer[T], h Handler[T]) {
	q := t.target()
	add := func(keys []string) {
		for _, k := range keys {
			q.Add(k)
		}
	}
	funcs := cache.ResourceEventHandlerFuncs[T]{}
	if h.Add != nil {
		funcs.AddFunc = func(obj T, _ bool) { add(h.Add(obj)) }
	}
	if h.Update != nil {
		funcs.UpdateFunc = func(oldObj, newObj T) { add(h.Update(oldObj, newObj)) }
	}
	if h.Delete != nil {
		funcs.DeleteFunc = func(obj T) { add(h.Delete(obj)) }
	}
	reg, err := inf.AddEventHandler(funcs)
	if err != nil {
		q.owner.fail(fmt.Errorf("watch %T: %w", *new(T), err))
		return
	}
	q.owner.AddSynced(reg.HasSynced)
}

// Informer returns the shared informer get makes from factory (such as
// informers.Pods). A failure is kept for Controller.Err and Run, and an
// empty informer that never runs is returned in its place, so that a
// constructor reads its informers without an error check each.
func Informer[T cache.Object](c *Controller, factory *informers.SharedInformerFactory, get func(*informers.SharedInformerFactory) (*cache.Informer[T], error)) *cache.Informer[T] {
	inf, err := get(factory)
	if err != nil {
		c.fail(err)
		return cache.NewInformer[T](nil, cache.InformerOptions{})
	}
	return inf
}

// ShutDown shuts every queue down, for a controller that stops before Run
// starts its workers.
func (c *Controller) ShutDown() {
	for _, q := range c.queues {
		q.ShutDown()
	}
}

// Get returns the object named by key ("namespace/name" or "name") from
// lister, as a sync function starts: ok is false when the object is gone,
// or when key is malformed (logged and dropped, since retrying cannot fix
// it); err is set only for a failure worth a retry.
func Get[T cache.Object](ctx context.Context, lister cache.Lister[T], key string) (obj T, ok bool, err error) {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		klog.FromContext(ctx).Error(err, "Dropping a bad key", "key", key)
		return obj, false, nil
	}
	obj, err = lister.Namespaced(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return obj, false, nil
	}
	return obj, err == nil, err
}
