package replicaset

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/tools/cache"

	"kubecore.io/kubecore/pkg/controller/podcontrol"
)

var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func newRS(replicas int32) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "rs-uid", Generation: 2, ResourceVersion: "1"},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web", "tier": "front"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}},
		},
	}
}

type podOpt func(*corev1.Pod)

func newPod(name string, opts ...podOpt) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name + "-uid"), ResourceVersion: "1",
		Labels: map[string]string{"app": "web", "tier": "front"}, CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))}}
	p.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(newRS(0), controllerKind)}
	for _, o := range opts {
		o(p)
	}
	return p
}

func orphan(p *corev1.Pod) { p.OwnerReferences = nil }
func onNode(p *corev1.Pod) { p.Spec.NodeName = "n1" }
func phase(ph corev1.PodPhase) podOpt {
	return func(p *corev1.Pod) { p.Status.Phase = ph }
}
func readySince(d time.Duration) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.NodeName = "n1"
		p.Status.Phase = corev1.PodRunning
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-d))}}
	}
}
func labelled(l map[string]string) podOpt { return func(p *corev1.Pod) { p.Labels = l } }
func created(ago time.Duration) podOpt {
	return func(p *corev1.Pod) { p.CreationTimestamp = metav1.NewTime(now.Add(-ago)) }
}
func restarts(n int32) podOpt {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", RestartCount: n}}
	}
}

// fakeCluster stands in for the API server.
type fakeCluster struct {
	mu         sync.Mutex
	created    []*corev1.Pod
	deleted    []string
	patched    map[string]string
	statuses   []appsv1.ReplicaSetStatus
	createErr  func(n int) error // n counts create calls from 1
	creates    int
	rs         *appsv1.ReplicaSet
	getErr     error
	updateErrs []error
}

func (f *fakeCluster) CreatePod(_ context.Context, pod *corev1.Pod, _ runtime.Object) (*corev1.Pod, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.creates++
	if f.createErr != nil {
		if err := f.createErr(f.creates); err != nil {
			return nil, err
		}
	}
	out := pod.DeepCopy()
	out.Name = fmt.Sprintf("%s%d", pod.GenerateName, f.creates)
	f.created = append(f.created, out)
	return out, nil
}

func (f *fakeCluster) DeletePod(_ context.Context, ns, name string, _ runtime.Object) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deleted = append(f.deleted, name)
	return nil
}

func (f *fakeCluster) Get(context.Context, string, metav1.GetOptions) (*appsv1.ReplicaSet, error) {
	return f.rs, f.getErr
}

func (f *fakeCluster) UpdateStatus(_ context.Context, rs *appsv1.ReplicaSet, _ metav1.UpdateOptions) (*appsv1.ReplicaSet, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.updateErrs) > 0 {
		err := f.updateErrs[0]
		f.updateErrs = f.updateErrs[1:]
		if err != nil {
			return nil, err
		}
	}
	f.statuses = append(f.statuses, rs.Status)
	return rs, nil
}

func (f *fakeCluster) patch(_ context.Context, ns, name string, patch []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.patched == nil {
		f.patched = map[string]string{}
	}
	f.patched[name] = string(patch)
	return nil
}

var _ podcontrol.Interface = (*fakeCluster)(nil)

