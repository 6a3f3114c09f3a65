package main

import (
	"context"
	"sync"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"
)

// The states a tracker counts objects in; each implies the ones before.
const (
	stateCreated   = iota // exists
	stateScheduled        // a pod bound to a node (a node is "scheduled" as soon as it exists)
	stateReady            // a Ready node, a Running pod
	numStates
)

// classify returns an object's key, its state and its resourceVersion.
type classify func(runtime.Object) (key string, state int, rv string, ok bool)

func nodeState(o runtime.Object) (string, int, string, bool) {
	n, ok := o.(*corev1.Node)
	if !ok {
		return "", 0, "", false
	}
	state := stateScheduled
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
			state = stateReady
		}
	}
	return n.Name, state, n.ResourceVersion, true
}

func podState(o runtime.Object) (string, int, string, bool) {
	p, ok := o.(*corev1.Pod)
	if !ok {
		return "", 0, "", false
	}
	state := stateCreated
	if p.Spec.NodeName != "" {
		state = stateScheduled
	}
	if p.Status.Phase == corev1.PodRunning {
		state = stateReady
	}
	return p.Namespace + "/" + p.Name, state, p.ResourceVersion, true
}

// tracker counts the objects of one resource by state through a list and a
// watch, listing again when the watch cannot resume.
type tracker struct {
	classify classify

	mu        sync.Mutex
	state     map[string]int
	counts    [numStates]int
	isSynced  bool
	lastReady time.Time
}

func newTracker(c classify) *tracker { return &tracker{classify: c, state: map[string]int{}} }

func (t *tracker) count(state int) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.counts[state]
}

func (t *tracker) synced() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.isSynced
}

// lastReadyAt is when the last object reached stateReady.
func (t *tracker) lastReadyAt() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastReady
}

func (t *tracker) set(key string, state int, present bool) {
	if old, ok := t.state[key]; ok {
		for s := 0; s <= old; s++ {
			t.counts[s]--
		}
	}
	if !present {
		delete(t.state, key)
		return
	}
	t.state[key] = state
	for s := 0; s <= state; s++ {
		t.counts[s]++
	}
	if state == stateReady {
		t.lastReady = time.Now()
	}
}

func (t *tracker) run(ctx context.Context,
	watchFn func(context.Context, metav1.ListOptions) (watch.Interface, error),
	list func(context.Context) (string, []runtime.Object, error)) {
	rv := ""
	for ctx.Err() == nil {
		if rv == "" {
			listRV, objs, err := list(ctx)
			if err != nil {
				_ = sleep(ctx, time.Second)
				continue
			}
			t.mu.Lock()
			t.state, t.counts = map[string]int{}, [numStates]int{}
			for _, o := range objs {
				if key, state, _, ok := t.classify(o); ok {
					t.set(key, state, true)
				}
			}
			t.isSynced = true
			t.mu.Unlock()
			rv = listRV
		}
		w, err := watchFn(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
		if err != nil {
			rv = ""
			_ = sleep(ctx, time.Second)
			continue
		}
		for ev := range w.ResultChan() {
			if ev.Type == watch.Error {
				rv = ""
				break
			}
			key, state, objRV, ok := t.classify(ev.Object)
			if !ok {
				continue
			}
			rv = objRV
			if ev.Type == watch.Bookmark {
				continue
			}
			t.mu.Lock()
			t.set(key, state, ev.Type != watch.Deleted)
			t.mu.Unlock()
		}
		w.Stop()
	}
}
