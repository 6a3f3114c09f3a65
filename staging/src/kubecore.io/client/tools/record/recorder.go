// Package record reports core/v1 Events about objects: asynchronously, with
// repeats folded into one Event's count and a per-object rate limit.
package record

import (
	"container/list"
	"context"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"k8s.io/klog/v2"
)

// EventRecorder reports Events about objects. Its methods never block.
type EventRecorder interface {
	// Event reports an Event of eventType (Normal or Warning) about obj.
	Event(obj runtime.Object, eventType, reason, message string)
	// Eventf is Event with a formatted message.
	Eventf(obj runtime.Object, eventType, reason, messageFmt string, args ...any)
	// AnnotatedEventf is Eventf that also sets annotations on the Event.
	AnnotatedEventf(obj runtime.Object, annotations map[string]string, eventType, reason, messageFmt string, args ...any)
}

// KindResolver finds the kind of a typed object whose TypeMeta is empty;
// *runtime.Scheme satisfies it.
type KindResolver interface {
	ObjectKind(obj runtime.Object) (schema.GroupVersionKind, error)
}

// Clock reads the time; tests inject a fake one.
type Clock interface {
	Now() time.Time
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

// Options tunes a Broadcaster; the zero value gives the defaults.
type Options struct {
	// QueueSize bounds the Events waiting to be written; when it is full new
	// Events are dropped. Default 1000.
	QueueSize int
	// Burst and RefillInterval set the token bucket of each object: Burst
	// Events at once, then one more per RefillInterval. Defaults 25 and 5m.
	Burst          int
	RefillInterval time.Duration
	// CacheSize bounds the Events remembered for aggregation. Default 4096.
	CacheSize int
	// WriteTimeout bounds each write to the sink. Default 10s.
	WriteTimeout time.Duration
	// Clock is the time source; nil means the wall clock.
	Clock Clock
}

func (o *Options) complete() {
	if o.QueueSize <= 0 {
		o.QueueSize = 1000
	}
	if o.Burst <= 0 {
		o.Burst = 25
	}
	if o.RefillInterval <= 0 {
		o.RefillInterval = 5 * time.Minute
	}
	if o.CacheSize <= 0 {
		o.CacheSize = 4096
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 10 * time.Second
	}
	if o.Clock == nil {
		o.Clock = realClock{}
	}
}

// Broadcaster writes the Events of its recorders to a sink from one
// goroutine, so that recording never waits on the API server.
type Broadcaster struct {
	sink   EventSink
	opts   Options
	logger klog.Logger

	mu     sync.Mutex // guards queue sends against Shutdown's close
	closed bool
	queue  chan *corev1.Event
	done   chan struct{}

	// owned by the writer goroutine
	buckets *lru[string, *bucket]
	seen    *lru[aggregateKey, *corev1.Event]
}

// NewBroadcaster starts a Broadcaster writing to sink. The logger of ctx
// reports dropped and failed Events; ctx does not stop it: Shutdown does.
func NewBroadcaster(ctx context.Context, sink EventSink, opts Options) *Broadcaster {
	opts.complete()
	b := &Broadcaster{
		sink:    sink,
		opts:    opts,
		logger:  klog.FromContext(ctx),
		queue:   make(chan *corev1.Event, opts.QueueSize),
		done:    make(chan struct{}),
		buckets: newLRU[string, *bucket](opts.CacheSize),
		seen:    newLRU[aggregateKey, *corev1.Event](opts.CacheSize),
	}
	go b.run()
	return b
}

// Shutdown stops accepting Events, writes those already queued and returns
// when done or when ctx ends, whichever is first.
func (b *Broadcaster) Shutdown(ctx context.Context) error {
	b.mu.Lock()
	if !b.closed {
		b.closed = true
		close(b.queue)
	}
	b.mu.Unlock()
	select {
	case <-b.done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("shut down event broadcaster: %w", ctx.Err())
	}
}

// NewRecorder returns a recorder whose Events name source as their reporter;
// kinds resolves the kind of objects without TypeMeta and may be nil.
func (b *Broadcaster) NewRecorder(kinds KindResolver, source corev1.EventSource) EventRecorder {
	return &recorder{b: b, kinds: kinds, source: source}
}

// enqueue hands ev to the writer without blocking; it reports false when ev
// was dropped.
func (b *Broadcaster) enqueue(ev *corev1.Event) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	select {
	case b.queue <- ev:
		return true
	default:
		return false
	}
}