func newTestController(t *testing.T, f *fakeCluster, rs *appsv1.ReplicaSet, pods ...*corev1.Pod) *Controller {
	t.Helper()
	rsIdx := cache.NewIndexer[*appsv1.ReplicaSet]()
	podIdx := cache.NewIndexer[*corev1.Pod]()
	if rs != nil {
		if err := rsIdx.Add(rs); err != nil {
			t.Fatal(err)
		}
		f.rs = rs
	}
	for _, p := range pods {
		if err := podIdx.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	return newController(func(string) ReplicaSetClient { return f }, f.patch, f,
		cache.NewLister(rsIdx, appsv1.Resource("replicasets")), cache.NewLister(podIdx, corev1.Resource("pods")),
		Options{BurstReplicas: 10, Now: func() time.Time { return now }})
}

func TestSync(t *testing.T) {
	tests := []struct {
		name        string
		rs          *appsv1.ReplicaSet
		pods        []*corev1.Pod
		fake        fakeCluster
		wantCreates int
		wantDeleted []string
		wantPatched []string
		wantErr     string
		wantStatus  appsv1.ReplicaSetStatus
		wantReason  string
	}{
		{name: "creates the missing pods", rs: newRS(3), pods: []*corev1.Pod{newPod("a")}, wantCreates: 2,
			wantStatus: appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ObservedGeneration: 2}},
		{name: "creates at most burst", rs: newRS(50), wantCreates: 10,
			wantStatus: appsv1.ReplicaSetStatus{ObservedGeneration: 2}},
		{name: "deletes the best victims", rs: newRS(1),
			pods:        []*corev1.Pod{newPod("ready", readySince(time.Hour)), newPod("pending", onNode, phase(corev1.PodPending)), newPod("unassigned")},
			wantDeleted: []string{"pending", "unassigned"},
			wantStatus:  appsv1.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 3, ReadyReplicas: 1, AvailableReplicas: 1, ObservedGeneration: 2}},
		{name: "ignores inactive pods", rs: newRS(1),
			pods:        []*corev1.Pod{newPod("done", phase(corev1.PodSucceeded)), newPod("gone", func(p *corev1.Pod) { ts := metav1.NewTime(now); p.DeletionTimestamp = &ts })},
			wantCreates: 1, wantStatus: appsv1.ReplicaSetStatus{ObservedGeneration: 2}},
		{name: "adopts orphans and releases strays", rs: newRS(2),
			pods:        []*corev1.Pod{newPod("orphan", orphan), newPod("stray", labelled(map[string]string{"app": "db"})), newPod("other", orphan, labelled(map[string]string{"app": "db"}))},
			wantPatched: []string{"orphan", "stray"}, wantCreates: 1,
			wantStatus: appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ObservedGeneration: 2}},
		{name: "counts fully labeled, ready and available", rs: func() *appsv1.ReplicaSet { rs := newRS(3); rs.Spec.MinReadySeconds = 30; return rs }(),
			pods:       []*corev1.Pod{newPod("a", readySince(time.Minute)), newPod("b", readySince(10*time.Second)), newPod("c", labelled(map[string]string{"app": "web"}))},
			wantStatus: appsv1.ReplicaSetStatus{Replicas: 3, FullyLabeledReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 1, ObservedGeneration: 2}},
		{name: "stops at the first failing batch and reports ReplicaFailure", rs: newRS(10),
			fake: fakeCluster{createErr: func(n int) error {
				if n >= 3 {
					return apierrors.NewForbidden(corev1.Resource("pods"), "", errors.New("exceeded quota"))
				}
				return nil
			}},
			wantCreates: 2, wantErr: "exceeded quota", wantReason: "FailedCreate",
			wantStatus: appsv1.ReplicaSetStatus{ObservedGeneration: 2}},
		{name: "clears ReplicaFailure once it works", rs: func() *appsv1.ReplicaSet {
			rs := newRS(1)
			rs.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate"}}
			return rs
		}(), pods: []*corev1.Pod{newPod("a")},
			wantStatus: appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ObservedGeneration: 2}},
		{name: "status update conflict is retried", rs: newRS(1), pods: []*corev1.Pod{newPod("a")},
			fake:       fakeCluster{updateErrs: []error{apierrors.NewConflict(appsv1.Resource("replicasets"), "web", errors.New("stale"))}},
			wantStatus: appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ObservedGeneration: 2}},
		{name: "a deleting ReplicaSet only reports status", rs: func() *appsv1.ReplicaSet {
			rs := newRS(5)
			ts := metav1.NewTime(now)
			rs.DeletionTimestamp = &ts
			return rs
		}(), pods: []*corev1.Pod{newPod("a")},
			wantStatus: appsv1.ReplicaSetStatus{Replicas: 1, FullyLabeledReplicas: 1, ObservedGeneration: 2}},
	}
	for i := range tests {
		tt := &tests[i]
		t.Run(tt.name, func(t *testing.T) {
			f := &tt.fake
			c := newTestController(t, f, tt.rs, tt.pods...)
			err := c.sync(context.Background(), "ns/web")
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if len(f.created) != tt.wantCreates {
				t.Errorf("created %d pods, want %d", len(f.created), tt.wantCreates)
			}
			for _, p := range f.created {
				ref := metav1.GetControllerOf(p)
				if ref == nil || ref.UID != "rs-uid" || p.GenerateName != "web-" || p.Labels["tier"] != "front" {
					t.Errorf("created pod %+v lacks the controllerRef, name or labels", p.ObjectMeta)
				}
			}
			if !sameSet(f.deleted, tt.wantDeleted) {
				t.Errorf("deleted %v, want %v", f.deleted, tt.wantDeleted)
			}
			var patched []string
			for name := range f.patched {
				patched = append(patched, name)
			}
			if !sameSet(patched, tt.wantPatched) {
				t.Errorf("patched %v, want %v", patched, tt.wantPatched)
			}
			if len(f.statuses) != 1 {
				t.Fatalf("%d status updates, want 1", len(f.statuses))
			}
			got := f.statuses[0]
			var reason string
			if len(got.Conditions) == 1 {
				reason = got.Conditions[0].Reason
			}
			if reason != tt.wantReason {
				t.Errorf("ReplicaFailure reason %q, want %q (conditions %v)", reason, tt.wantReason, got.Conditions)
			}
			got.Conditions = nil
			if !statusEqual(got, tt.wantStatus) {
				t.Errorf("status %+v, want %+v", got, tt.wantStatus)
			}
		})
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		seen[s]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

// TestExpectationsHoldBackResync checks that a second sync before the
// informer reports the new pods creates nothing more, and that once it has,
// the controller acts again.
func TestExpectationsHoldBackResync(t *testing.T) {
	f := &fakeCluster{}
	rs := newRS(3)
	c := newTestController(t, f, rs)
	ctx := context.Background()
	if err := c.sync(ctx, "ns/web"); err != nil {
		t.Fatal(err)
	}
	if err := c.sync(ctx, "ns/web"); err != nil {
		t.Fatal(err)
	}
	if len(f.created) != 3 {
		t.Fatalf("created %d pods over two syncs, want 3 (expectations must hold the second back)", len(f.created))
	}
	// The informer reports two of the three: still held back.
	c.expectations.CreationObserved("ns/web")
	c.expectations.CreationObserved("ns/web")
	if c.expectations.SatisfiedExpectations("ns/web") {
		t.Fatal("satisfied after 2 of 3 creations")
	}
	c.expectations.CreationObserved("ns/web")
	if !c.expectations.SatisfiedExpectations("ns/web") {
		t.Fatal("not satisfied after 3 of 3 creations")
	}
}

// TestDeletionCountedOnceAcrossEvents: a graceful deletion is reported as an
// update with deletionTimestamp and again as a delete; with a newer
// expectation in between, the late delete must not satisfy it.
func TestDeletionCountedOnceAcrossEvents(t *testing.T) {
	f := &fakeCluster{}
	rs := newRS(1)
	a, b := newPod("a", readySince(time.Hour)), newPod("b")
	c := newTestController(t, f, rs, a, b)
	if err := c.sync(context.Background(), "ns/web"); err != nil {
		t.Fatal(err)
	}
	if len(f.deleted) != 1 || f.deleted[0] != "b" {
		t.Fatalf("deleted %v, want [b]", f.deleted)
	}
	terminating := b.DeepCopy()
	ts := metav1.NewTime(now)
	terminating.DeletionTimestamp = &ts
	terminating.ResourceVersion = "2"
	pods := c.podHandler()
	pods.Update(b, terminating)
	if !c.expectations.SatisfiedExpectations("ns/web") {
		t.Fatal("the start of a graceful deletion was not observed")
	}
	c.expectations.ExpectDeletionsOf("ns/web", []types.UID{"a-uid"})
	pods.Delete(terminating)
	if c.expectations.SatisfiedExpectations("ns/web") {
		t.Fatal("the final delete of b satisfied the expectation for a")
	}
}

func TestPodsToDelete(t *testing.T) {
	tests := []struct {
		name string
		pods []*corev1.Pod
		want string // the first victim
	}{
		{name: "unassigned before assigned", pods: []*corev1.Pod{newPod("assigned", onNode, phase(corev1.PodPending)), newPod("unassigned")}, want: "unassigned"},
		{name: "pending before unknown", pods: []*corev1.Pod{newPod("unknown", onNode, phase(corev1.PodUnknown)), newPod("pending", onNode, phase(corev1.PodPending))}, want: "pending"},
		{name: "unknown before running", pods: []*corev1.Pod{newPod("running", onNode, phase(corev1.PodRunning)), newPod("unknown", onNode, phase(corev1.PodUnknown))}, want: "unknown"},
		{name: "not ready before ready", pods: []*corev1.Pod{newPod("ready", readySince(time.Hour)), newPod("notready", onNode, phase(corev1.PodRunning))}, want: "notready"},
		{name: "ready more recently first", pods: []*corev1.Pod{newPod("old", readySince(time.Hour)), newPod("new", readySince(time.Minute))}, want: "new"},
		{name: "more restarts first", pods: []*corev1.Pod{newPod("few", readySince(time.Hour), restarts(1)), newPod("many", readySince(time.Hour), restarts(5))}, want: "many"},
		{name: "newer first", pods: []*corev1.Pod{newPod("older", readySince(time.Hour), created(2*time.Hour)), newPod("newer", readySince(time.Hour), created(time.Hour))}, want: "newer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := podsToDelete(tt.pods, 1)
			if len(got) != 1 || got[0].Name != tt.want {
				t.Fatalf("first victim %s, want %s", got[0].Name, tt.want)
			}
		})
	}
}

