// Package garbagecollector deletes objects whose owners are gone, and runs
// the Foreground and Orphan deletion propagation, over an owner graph of every resource.
package garbagecollector

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/controller"
	"kubecore.io/client/discovery"
	"kubecore.io/client/metadata"
	"kubecore.io/client/tools/cache"

	"k8s.io/klog/v2"
)

// Name is the controller's name in the controller-manager.
const Name = "garbage-collector"

// Options tune a GarbageCollector; the zero value gives the defaults.
type Options struct {
	// DiscoveryPeriod is how often discovery is read again to watch new
	// resources (custom resources); 30 s when zero.
	DiscoveryPeriod time.Duration
	// IgnoredResources are never watched; Events when nil.
	IgnoredResources []schema.GroupResource
}

// GarbageCollector keeps the owner graph of every resource and deletes or
// orphans dependents as their owners' deletions ask.
type GarbageCollector struct {
	*controller.Controller
	md      *metadata.Client
	disco   *discovery.Client
	period  time.Duration
	ignored map[schema.GroupResource]bool

	graph  *graph
	absent *absentOwners

	attemptToDelete, attemptToOrphan *controller.Queue

	mu       sync.Mutex
	mapper   *restMapper
	monitors map[schema.GroupVersionResource]*monitor
}

// monitor watches one resource for the graph.
type monitor struct {
	kind     string
	informer *cache.Informer[*metav1.PartialObjectMetadata]
	cancel   context.CancelFunc
	done     chan struct{}
}

// Client is what the garbage collector asks of the API server: the
// resources it serves and the metadata of their objects.
type Client interface {
	Metadata() *metadata.Client
	Discovery() *discovery.Client
}

// New returns a garbage collector acting through client on the resources
// its discovery finds.
func New(client Client, opts Options) (*GarbageCollector, error) {
	md, disco := client.Metadata(), client.Discovery()
	if md == nil || disco == nil {
		return nil, errors.New("garbage collector: a metadata client and a discovery client are required")
	}
	ignored := defaultIgnored()
	if opts.IgnoredResources != nil {
		ignored = map[schema.GroupResource]bool{}
		for _, gr := range opts.IgnoredResources {
			ignored[gr] = true
		}
	}
	period := controller.OrDefault(opts.DiscoveryPeriod, 30*time.Second)
	gc := &GarbageCollector{
		md: md, disco: disco, period: period, ignored: ignored,
		graph:    newGraph(),
		absent:   newAbsentOwners(10000),
		monitors: map[schema.GroupVersionResource]*monitor{},
	}
	gc.Controller = controller.New("garbage_collector_attempt_to_delete", gc.processAttemptToDelete)
	gc.attemptToDelete = gc.Queue()
	gc.attemptToOrphan = gc.AddQueue("garbage_collector_attempt_to_orphan", gc.processAttemptToOrphan)
	gc.AddSynced(gc.monitorsSynced)
	gc.AddLoop(controller.Every(period, gc.rediscover))
	return gc, nil
}

// Run watches every resource and runs workers goroutines for each of the
// two queues (deletions, orphaning) until ctx ends.
func (gc *GarbageCollector) Run(ctx context.Context, workers int) error {
	logger := klog.FromContext(ctx).WithValues("controller", Name)
	ctx = klog.NewContext(ctx, logger)
	defer gc.stopMonitors()
	for {
		err := gc.syncMonitors(ctx)
		if err == nil {
			break
		}
		logger.Error(err, "Discovery failed, retrying")
		select {
		case <-ctx.Done():
			gc.ShutDown()
			return nil
		case <-time.After(time.Second):
		}
	}
	return gc.Controller.Run(ctx, workers)
}

// Runners return the counters of the deletion and orphaning workers.
func (gc *GarbageCollector) Runners() (del, orphan *controller.Runner) {
	r := gc.Controller.Runners()
	return r[0], r[1]
}

// GraphSize is the number of objects in the owner graph, owners seen only
// in references included.
func (gc *GarbageCollector) GraphSize() int { return gc.graph.len() }

// rediscover reads discovery again and watches new resources.
func (gc *GarbageCollector) rediscover(ctx context.Context) {
	if err := gc.syncMonitors(ctx); err != nil {
		klog.FromContext(ctx).Error(err, "Discovery failed, keeping the resources watched so far")
	}
}

