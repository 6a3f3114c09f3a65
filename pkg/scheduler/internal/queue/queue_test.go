package queue

import (
	"sync"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/util/workqueue"

	"kubecore.io/kubecore/pkg/scheduler/framework"
)

// fakeClock is a manual clock whose AfterFunc calls run on Step.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	at      time.Time
	f       func()
	stopped bool
}

func (t *fakeTimer) Stop() bool { s := !t.stopped; t.stopped = true; return s }

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *fakeClock) AfterFunc(d time.Duration, f func()) workqueue.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return t
}

func (c *fakeClock) Step(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []*fakeTimer
	rest := c.timers[:0]
	for _, t := range c.timers {
		if !t.stopped && !t.at.After(c.now) {
			due = append(due, t)
		} else if !t.stopped {
			rest = append(rest, t)
		}
	}
	c.timers = rest
	c.mu.Unlock()
	for _, t := range due {
		t.f()
	}
}

func pod(name string, priority int32) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(name)}, Spec: corev1.PodSpec{Priority: &priority}}
}

func TestPriorityThenArrival(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1000, 0)}
	q := New(Options{Clock: clock})
	for _, p := range []*corev1.Pod{pod("low", 0), pod("high", 10), pod("low2", 0), pod("high2", 10)} {
		q.Add(p)
		clock.Step(time.Millisecond)
	}
	for _, want := range []string{"high", "high2", "low", "low2"} {
		p, err := q.Pop()
		if err != nil {
			t.Fatal(err)
		}
		if p.Pod.Name != want {
			t.Errorf("popped %s, want %s", p.Pod.Name, want)
		}
	}
}

func TestBackoffDoubling(t *testing.T) {
	q := New(Options{})
	p := &QueuedPodInfo{}
	for attempts, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 8 * time.Second, 5: 10 * time.Second, 9: 10 * time.Second} {
		p.Attempts = attempts
		if got := q.backoffDuration(p); got != want {
			t.Errorf("attempts %d: back-off %s, want %s", attempts, got, want)
		}
	}
}

func TestUnschedulableMovedOnlyByMatchingEvents(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1000, 0)}
	nodeAdd := framework.ClusterEvent{Resource: framework.NodeResource, ActionType: framework.Add}
	podDelete := framework.ClusterEvent{Resource: framework.AssignedPod, ActionType: framework.Delete}
	q := New(Options{Clock: clock, EventMatters: func(ev framework.ClusterEvent, plugins map[string]struct{}) bool {
		_, fit := plugins["Fit"]
		return fit && ev.Resource == framework.AssignedPod
	}})
	q.Add(pod("p", 0))
	p, _ := q.Pop()
	q.AddUnschedulableIfNotPresent(p, map[string]struct{}{"Fit": {}})
	if where := q.Has(p.Pod); where != "unschedulable" {
		t.Fatalf("pod is in %q, want unschedulable", where)
	}
	// Time alone never moves it.
	clock.Step(time.Hour)
	q.MoveAllToActiveOrBackoffQueue(nodeAdd, nil)
	if where := q.Has(p.Pod); where != "unschedulable" {
		t.Fatalf("after an unrelated event the pod is in %q", where)
	}
	q.MoveAllToActiveOrBackoffQueue(podDelete, nil)
	if where := q.Has(p.Pod); where != "active" {
		t.Fatalf("after a matching event the pod is in %q, want active (its back-off is over)", where)
	}
}

func TestEventDuringFlightAndBackoffTimer(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1000, 0)}
	q := New(Options{Clock: clock})
	q.Add(pod("p", 0))
	p, _ := q.Pop()
	// An event arrives while the pod is being scheduled: it must not wait
	// in the unschedulable set for another one.
	q.MoveAllToActiveOrBackoffQueue(framework.ClusterEvent{Resource: framework.NodeResource, ActionType: framework.Add}, nil)
	q.AddUnschedulableIfNotPresent(p, map[string]struct{}{"X": {}})
	if where := q.Has(p.Pod); where != "backoff" {
		t.Fatalf("pod is in %q, want backoff", where)
	}
	clock.Step(999 * time.Millisecond)
	if where := q.Has(p.Pod); where != "backoff" {
		t.Fatalf("pod left back-off early: %q", where)
	}
	clock.Step(time.Millisecond)
	if where := q.Has(p.Pod); where != "active" {
		t.Fatalf("pod is in %q after its back-off, want active", where)
	}
}

func TestUpdateAndDelete(t *testing.T) {
	q := New(Options{})
	old := pod("p", 0)
	q.Add(old)
	p, _ := q.Pop()
	q.AddUnschedulableIfNotPresent(p, map[string]struct{}{"X": {}})
	// A status-only update leaves it waiting.
	statusOnly := old.DeepCopy()
	statusOnly.Status.Message = "x"
	q.Update(old, statusOnly)
	if where := q.Has(old); where != "unschedulable" {
		t.Fatalf("after a status update the pod is in %q", where)
	}
	// A spec change gives it another try.
	changed := statusOnly.DeepCopy()
	changed.Spec.NodeSelector = map[string]string{"a": "b"}
	q.Update(statusOnly, changed)
	if where := q.Has(old); where == "unschedulable" || where == "" {
		t.Fatalf("after a spec update the pod is in %q", where)
	}
	q.Delete(changed)
	if where := q.Has(old); where != "" {
		t.Fatalf("deleted pod is in %q", where)
	}
	q.Close()
	if _, err := q.Pop(); err != ErrClosed {
		t.Errorf("Pop after Close = %v", err)
	}
}

func TestNominator(t *testing.T) {
	q := New(Options{})
	p := pod("p", 5)
	pi, _ := framework.NewPodInfo(p)
	q.AddNominatedPod(pi, "n1")
	if got := q.NominatedPodsForNode("n1"); len(got) != 1 || got[0].Pod.Name != "p" {
		t.Fatalf("nominated = %v", got)
	}
	q.AddNominatedPod(pi, "n2")
	if len(q.NominatedPodsForNode("n1")) != 0 || len(q.NominatedPodsForNode("n2")) != 1 {
		t.Error("renomination did not move the pod")
	}
	q.DeleteNominatedPodIfExists(p)
	if len(q.NominatedPodsForNode("n2")) != 0 {
		t.Error("nomination not deleted")
	}
}