func (b *Broadcaster) run() {
	defer close(b.done)
	for ev := range b.queue {
		if !b.allow(ev) {
			b.logger.V(4).Info("Dropping event over its object's rate limit", "object", klog.KRef(ev.InvolvedObject.Namespace, ev.InvolvedObject.Name), "reason", ev.Reason)
			continue
		}
		if err := b.write(ev); err != nil {
			b.logger.Error(err, "Failed to write event", "object", klog.KRef(ev.InvolvedObject.Namespace, ev.InvolvedObject.Name), "reason", ev.Reason)
		}
	}
}

// bucket is one object's token bucket.
type bucket struct {
	tokens float64
	last   time.Time
}

// allow takes a token from the bucket of ev's object.
func (b *Broadcaster) allow(ev *corev1.Event) bool {
	ref := ev.InvolvedObject
	key := ev.Source.Component + "\x00" + ev.Source.Host + "\x00" + ref.Kind + "\x00" + ref.Namespace + "\x00" + ref.Name + "\x00" + string(ref.UID) + "\x00" + ref.APIVersion
	now := ev.LastTimestamp.Time // when it was recorded, not when it is written
	bk, ok := b.buckets.get(key)
	if !ok {
		bk = &bucket{tokens: float64(b.opts.Burst), last: now}
		b.buckets.put(key, bk)
	}
	if elapsed := now.Sub(bk.last); elapsed > 0 {
		bk.tokens = min(float64(b.opts.Burst), bk.tokens+float64(elapsed)/float64(b.opts.RefillInterval))
		bk.last = now
	}
	if bk.tokens < 1 {
		return false
	}
	bk.tokens--
	return true
}

// aggregateKey identifies repeats of one Event.
type aggregateKey struct {
	component, host                  string
	kind, namespace, name, uid, apiV string
	fieldPath                        string
	eventType, reason, message       string
}

func keyOf(ev *corev1.Event) aggregateKey {
	r := ev.InvolvedObject
	return aggregateKey{
		component: ev.Source.Component, host: ev.Source.Host,
		kind: r.Kind, namespace: r.Namespace, name: r.Name, uid: string(r.UID), apiV: r.APIVersion,
		fieldPath: r.FieldPath,
		eventType: ev.Type, reason: ev.Reason, message: ev.Message,
	}
}

// write creates ev, or, if it repeats an Event written before, patches that
// Event's count and lastTimestamp; a repeat whose Event is gone is created anew.
func (b *Broadcaster) write(ev *corev1.Event) error {
	ctx, cancel := context.WithTimeout(context.Background(), b.opts.WriteTimeout)
	defer cancel()
	key := keyOf(ev)
	if prev, ok := b.seen.get(key); ok {
		count := prev.Count + 1
		patch, err := repeatPatch(count, ev.LastTimestamp)
		if err != nil {
			return fmt.Errorf("encode patch of event %s/%s: %w", prev.Namespace, prev.Name, err)
		}
		out, err := b.sink.Patch(ctx, prev.Namespace, prev.Name, patch)
		if err == nil {
			b.seen.put(key, out)
			return nil
		}
		if !apierrors.IsNotFound(err) {
			return err
		}
		ev.Count = count
		ev.FirstTimestamp = prev.FirstTimestamp
	}
	out, err := b.sink.Create(ctx, ev)
	if err != nil {
		return err
	}
	b.seen.put(key, out)
	return nil
}

// recorder makes Events and hands them to its Broadcaster.
type recorder struct {
	b      *Broadcaster
	kinds  KindResolver
	source corev1.EventSource
	// lastStamp is the last name suffix used, so that Events recorded in
	// the same clock tick still get distinct names.
	lastStamp atomic.Int64
}

// stamp returns a name suffix for now, later than any returned before.
func (r *recorder) stamp(now time.Time) int64 {
	for {
		last := r.lastStamp.Load()
		next := max(now.UnixNano(), last+1)
		if r.lastStamp.CompareAndSwap(last, next) {
			return next
		}
	}
}

var _ EventRecorder = (*recorder)(nil)

func (r *recorder) Event(obj runtime.Object, eventType, reason, message string) {
	r.record(obj, nil, eventType, reason, message)
}

func (r *recorder) Eventf(obj runtime.Object, eventType, reason, messageFmt string, args ...any) {
	r.record(obj, nil, eventType, reason, fmt.Sprintf(messageFmt, args...))
}

func (r *recorder) AnnotatedEventf(obj runtime.Object, annotations map[string]string, eventType, reason, messageFmt string, args ...any) {
	r.record(obj, annotations, eventType, reason, fmt.Sprintf(messageFmt, args...))
}

