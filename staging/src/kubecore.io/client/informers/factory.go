// Package informers shares one Informer per resource and list restriction
// (namespace, label and field selector) among the components of a process.
package informers

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"time"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/client/tools/cache"
)

// ListWatchSource makes the ListerWatcher of a resource in a namespace
// ("" for all namespaces); the typed client provides one.
type ListWatchSource interface {
	ListWatch(gvr schema.GroupVersionResource, namespace string) (cache.ListerWatcher, error)
}

// ListWatchSourceFunc is a ListWatchSource made of a function.
type ListWatchSourceFunc func(gvr schema.GroupVersionResource, namespace string) (cache.ListerWatcher, error)

var _ ListWatchSource = ListWatchSourceFunc(nil)

// ListWatch calls f.
func (f ListWatchSourceFunc) ListWatch(gvr schema.GroupVersionResource, namespace string) (cache.ListerWatcher, error) {
	return f(gvr, namespace)
}

// Option configures a SharedInformerFactory.
type Option func(*config)

type config struct {
	namespace string
	tweak     func(*metav1.ListOptions)
	informer  cache.InformerOptions
}

// WithNamespace restricts the informers to one namespace.
func WithNamespace(ns string) Option { return func(c *config) { c.namespace = ns } }

// WithTweakListOptions changes the options of every LIST and WATCH, e.g. to
// add a label or field selector.
func WithTweakListOptions(tweak func(*metav1.ListOptions)) Option {
	return func(c *config) { c.tweak = tweak }
}

// WithResync sets the resync period of the informers.
func WithResync(d time.Duration) Option { return func(c *config) { c.informer.ResyncPeriod = d } }

// WithReflectorOptions tunes paging, back-off and watch timeouts.
func WithReflectorOptions(o cache.ReflectorOptions) Option {
	return func(c *config) { c.informer.Reflector = o }
}

// informerKey identifies one shared informer: a resource under one
// restriction.
type informerKey struct {
	gvr                          schema.GroupVersionResource
	namespace, labels, fieldsSel string
}

// runnable is the type-independent face of a *cache.Informer[T].
type runnable interface {
	Run(ctx context.Context)
	HasSynced() bool
}

type entry struct {
	informer runnable
	typ      reflect.Type
	started  bool
}

// registry holds the informers of a factory and of every factory
// Restricted derives from it.
type registry struct {
	source ListWatchSource
	mu     sync.Mutex
	byKey  map[informerKey]*entry
	wg     sync.WaitGroup
}

// SharedInformerFactory hands out one Informer per resource and list
// restriction. Informers asked for before Start run at Start; those asked
// for after it run at the next Start.
type SharedInformerFactory struct {
	reg *registry
	cfg config
}

// NewSharedInformerFactory returns a factory of informers over source.
func NewSharedInformerFactory(source ListWatchSource, opts ...Option) *SharedInformerFactory {
	f := &SharedInformerFactory{reg: &registry{source: source, byKey: map[informerKey]*entry{}}}
	for _, o := range opts {
		o(&f.cfg)
	}
	return f
}

// Restricted returns a factory that shares this one's informers and Start,
// with other options (a namespace, a selector). Informers under the same
// restriction are shared between the two.
func (f *SharedInformerFactory) Restricted(opts ...Option) *SharedInformerFactory {
	g := &SharedInformerFactory{reg: f.reg, cfg: f.cfg}
	for _, o := range opts {
		o(&g.cfg)
	}
	return g
}

// For returns the shared Informer of gvr, whose objects are Ts (for pods,
// T is *corev1.Pod). Asking for one resource with two types is an error.
func For[T cache.Object](f *SharedInformerFactory, gvr schema.GroupVersionResource) (*cache.Informer[T], error) {
	var probe metav1.ListOptions
	if f.cfg.tweak != nil {
		f.cfg.tweak(&probe)
	}
	key := informerKey{gvr: gvr, namespace: f.cfg.namespace, labels: probe.LabelSelector, fieldsSel: probe.FieldSelector}
	typ := reflect.TypeFor[T]()

	reg := f.reg
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if e, ok := reg.byKey[key]; ok {
		inf, ok := e.informer.(*cache.Informer[T])
		if !ok {
			return nil, fmt.Errorf("informer of %s: already made for %s, not %s", gvr, e.typ, typ)
		}
		return inf, nil
	}
	lw, err := reg.source.ListWatch(gvr, f.cfg.namespace)
	if err != nil {
		return nil, fmt.Errorf("informer of %s: %w", gvr, err)
	}
	opts := f.cfg.informer
	if opts.Resource.Empty() {
		opts.Resource = gvr.GroupResource()
	}
	inf := cache.NewInformer[T](cache.TweakListOptions(lw, f.cfg.tweak), opts)
	reg.byKey[key] = &entry{informer: inf, typ: typ}
	return inf, nil
}

// Start runs every informer not yet running until ctx is done.
func (f *SharedInformerFactory) Start(ctx context.Context) {
	reg := f.reg
	reg.mu.Lock()
	defer reg.mu.Unlock()
	for _, e := range reg.byKey {
		if e.started {
			continue
		}
		e.started = true
		reg.wg.Add(1)
		go func(inf runnable) {
			defer reg.wg.Done()
			inf.Run(ctx)
		}(e.informer)
	}
}

// WaitForCacheSync waits until every started informer has synced or ctx is
// done, and reports which resources synced.
func (f *SharedInformerFactory) WaitForCacheSync(ctx context.Context) map[schema.GroupVersionResource]bool {
	reg := f.reg
	reg.mu.Lock()
	var keys []informerKey
	var synced []cache.InformerSynced
	for k, e := range reg.byKey {
		if e.started {
			keys = append(keys, k)
			synced = append(synced, e.informer.HasSynced)
		}
	}
	reg.mu.Unlock()
	cache.WaitForCacheSync(ctx, synced...)
	out := make(map[schema.GroupVersionResource]bool, len(keys))
	for i, k := range keys {
		ok := synced[i]()
		if prev, seen := out[k.gvr]; seen {
			ok = ok && prev
		}
		out[k.gvr] = ok
	}
	return out
}

// Shutdown waits for the informers to stop; cancel Start's context first.
func (f *SharedInformerFactory) Shutdown() { f.reg.wg.Wait() }