// syncMonitors watches the resources discovery lists, and stops watching
// those it no longer lists (when discovery fully succeeded).
func (gc *GarbageCollector) syncMonitors(ctx context.Context) error {
	lists, err := gc.disco.ServerPreferredResources(ctx)
	if lists == nil && err != nil {
		return fmt.Errorf("discover resources: %w", err)
	}
	partial := err != nil
	mapper, wanted := newRESTMapper(lists, gc.ignored)
	gc.mu.Lock()
	defer gc.mu.Unlock()
	gc.mapper = mapper
	keep := map[schema.GroupVersionResource]bool{}
	for _, w := range wanted {
		keep[w.gvr] = true
		if _, ok := gc.monitors[w.gvr]; ok {
			continue
		}
		m, err := gc.startMonitor(ctx, w)
		if err != nil {
			return err
		}
		gc.monitors[w.gvr] = m
		klog.FromContext(ctx).V(4).Info("Watching resource", "resource", w.gvr)
	}
	if partial {
		return nil
	}
	for gvr, m := range gc.monitors {
		if !keep[gvr] {
			m.cancel()
			<-m.done
			delete(gc.monitors, gvr)
		}
	}
	return nil
}

func (gc *GarbageCollector) startMonitor(ctx context.Context, w monitored) (*monitor, error) {
	lw, err := gc.md.ListWatch(w.gvr, "")
	if err != nil {
		return nil, err
	}
	inf := cache.NewInformer[*metav1.PartialObjectMetadata](lw, cache.InformerOptions{Resource: w.gvr.GroupResource()})
	gvr, kind := w.gvr, w.kind
	_, err = inf.AddEventHandler(cache.ResourceEventHandlerFuncs[*metav1.PartialObjectMetadata]{
		AddFunc:    func(obj *metav1.PartialObjectMetadata, _ bool) { gc.enqueue(gc.graph.observe(gvr, kind, obj)) },
		UpdateFunc: func(_, obj *metav1.PartialObjectMetadata) { gc.enqueue(gc.graph.observe(gvr, kind, obj)) },
		DeleteFunc: func(obj *metav1.PartialObjectMetadata) {
			gc.absent.add(obj.UID)
			gc.enqueue(gc.graph.forget(obj.UID))
		},
	})
	if err != nil {
		return nil, fmt.Errorf("watch %s: %w", w.gvr, err)
	}
	mctx, cancel := context.WithCancel(ctx)
	m := &monitor{kind: kind, informer: inf, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(m.done)
		inf.Run(mctx)
	}()
	return m, nil
}

func (gc *GarbageCollector) stopMonitors() {
	gc.mu.Lock()
	defer gc.mu.Unlock()
	for gvr, m := range gc.monitors {
		m.cancel()
		<-m.done
		delete(gc.monitors, gvr)
	}
}

// monitorsSynced reports whether every watched resource has been listed.
func (gc *GarbageCollector) monitorsSynced() bool {
	gc.mu.Lock()
	defer gc.mu.Unlock()
	for _, m := range gc.monitors {
		if !m.informer.HasSynced() {
			return false
		}
	}
	return true
}

func (gc *GarbageCollector) enqueue(w work) {
	for _, uid := range w.attemptToDelete {
		gc.attemptToDelete.Add(string(uid))
	}
	for _, uid := range w.attemptToOrphan {
		gc.attemptToOrphan.Add(string(uid))
	}
}

// resolve maps an owner reference's kind to its resource.
func (gc *GarbageCollector) resolve(apiVersion, kind string) (mapping, error) {
	gc.mu.Lock()
	m := gc.mapper
	gc.mu.Unlock()
	if m == nil {
		return mapping{}, errors.New("discovery has not run yet")
	}
	return m.resolve(apiVersion, kind)
}

// absentOwners remembers uids observed deleted or found absent, so that
// their dependents are collected without a GET each. UIDs are never
// reused, so an entry never goes stale; the set is cleared when full.
type absentOwners struct {
	mu   sync.Mutex
	max  int
	uids map[types.UID]struct{}
}

func newAbsentOwners(max int) *absentOwners {
	return &absentOwners{max: max, uids: map[types.UID]struct{}{}}
}

func (a *absentOwners) add(uid types.UID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.uids) >= a.max {
		clear(a.uids)
	}
	a.uids[uid] = struct{}{}
}

func (a *absentOwners) has(uid types.UID) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.uids[uid]
	return ok
}
