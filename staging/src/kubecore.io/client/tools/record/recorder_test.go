package record

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
)

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Step(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// fakeSink stores Events in memory; gate, when set, holds every write until closed.
type fakeSink struct {
	gate chan struct{}

	mu      sync.Mutex
	events  map[string]*corev1.Event // namespace/name
	creates int
	patches int
}

var eventsResource = schema.GroupResource{Resource: "events"}

func newFakeSink() *fakeSink { return &fakeSink{events: map[string]*corev1.Event{}} }

func (s *fakeSink) wait() {
	if s.gate != nil {
		<-s.gate
	}
}

func (s *fakeSink) Create(_ context.Context, ev *corev1.Event) (*corev1.Event, error) {
	s.wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	key := ev.Namespace + "/" + ev.Name
	if _, ok := s.events[key]; ok {
		return nil, apierrors.NewAlreadyExists(eventsResource, ev.Name)
	}
	s.creates++
	s.events[key] = ev.DeepCopy()
	return ev.DeepCopy(), nil
}

func (s *fakeSink) Patch(_ context.Context, namespace, name string, patch []byte) (*corev1.Event, error) {
	s.wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	ev, ok := s.events[namespace+"/"+name]
	if !ok {
		return nil, apierrors.NewNotFound(eventsResource, name)
	}
	if err := json.Unmarshal(patch, ev); err != nil {
		return nil, err
	}
	s.patches++
	return ev.DeepCopy(), nil
}

func (s *fakeSink) list() []*corev1.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*corev1.Event
	for _, ev := range s.events {
		out = append(out, ev.DeepCopy())
	}
	return out
}

func (s *fakeSink) remove(ev *corev1.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.events, ev.Namespace+"/"+ev.Name)
}

func pod(name string) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name), ResourceVersion: "7"},
	}
}

func start(t *testing.T, sink EventSink, opts Options) (*Broadcaster, EventRecorder) {
	t.Helper()
	b := NewBroadcaster(context.Background(), sink, opts)
	return b, b.NewRecorder(nil, corev1.EventSource{Component: "kubecore-scheduler", Host: "node-1"})
}

func shutdown(t *testing.T, b *Broadcaster) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := b.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestEventFields(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	sink := newFakeSink()
	b, r := start(t, sink, Options{Clock: clock})
	r.AnnotatedEventf(pod("web"), map[string]string{"a": "b"}, corev1.EventTypeWarning, "FailedScheduling", "0/%d nodes are available", 3)
	node := &corev1.Node{TypeMeta: metav1.TypeMeta{Kind: "Node", APIVersion: "v1"}, ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
	r.Event(node, corev1.EventTypeNormal, "Ready", "node is ready")
	shutdown(t, b)
	events := sink.list()
	if len(events) != 2 {
		t.Fatalf("got %d events, want 2", len(events))
	}
	byReason := map[string]*corev1.Event{}
	for _, ev := range events {
		byReason[ev.Reason] = ev
	}
	ev := byReason["FailedScheduling"]
	wantName := fmt.Sprintf("web.%x", clock.now.UnixNano())
	checks := []struct{ field, got, want string }{
		{"name", ev.Name, wantName},
		{"namespace", ev.Namespace, "ns"},
		{"message", ev.Message, "0/3 nodes are available"},
		{"type", ev.Type, "Warning"},
		{"involvedObject.kind", ev.InvolvedObject.Kind, "Pod"},
		{"involvedObject.apiVersion", ev.InvolvedObject.APIVersion, "v1"},
		{"involvedObject.name", ev.InvolvedObject.Name, "web"},
		{"involvedObject.uid", string(ev.InvolvedObject.UID), "uid-web"},
		{"involvedObject.resourceVersion", ev.InvolvedObject.ResourceVersion, "7"},
		{"source.component", ev.Source.Component, "kubecore-scheduler"},
		{"source.host", ev.Source.Host, "node-1"},
		{"reportingComponent", ev.ReportingController, "kubecore-scheduler"},
		{"reportingInstance", ev.ReportingInstance, "node-1"},
		{"annotation a", ev.Annotations["a"], "b"},
		{"node event namespace", byReason["Ready"].Namespace, "default"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.field, c.got, c.want)
		}
	}
	if ev.Count != 1 || !ev.FirstTimestamp.Time.Equal(clock.now) || !ev.LastTimestamp.Time.Equal(clock.now) {
		t.Errorf("count=%d first=%v last=%v, want 1 and %v", ev.Count, ev.FirstTimestamp, ev.LastTimestamp, clock.now)
	}
}

