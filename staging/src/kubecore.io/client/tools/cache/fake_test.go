package cache

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"
)

// fakeLW is a ListerWatcher over an in-memory set of pods. Each Watch call
// hands its FakeWatcher to the test through watchers; queued errors make
// the next calls fail.
type fakeLW struct {
	mu         sync.Mutex
	pods       map[string]*corev1.Pod
	rv         int
	pageSize   int // when >0 the fake pages lists with continue tokens
	listErrs   []error
	watchErrs  []error
	listOpts   []metav1.ListOptions
	watchOpts  []metav1.ListOptions
	watchers   chan *watch.FakeWatcher
	bufferSize int
}

func newFakeLW() *fakeLW {
	return &fakeLW{pods: map[string]*corev1.Pod{}, watchers: make(chan *watch.FakeWatcher, 100)}
}

func pod(ns, name, rv string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv}}
}

// set stores p at the next resourceVersion and returns it.
func (f *fakeLW) set(p *corev1.Pod) *corev1.Pod {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rv++
	p = p.DeepCopy()
	p.ResourceVersion = strconv.Itoa(f.rv)
	f.pods[objectKey(p)] = p
	return p
}

// remove deletes a pod and returns its final state.
func (f *fakeLW) remove(key string) *corev1.Pod {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rv++
	p := f.pods[key]
	delete(f.pods, key)
	return p
}

func (f *fakeLW) List(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.listOpts = append(f.listOpts, opts)
	if len(f.listErrs) > 0 {
		err := f.listErrs[0]
		f.listErrs = f.listErrs[1:]
		return nil, err
	}
	keys := make([]string, 0, len(f.pods))
	for k := range f.pods {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	start := 0
	if opts.Continue != "" {
		start, _ = strconv.Atoi(opts.Continue)
	}
	end := len(keys)
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(f.rv)}}
	if f.pageSize > 0 && opts.Limit > 0 && start+f.pageSize < end {
		end = start + f.pageSize
		list.Continue = strconv.Itoa(end)
	}
	for _, k := range keys[start:end] {
		list.Items = append(list.Items, *f.pods[k].DeepCopy())
	}
	return list, nil
}

func (f *fakeLW) Watch(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.watchOpts = append(f.watchOpts, opts)
	if len(f.watchErrs) > 0 {
		err := f.watchErrs[0]
		f.watchErrs = f.watchErrs[1:]
		return nil, err
	}
	w := watch.NewFakeWithChanSize(f.bufferSize)
	f.watchers <- w
	return w, nil
}

func (f *fakeLW) lastWatchOpts() metav1.ListOptions {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.watchOpts[len(f.watchOpts)-1]
}

func (f *fakeLW) lists() []metav1.ListOptions {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]metav1.ListOptions(nil), f.listOpts...)
}

func (f *fakeLW) nextWatcher(t testing.TB) *watch.FakeWatcher {
	t.Helper()
	select {
	case w := <-f.watchers:
		return w
	case <-time.After(10 * time.Second):
		t.Fatal("no WATCH call within 10s")
		return nil
	}
}

var expired = apierrors.NewResourceExpired("too old resource version: 1 (5)")

func expiredStatus() runtime.Object {
	st := expired.Status()
	return &st
}

// recorder is a handler that records what it is told as strings such as
// "add ns/a 3 initial", "update ns/a 3->4", "delete ns/a 4".
type recorder struct {
	mu     sync.Mutex
	events []string
	cond   *sync.Cond
}

func newRecorder() *recorder {
	r := &recorder{}
	r.cond = sync.NewCond(&r.mu)
	return r
}

func (r *recorder) record(s string) {
	r.mu.Lock()
	r.events = append(r.events, s)
	r.mu.Unlock()
	r.cond.Broadcast()
}

func (r *recorder) OnAdd(p *corev1.Pod, initial bool) {
	s := fmt.Sprintf("add %s %s", objectKey(p), p.ResourceVersion)
	if initial {
		s += " initial"
	}
	r.record(s)
}

func (r *recorder) OnUpdate(old, p *corev1.Pod) {
	r.record(fmt.Sprintf("update %s %s->%s", objectKey(p), old.ResourceVersion, p.ResourceVersion))
}

func (r *recorder) OnDelete(p *corev1.Pod) {
	r.record(fmt.Sprintf("delete %s %s", objectKey(p), p.ResourceVersion))
}

// wait waits for n events and returns the first n.
func (r *recorder) wait(t testing.TB, n int) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	timer := time.AfterFunc(10*time.Second, r.cond.Broadcast)
	defer timer.Stop()
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.events) < n {
		if time.Now().After(deadline) {
			t.Fatalf("got %d events, want %d: %q", len(r.events), n, r.events)
		}
		r.cond.Wait()
	}
	return append([]string(nil), r.events[:n]...)
}

func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

// fastOpts makes back-off short enough for tests.
var fastOpts = ReflectorOptions{InitialBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond}

// startInformer runs an informer of lw with one recorder until the test
// ends, and waits for its sync.
func startInformer(t *testing.T, lw ListerWatcher, opts InformerOptions) (*Informer[*corev1.Pod], *recorder) {
	t.Helper()
	if opts.Reflector.InitialBackoff == 0 {
		opts.Reflector = fastOpts
	}
	inf := NewInformer[*corev1.Pod](lw, opts)
	rec := newRecorder()
	if _, err := inf.AddEventHandler(rec); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { inf.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	syncCtx, syncCancel := context.WithTimeout(ctx, 10*time.Second)
	defer syncCancel()
	if !WaitForCacheSync(syncCtx, inf.HasSynced) {
		t.Fatal("informer did not sync")
	}
	return inf, rec
}