func (r *recorder) record(obj runtime.Object, annotations map[string]string, eventType, reason, message string) {
	logger := r.b.logger
	if eventType != corev1.EventTypeNormal && eventType != corev1.EventTypeWarning {
		logger.Error(fmt.Errorf("unsupported event type %q", eventType), "Dropping event", "reason", reason)
		return
	}
	ref, err := r.reference(obj)
	if err != nil {
		logger.Error(err, "Dropping event: cannot refer to its object", "reason", reason)
		return
	}
	now := r.b.opts.Clock.Now()
	namespace := ref.Namespace
	if namespace == "" {
		namespace = metav1.NamespaceDefault
	}
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{
			Name:        fmt.Sprintf("%s.%x", ref.Name, r.stamp(now)),
			Namespace:   namespace,
			Annotations: maps.Clone(annotations),
		},
		InvolvedObject:      ref,
		Reason:              reason,
		Message:             message,
		Source:              r.source,
		FirstTimestamp:      metav1.NewTime(now),
		LastTimestamp:       metav1.NewTime(now),
		Count:               1,
		Type:                eventType,
		ReportingController: r.source.Component,
		ReportingInstance:   r.source.Host,
	}
	if !r.b.enqueue(ev) {
		logger.V(2).Info("Dropping event: the event queue is full or shut down", "object", klog.KRef(ref.Namespace, ref.Name), "reason", reason)
	}
}

// Reference is an Event's object given by its reference: recorders take
// it as the involvedObject as it is. It names a part of an object, such as
// one container of a pod (FieldPath "spec.containers{name}").
type Reference struct {
	corev1.ObjectReference
}

var _ runtime.Object = (*Reference)(nil)

// DeepCopyObject copies the reference.
func (r *Reference) DeepCopyObject() runtime.Object {
	return &Reference{ObjectReference: *r.ObjectReference.DeepCopy()}
}

// reference builds the involvedObject of obj from its kind and metadata.
func (r *recorder) reference(obj runtime.Object) (corev1.ObjectReference, error) {
	if obj == nil {
		return corev1.ObjectReference{}, fmt.Errorf("nil object")
	}
	if ref, ok := obj.(*Reference); ok {
		if ref.Kind == "" || ref.Name == "" {
			return corev1.ObjectReference{}, fmt.Errorf("reference %+v has no kind or name", ref.ObjectReference)
		}
		return ref.ObjectReference, nil
	}
	meta, ok := obj.(metav1.Object)
	if !ok {
		return corev1.ObjectReference{}, fmt.Errorf("%T has no object metadata", obj)
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" && r.kinds != nil {
		var err error
		if gvk, err = r.kinds.ObjectKind(obj); err != nil {
			return corev1.ObjectReference{}, fmt.Errorf("find kind of %T: %w", obj, err)
		}
	}
	if gvk.Kind == "" {
		return corev1.ObjectReference{}, fmt.Errorf("kind of %T %q is unknown", obj, meta.GetName())
	}
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	return corev1.ObjectReference{
		Kind:            kind,
		APIVersion:      apiVersion,
		Namespace:       meta.GetNamespace(),
		Name:            meta.GetName(),
		UID:             meta.GetUID(),
		ResourceVersion: meta.GetResourceVersion(),
	}, nil
}

// lru is a bounded map that evicts the least recently used entry.
type lru[K comparable, V any] struct {
	max   int
	order *list.List // of *entry[K, V], most recent first
	items map[K]*list.Element
}

type entry[K comparable, V any] struct {
	key K
	val V
}

func newLRU[K comparable, V any](size int) *lru[K, V] {
	return &lru[K, V]{max: size, order: list.New(), items: map[K]*list.Element{}}
}

func (l *lru[K, V]) get(k K) (V, bool) {
	if el, ok := l.items[k]; ok {
		l.order.MoveToFront(el)
		return el.Value.(*entry[K, V]).val, true
	}
	var zero V
	return zero, false
}

func (l *lru[K, V]) put(k K, v V) {
	if el, ok := l.items[k]; ok {
		el.Value.(*entry[K, V]).val = v
		l.order.MoveToFront(el)
		return
	}
	l.items[k] = l.order.PushFront(&entry[K, V]{key: k, val: v})
	if l.order.Len() > l.max {
		last := l.order.Back()
		l.order.Remove(last)
		delete(l.items, last.Value.(*entry[K, V]).key)
	}
}

// discard drops every Event.
type discard struct{}

func (discard) Event(runtime.Object, string, string, string)          {}
func (discard) Eventf(runtime.Object, string, string, string, ...any) {}
func (discard) AnnotatedEventf(runtime.Object, map[string]string, string, string, string, ...any) {
}

// OrDiscard returns r, or a recorder that drops every Event when r is nil:
// a component built without one (as tests build controllers) reports
// through it unconditionally.
func OrDiscard(r EventRecorder) EventRecorder {
	if r == nil {
		return discard{}
	}
	return r
}