func TestAggregatesRepeats(t *testing.T) {
	start0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := &fakeClock{now: start0}
	sink := newFakeSink()
	b, r := start(t, sink, Options{Clock: clock})
	for range 5 {
		r.Event(pod("web"), corev1.EventTypeWarning, "BackOff", "restarting failed container")
		clock.Step(time.Second)
	}
	r.Event(pod("web"), corev1.EventTypeWarning, "BackOff", "another message")
	r.Event(pod("api"), corev1.EventTypeWarning, "BackOff", "restarting failed container")
	shutdown(t, b)
	if sink.creates != 3 || sink.patches != 4 {
		t.Fatalf("creates=%d patches=%d, want 3 and 4", sink.creates, sink.patches)
	}
	for _, ev := range sink.list() {
		if ev.InvolvedObject.Name != "web" || ev.Message != "restarting failed container" {
			continue
		}
		if ev.Count != 5 {
			t.Errorf("count = %d, want 5", ev.Count)
		}
		if !ev.FirstTimestamp.Time.Equal(start0) || !ev.LastTimestamp.Time.Equal(start0.Add(4*time.Second)) {
			t.Errorf("first=%v last=%v, want %v and %v", ev.FirstTimestamp, ev.LastTimestamp, start0, start0.Add(4*time.Second))
		}
	}
}

func TestRepeatOfDeletedEventIsCreatedAgain(t *testing.T) {
	sink := newFakeSink()
	b, r := start(t, sink, Options{})
	r.Event(pod("web"), corev1.EventTypeNormal, "Pulled", "image pulled")
	shutdown(t, b)
	first := sink.list()[0]
	sink.remove(first)

	b2 := NewBroadcaster(context.Background(), sink, Options{})
	// Share the aggregation cache by reusing the first broadcaster's state.
	b2.seen = b.seen
	r2 := b2.NewRecorder(nil, corev1.EventSource{Component: "kubecore-scheduler", Host: "node-1"})
	time.Sleep(time.Millisecond) // a distinct name for the new Event
	r2.Event(pod("web"), corev1.EventTypeNormal, "Pulled", "image pulled")
	shutdown(t, b2)
	events := sink.list()
	if len(events) != 1 || events[0].Count != 2 || events[0].Name == first.Name {
		t.Fatalf("events = %+v, want one new Event with count 2", events)
	}
}

func TestRateLimitPerObject(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	sink := newFakeSink()
	b, r := start(t, sink, Options{Clock: clock, Burst: 3, RefillInterval: time.Minute})
	for i := range 10 {
		r.Eventf(pod("web"), corev1.EventTypeNormal, "Tick", "tick %d", i)
	}
	r.Event(pod("other"), corev1.EventTypeNormal, "Tick", "other object has its own bucket")
	clock.Step(time.Minute)
	r.Event(pod("web"), corev1.EventTypeNormal, "Tick", "after refill")
	r.Event(pod("web"), corev1.EventTypeNormal, "Tick", "over the limit again")
	shutdown(t, b)
	got := map[string]bool{}
	for _, ev := range sink.list() {
		got[ev.Message] = true
	}
	want := []string{"tick 0", "tick 1", "tick 2", "other object has its own bucket", "after refill"}
	if len(got) != len(want) {
		t.Errorf("got %d events %v, want %v", len(got), got, want)
	}
	for _, m := range want {
		if !got[m] {
			t.Errorf("missing event %q", m)
		}
	}
}

func TestNeverBlocks(t *testing.T) {
	sink := newFakeSink()
	sink.gate = make(chan struct{})
	b, r := start(t, sink, Options{QueueSize: 10, Burst: 100000})
	began := time.Now()
	for i := range 10000 {
		r.Eventf(pod(fmt.Sprintf("p%d", i%50)), corev1.EventTypeNormal, "Tick", "tick %d", i)
	}
	elapsed := time.Since(began)
	t.Logf("figure: 10000 Event calls against a stalled sink took %v (target: no blocking, < 2s)", elapsed)
	if elapsed > 2*time.Second {
		t.Errorf("recording took %v with a stalled sink", elapsed)
	}
	close(sink.gate)
	shutdown(t, b)
	if n := sink.creates; n == 0 || n > 11 {
		t.Errorf("%d events written, want between 1 and 11 (queue of 10 plus the one in flight)", n)
	}
	// After Shutdown, recording still returns at once and writes nothing.
	r.Event(pod("late"), corev1.EventTypeNormal, "Late", "after shutdown")
	for _, ev := range sink.list() {
		if ev.Reason == "Late" {
			t.Error("an Event recorded after Shutdown was written")
		}
	}
}