// inFlightCluster is a fakeCluster whose creates and deletes take a moment,
// counting the most of them ever running at once.
type inFlightCluster struct {
	*fakeCluster
	running, most atomic.Int32
}

func (f *inFlightCluster) enter() func() {
	n := f.running.Add(1)
	for m := f.most.Load(); n > m && !f.most.CompareAndSwap(m, n); m = f.most.Load() {
	}
	time.Sleep(time.Millisecond)
	return func() { f.running.Add(-1) }
}

func (f *inFlightCluster) CreatePod(ctx context.Context, pod *corev1.Pod, owner runtime.Object) (*corev1.Pod, error) {
	defer f.enter()()
	return f.fakeCluster.CreatePod(ctx, pod, owner)
}

func (f *inFlightCluster) DeletePod(ctx context.Context, ns, name string, owner runtime.Object) error {
	defer f.enter()()
	return f.fakeCluster.DeletePod(ctx, ns, name, owner)
}

// The creates and deletes of a sync stay within MaxRequestsInFlight, so
// that a large ReplicaSet does not overrun the API server's limit.
func TestSyncBoundsRequestsInFlight(t *testing.T) {
	const limit = 4
	for _, tt := range []struct {
		name     string
		replicas int32
		pods     int
	}{
		{name: "creates", replicas: 100},
		{name: "deletes", replicas: 0, pods: 60},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var pods []*corev1.Pod
			for i := range tt.pods {
				pods = append(pods, newPod(fmt.Sprint("p", i)))
			}
			f := &inFlightCluster{fakeCluster: &fakeCluster{}}
			rsIdx, podIdx := cache.NewIndexer[*appsv1.ReplicaSet](), cache.NewIndexer[*corev1.Pod]()
			rs := newRS(tt.replicas)
			f.rs = rs
			if err := rsIdx.Add(rs); err != nil {
				t.Fatal(err)
			}
			for _, p := range pods {
				if err := podIdx.Add(p); err != nil {
					t.Fatal(err)
				}
			}
			c := newController(func(string) ReplicaSetClient { return f }, f.patch, f,
				cache.NewLister(rsIdx, appsv1.Resource("replicasets")), cache.NewLister(podIdx, corev1.Resource("pods")),
				Options{MaxRequestsInFlight: limit, Now: func() time.Time { return now }})
			if err := c.sync(context.Background(), "ns/web"); err != nil {
				t.Fatal(err)
			}
			if got, want := len(f.created)+len(f.deleted), int(tt.replicas)+tt.pods; got != want {
				t.Fatalf("%d pods created or deleted, want %d", got, want)
			}
			if most := f.most.Load(); most > limit {
				t.Errorf("%d requests in flight at once, want at most %d", most, limit)
			}
		})
	}
}