func TestShutdownTimeout(t *testing.T) {
	sink := newFakeSink()
	sink.gate = make(chan struct{})
	defer close(sink.gate)
	b, r := start(t, sink, Options{})
	r.Event(pod("web"), corev1.EventTypeNormal, "Stuck", "the sink never answers")
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := b.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown = %v, want deadline exceeded", err)
	}
}

type kindsOf map[string]schema.GroupVersionKind

func (k kindsOf) ObjectKind(obj runtime.Object) (schema.GroupVersionKind, error) {
	gvk, ok := k[fmt.Sprintf("%T", obj)]
	if !ok {
		return schema.GroupVersionKind{}, fmt.Errorf("unregistered type %T", obj)
	}
	return gvk, nil
}

func TestInvalidEventsAreDropped(t *testing.T) {
	sink := newFakeSink()
	b := NewBroadcaster(context.Background(), sink, Options{})
	r := b.NewRecorder(kindsOf{"*v1.Pod": {Version: "v1", Kind: "Pod"}}, corev1.EventSource{Component: "c"})
	bare := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "bare"}}
	tests := []struct {
		name string
		obj  runtime.Object
		typ  string
		want bool
	}{
		{name: "kind resolved by the resolver", obj: bare, typ: corev1.EventTypeNormal, want: true},
		{name: "unknown type", obj: pod("x"), typ: "Error"},
		{name: "nil object", obj: nil, typ: corev1.EventTypeNormal},
		{name: "kind unknown to the resolver", obj: &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}}, typ: corev1.EventTypeNormal},
	}
	for _, tt := range tests {
		r.Event(tt.obj, tt.typ, "Reason", tt.name)
	}
	shutdown(t, b)
	got := map[string]bool{}
	for _, ev := range sink.list() {
		got[ev.Message] = true
		if ev.InvolvedObject.Kind != "Pod" || ev.InvolvedObject.APIVersion != "v1" {
			t.Errorf("involvedObject = %+v, want kind Pod v1", ev.InvolvedObject)
		}
	}
	for _, tt := range tests {
		if got[tt.name] != tt.want {
			t.Errorf("%s: written=%v, want %v", tt.name, got[tt.name], tt.want)
		}
	}
}

// TestReferenceEvents: an Event about a part of an object keeps its field
// path; repeats about one part fold into one Event, other parts get theirs.
func TestReferenceEvents(t *testing.T) {
	sink := newFakeSink()
	b, r := start(t, sink, Options{})
	ref := func(fieldPath string) *Reference {
		return &Reference{ObjectReference: corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: "ns", Name: "web", UID: "uid-web", FieldPath: fieldPath}}
	}
	r.Event(ref("spec.containers{app}"), corev1.EventTypeWarning, "Unhealthy", "Readiness probe failed: no")
	r.Event(ref("spec.containers{app}"), corev1.EventTypeWarning, "Unhealthy", "Readiness probe failed: no")
	r.Event(ref("spec.initContainers{setup}"), corev1.EventTypeWarning, "Unhealthy", "Readiness probe failed: no")
	r.Event(&Reference{}, corev1.EventTypeNormal, "Nothing", "a reference without kind or name is dropped")
	shutdown(t, b)
	got := map[string]int32{}
	for _, ev := range sink.list() {
		if ev.InvolvedObject.Kind != "Pod" || ev.InvolvedObject.Name != "web" || ev.Namespace != "ns" {
			t.Errorf("event %s is about %+v", ev.Name, ev.InvolvedObject)
		}
		got[ev.InvolvedObject.FieldPath] += ev.Count
	}
	want := map[string]int32{"spec.containers{app}": 2, "spec.initContainers{setup}": 1}
	if len(got) != len(want) || got["spec.containers{app}"] != 2 || got["spec.initContainers{setup}"] != 1 {
		t.Errorf("counts by field path = %v, want %v", got, want)
	}
	if sink.creates != 2 || sink.patches != 1 {
		t.Errorf("creates, patches = %d, %d; want 2, 1", sink.creates, sink.patches)
	}
}
