package disruption

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	corev1 "kubecore.io/api/core/v1"
	policyv1 "kubecore.io/api/policy/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/util/intstr"
	"kubecore.io/client/controller"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/tools/record"
)

var now = time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)

func intOrStr(s string) *intstr.IntOrString {
	v := intstr.Parse(s)
	return &v
}

func budget(opts ...func(*policyv1.PodDisruptionBudget)) *policyv1.PodDisruptionBudget {
	pdb := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pdb", UID: "pdb-uid", Generation: 3, ResourceVersion: "1"},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}
	for _, o := range opts {
		o(pdb)
	}
	return pdb
}

func minAvailable(s string) func(*policyv1.PodDisruptionBudget) {
	return func(p *policyv1.PodDisruptionBudget) { p.Spec.MinAvailable = intOrStr(s) }
}

func maxUnavailable(s string) func(*policyv1.PodDisruptionBudget) {
	return func(p *policyv1.PodDisruptionBudget) { p.Spec.MaxUnavailable = intOrStr(s) }
}

func disruptedAt(name string, at time.Time) func(*policyv1.PodDisruptionBudget) {
	return func(p *policyv1.PodDisruptionBudget) {
		if p.Status.DisruptedPods == nil {
			p.Status.DisruptedPods = map[string]metav1.Time{}
		}
		p.Status.DisruptedPods[name] = metav1.NewTime(at)
	}
}

type podOpt func(*corev1.Pod)

func pod(name string, opts ...podOpt) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name + "-uid"), Labels: map[string]string{"app": "web"}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func notReady(p *corev1.Pod) { p.Status.Conditions[0].Status = corev1.ConditionFalse }
func deleting(p *corev1.Pod) { t := metav1.NewTime(now); p.DeletionTimestamp = &t }
func ownedBy(kind, apiVersion, name string, uid types.UID) podOpt {
	return func(p *corev1.Pod) {
		yes := true
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid, Controller: &yes}}
	}
}

func replicas(n int32) *int32 { return &n }

// fakeScales serves the scale of custom resources by kind/name.
type fakeScales struct {
	scales map[string]*autoscalingv1.Scale
	err    error
}

func (f *fakeScales) GetScale(_ context.Context, _ string, ref *metav1.OwnerReference) (*autoscalingv1.Scale, error) {
	if f.err != nil {
		return nil, f.err
	}
	return f.scales[ref.Kind+"/"+ref.Name], nil
}

// fakeWriter records the statuses written.
type fakeWriter struct {
	written []*policyv1.PodDisruptionBudget
	pods    []*corev1.Pod
	err     error
}

// fakePodWriter is fakeWriter writing pod statuses.
type fakePodWriter fakeWriter

func (f *fakePodWriter) UpdateStatus(_ context.Context, pod *corev1.Pod, _ metav1.UpdateOptions) (*corev1.Pod, error) {
	if f.err != nil {
		return nil, f.err
	}
	f.pods = append(f.pods, pod.DeepCopy())
	return pod, nil
}

func (f *fakeWriter) UpdateStatus(_ context.Context, pdb *policyv1.PodDisruptionBudget, _ metav1.UpdateOptions) (*policyv1.PodDisruptionBudget, error) {
	if f.err != nil {
		return nil, f.err
	}
	f.written = append(f.written, pdb.DeepCopy())
	return pdb, nil
}

// workloads of the namespace: Deployment web (5 replicas) with
// ReplicaSets web-1 and web-2, ReplicaSet solo (2), StatefulSet db (3).
func newTestController(t *testing.T, w *fakeWriter, generic ScaleGetter, pdb *policyv1.PodDisruptionBudget, pods ...*corev1.Pod) *Controller {
	t.Helper()
	yes := true
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "dep-uid"}, Spec: appsv1.DeploymentSpec{Replicas: replicas(5)}}
	depRef := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "dep-uid", Controller: &yes}}
	rss := []*appsv1.ReplicaSet{
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web-1", UID: "rs1-uid", OwnerReferences: depRef}, Spec: appsv1.ReplicaSetSpec{Replicas: replicas(1)}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web-2", UID: "rs2-uid", OwnerReferences: depRef}, Spec: appsv1.ReplicaSetSpec{Replicas: replicas(4)}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "solo", UID: "solo-uid"}, Spec: appsv1.ReplicaSetSpec{Replicas: replicas(2)}},
	}
	ss := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "db", UID: "ss-uid"}, Spec: appsv1.StatefulSetSpec{Replicas: replicas(3)}}
	pdbIdx, podIdx := cache.NewIndexer[*policyv1.PodDisruptionBudget](), cache.NewIndexer[*corev1.Pod]()
	rsIdx, depIdx, ssIdx := cache.NewIndexer[*appsv1.ReplicaSet](), cache.NewIndexer[*appsv1.Deployment](), cache.NewIndexer[*appsv1.StatefulSet]()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(pdbIdx.Add(pdb))
	for _, p := range pods {
		must(podIdx.Add(p))
	}
	for _, rs := range rss {
		must(rsIdx.Add(rs))
	}
	must(depIdx.Add(dep))
	must(ssIdx.Add(ss))
	c := &Controller{
		recorder:   record.OrDiscard(nil),
		statuses:   func(string) StatusWriter { return w },
		now:        func() time.Time { return now },
		staleAfter: StalePodDisruptionTimeout,
		budgets:    cache.NewLister(pdbIdx, policyv1.Resource("poddisruptionbudgets")),
		pods:       cache.NewLister(podIdx, corev1.Resource("pods")),
		scales: &scales{
			replicaSets:  cache.NewLister(rsIdx, appsv1.Resource("replicasets")),
			deployments:  cache.NewLister(depIdx, appsv1.Resource("deployments")),
			statefulSets: cache.NewLister(ssIdx, appsv1.Resource("statefulsets")),
			generic:      generic,
		},
	}
	c.Controller = controller.New(Name, c.sync)
	c.stalePods = c.AddQueue(Name+"-stale-pod-disruption", c.syncStalePod)
	c.podStatuses = func(string) PodStatusWriter { return (*fakePodWriter)(w) }
	t.Cleanup(c.Queue().ShutDown)
	t.Cleanup(c.stalePods.ShutDown)
	return c
}

var (
	ofRS1    = ownedBy("ReplicaSet", "apps/v1", "web-1", "rs1-uid")
	ofRS2    = ownedBy("ReplicaSet", "apps/v1", "web-2", "rs2-uid")
	ofSolo   = ownedBy("ReplicaSet", "apps/v1", "solo", "solo-uid")
	ofDB     = ownedBy("StatefulSet", "apps/v1", "db", "ss-uid")
	ofWidget = ownedBy("Widget", "example.com/v1", "w", "widget-uid")
	ofRC     = ownedBy("ReplicationController", "v1", "rc", "rc-uid")
	ofJob    = ownedBy("Job", "batch/v1", "j", "job-uid")
)

func TestSyncStatus(t *testing.T) {
	widgets := &fakeScales{scales: map[string]*autoscalingv1.Scale{
		"Widget/w":                 {ObjectMeta: metav1.ObjectMeta{Name: "w", UID: "widget-uid"}, Spec: autoscalingv1.ScaleSpec{Replicas: 4}},
		"ReplicationController/rc": {ObjectMeta: metav1.ObjectMeta{Name: "rc", UID: "rc-uid"}, Spec: autoscalingv1.ScaleSpec{Replicas: 2}},
	}}
	tests := []struct {
		name    string
		pdb     *policyv1.PodDisruptionBudget
		pods    []*corev1.Pod
		scales  ScaleGetter
		healthy int32
		desired int32
		expect  int32
		allowed int32
		reason  string
		message string // for SyncFailed
		kept    []string
	}{
		{name: "minAvailable int counts the selected pods", pdb: budget(minAvailable("2")),
			pods:    []*corev1.Pod{pod("a"), pod("b"), pod("c", notReady)},
			healthy: 2, desired: 2, expect: 3, allowed: 0, reason: policyv1.InsufficientPodsReason},
		{name: "minAvailable int, bare pods allowed", pdb: budget(minAvailable("1")),
			pods:    []*corev1.Pod{pod("a"), pod("b"), pod("c")},
			healthy: 3, desired: 1, expect: 3, allowed: 2, reason: policyv1.SufficientPodsReason},
		{name: "maxUnavailable int over a Deployment's two ReplicaSets counts it once", pdb: budget(maxUnavailable("1")),
			pods:    []*corev1.Pod{pod("a", ofRS1), pod("b", ofRS2), pod("c", ofRS2), pod("d", ofRS2), pod("e", ofRS2)},
			healthy: 5, desired: 4, expect: 5, allowed: 1, reason: policyv1.SufficientPodsReason},
		{name: "maxUnavailable percentage rounds up", pdb: budget(maxUnavailable("50%")),
			pods:    []*corev1.Pod{pod("a", ofDB), pod("b", ofDB), pod("c", ofDB)},
			healthy: 3, desired: 1, expect: 3, allowed: 2, reason: policyv1.SufficientPodsReason},
		{name: "minAvailable percentage rounds up over the StatefulSet's replicas", pdb: budget(minAvailable("50%")),
			pods:    []*corev1.Pod{pod("a", ofDB), pod("b", ofDB, notReady)},
			healthy: 1, desired: 2, expect: 3, allowed: 0, reason: policyv1.InsufficientPodsReason},
		{name: "minAvailable 100% allows nothing", pdb: budget(minAvailable("100%")),
			pods:    []*corev1.Pod{pod("a", ofSolo), pod("b", ofSolo)},
			healthy: 2, desired: 2, expect: 2, allowed: 0, reason: policyv1.InsufficientPodsReason},
		{name: "maxUnavailable 0 allows nothing", pdb: budget(maxUnavailable("0")),
			pods:    []*corev1.Pod{pod("a", ofSolo), pod("b", ofSolo)},
			healthy: 2, desired: 2, expect: 2, allowed: 0, reason: policyv1.InsufficientPodsReason},
		{name: "two controllers add up", pdb: budget(maxUnavailable("1")),
			pods:    []*corev1.Pod{pod("a", ofSolo), pod("b", ofSolo), pod("c", ofDB), pod("d", ofDB), pod("e", ofDB)},
			healthy: 5, desired: 4, expect: 5, allowed: 1, reason: policyv1.SufficientPodsReason},
		{name: "custom resource through its scale subresource", pdb: budget(maxUnavailable("25%")), scales: widgets,
			pods:    []*corev1.Pod{pod("a", ofWidget), pod("b", ofWidget), pod("c", ofWidget), pod("d", ofWidget)},
			healthy: 4, desired: 3, expect: 4, allowed: 1, reason: policyv1.SufficientPodsReason},
		{name: "ReplicationController through its scale subresource", pdb: budget(minAvailable("50%")), scales: widgets,
			pods:    []*corev1.Pod{pod("a", ofRC), pod("b", ofRC)},
			healthy: 2, desired: 1, expect: 2, allowed: 1, reason: policyv1.SufficientPodsReason},
		{name: "unmanaged pods are not expected", pdb: budget(maxUnavailable("1")),
			pods:    []*corev1.Pod{pod("a", ofSolo), pod("b", ofSolo), pod("bare")},
			healthy: 3, desired: 1, expect: 2, allowed: 2, reason: policyv1.SufficientPodsReason},
		{name: "no pods", pdb: budget(minAvailable("1")),
			healthy: 0, desired: 1, expect: 0, allowed: 0, reason: policyv1.InsufficientPodsReason},
		{name: "no pods expected allows nothing even with desired 0", pdb: budget(minAvailable("0")),
			healthy: 0, desired: 0, expect: 0, allowed: 0, reason: policyv1.InsufficientPodsReason},
		{name: "deleting pods are not healthy", pdb: budget(minAvailable("1")),
			pods:    []*corev1.Pod{pod("a"), pod("b", deleting)},
			healthy: 1, desired: 1, expect: 2, allowed: 0, reason: policyv1.InsufficientPodsReason},
		{name: "a recently evicted pod is not healthy and stays recorded", pdb: budget(minAvailable("1"), disruptedAt("b", now.Add(-time.Minute)), disruptedAt("gone", now)),
			pods:    []*corev1.Pod{pod("a"), pod("b")},
			healthy: 1, desired: 1, expect: 2, allowed: 0, reason: policyv1.InsufficientPodsReason, kept: []string{"b"}},
		{name: "an evicted pod not deleted in time counts again", pdb: budget(minAvailable("1"), disruptedAt("b", now.Add(-3*time.Minute))),
			pods:    []*corev1.Pod{pod("a"), pod("b")},
			healthy: 2, desired: 1, expect: 2, allowed: 1, reason: policyv1.SufficientPodsReason},
		{name: "a controller without scale subresource fails", pdb: budget(maxUnavailable("1")),
			scales: &fakeScales{err: errors.New("jobs.batch does not implement the scale subresource")},
			pods:   []*corev1.Pod{pod("a", ofJob)},
			reason: policyv1.SyncFailedReason, message: "jobs.batch does not implement the scale subresource"},
		{name: "a controller not found fails", pdb: budget(maxUnavailable("1")), scales: &fakeScales{},
			pods:   []*corev1.Pod{pod("a", ownedBy("Widget", "example.com/v1", "w", "other-uid"))},
			reason: policyv1.SyncFailedReason, message: `found no controllers for pod "a"`},
		{name: "a ReplicaSet of a Deployment not found fails", pdb: budget(maxUnavailable("1")),
			pods:   []*corev1.Pod{pod("a", ownedBy("ReplicaSet", "apps/v1", "web-1", "stale-uid"))},
			reason: policyv1.SyncFailedReason, message: `found no controllers for pod "a"`},
		{name: "other namespaces and labels are not selected", pdb: budget(minAvailable("1")),
			pods: []*corev1.Pod{pod("a"), pod("b", func(p *corev1.Pod) { p.Namespace = "other" }),
				pod("c", func(p *corev1.Pod) { p.Labels = map[string]string{"app": "db"} })},
			healthy: 1, desired: 1, expect: 1, allowed: 0, reason: policyv1.InsufficientPodsReason},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &fakeWriter{}
			c := newTestController(t, w, tt.scales, tt.pdb, tt.pods...)
			err := c.sync(context.Background(), "ns/pdb")
			if tt.message != "" {
				if err == nil || !strings.Contains(err.Error(), tt.message) {
					t.Fatalf("sync: got %v, want an error with %q", err, tt.message)
				}
			} else if err != nil {
				t.Fatalf("sync: %v", err)
			}
			if len(w.written) != 1 {
				t.Fatalf("wrote %d statuses, want 1", len(w.written))
			}
			st := w.written[0].Status
			// A failed sync leaves observedGeneration as it was, so that
			// the eviction check keeps refusing a new generation.
			if wantGen := map[bool]int64{true: 3, false: 0}[tt.message == ""]; st.ObservedGeneration != wantGen {
				t.Errorf("observedGeneration %d, want %d", st.ObservedGeneration, wantGen)
			}
			if st.DisruptionsAllowed != tt.allowed {
				t.Errorf("disruptionsAllowed %d, want %d", st.DisruptionsAllowed, tt.allowed)
			}
			if tt.message == "" && (st.CurrentHealthy != tt.healthy || st.DesiredHealthy != tt.desired || st.ExpectedPods != tt.expect) {
				t.Errorf("currentHealthy/desiredHealthy/expectedPods %d/%d/%d, want %d/%d/%d",
					st.CurrentHealthy, st.DesiredHealthy, st.ExpectedPods, tt.healthy, tt.desired, tt.expect)
			}
			cond := metav1.FindStatusCondition(st.Conditions, policyv1.DisruptionAllowedCondition)
			wantStatus := metav1.ConditionFalse
			if tt.allowed > 0 {
				wantStatus = metav1.ConditionTrue
			}
			if cond == nil || cond.Reason != tt.reason || cond.Status != wantStatus || cond.Message != tt.message {
				t.Errorf("condition %+v, want %s %s %q", cond, wantStatus, tt.reason, tt.message)
			}
			if len(st.DisruptedPods) != len(tt.kept) {
				t.Errorf("disruptedPods %v, want %v", st.DisruptedPods, tt.kept)
			}
			for _, name := range tt.kept {
				if _, ok := st.DisruptedPods[name]; !ok {
					t.Errorf("disruptedPods %v lacks %s", st.DisruptedPods, name)
				}
			}
		})
	}
}

func TestSyncWritesOnlyChanges(t *testing.T) {
	w := &fakeWriter{}
	c := newTestController(t, w, nil, budget(minAvailable("1")), pod("a"), pod("b"))
	if err := c.sync(context.Background(), "ns/pdb"); err != nil {
		t.Fatal(err)
	}
	if len(w.written) != 1 {
		t.Fatalf("wrote %d statuses, want 1", len(w.written))
	}
	// The cache now shows the written status: nothing more to write.
	c2 := newTestController(t, w, nil, w.written[0], pod("a"), pod("b"))
	if err := c2.sync(context.Background(), "ns/pdb"); err != nil {
		t.Fatal(err)
	}
	if len(w.written) != 1 {
		t.Fatalf("wrote %d statuses after an unchanged sync, want 1", len(w.written))
	}
	// A new generation is written again.
	next := w.written[0].DeepCopy()
	next.Generation = 4
	c3 := newTestController(t, w, nil, next, pod("a"), pod("b"))
	if err := c3.sync(context.Background(), "ns/pdb"); err != nil {
		t.Fatal(err)
	}
	if len(w.written) != 2 || w.written[1].Status.ObservedGeneration != 4 {
		t.Fatalf("after a new generation: %d writes, want 2 observing generation 4", len(w.written))
	}
}

func TestSyncRechecksPendingEvictions(t *testing.T) {
	w := &fakeWriter{}
	c := newTestController(t, w, nil, budget(minAvailable("1"), disruptedAt("b", now.Add(-time.Minute))), pod("a"), pod("b"))
	if err := c.sync(context.Background(), "ns/pdb"); err != nil {
		t.Fatal(err)
	}
	// The key comes back when b's eviction times out, a minute on.
	if n := c.Queue().Len(); n != 0 {
		t.Fatalf("queue has %d keys at once, want the recheck delayed", n)
	}
	_, _, recheck := disruptedPods(map[string]metav1.Time{"b": metav1.NewTime(now.Add(-time.Minute))}, []*corev1.Pod{pod("b")}, now)
	if want := now.Add(time.Minute); !recheck.Equal(want) {
		t.Fatalf("recheck at %v, want %v", recheck, want)
	}
}

func TestSyncGoneBudget(t *testing.T) {
	w := &fakeWriter{}
	c := newTestController(t, w, nil, budget(minAvailable("1")), pod("a"))
	if err := c.sync(context.Background(), "ns/other"); err != nil {
		t.Fatal(err)
	}
	if len(w.written) != 0 {
		t.Fatalf("wrote %d statuses for a budget that does not exist", len(w.written))
	}
}

func TestBudgetsOfPod(t *testing.T) {
	c := newTestController(t, &fakeWriter{}, nil, budget(minAvailable("1")))
	if got := c.budgetsOf(pod("a")); len(got) != 1 || got[0] != "ns/pdb" {
		t.Errorf("budgetsOf(selected pod) = %v, want [ns/pdb]", got)
	}
	if got := c.budgetsOf(pod("x", func(p *corev1.Pod) { p.Labels = nil })); len(got) != 0 {
		t.Errorf("budgetsOf(unselected pod) = %v, want none", got)
	}
	if got := c.budgetsIn("ns"); len(got) != 1 {
		t.Errorf("budgetsIn(ns) = %v, want [ns/pdb]", got)
	}
}

func TestFailedStatusKeepsCounts(t *testing.T) {
	pdb := budget(minAvailable("1"))
	pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 3, DisruptionsAllowed: 2, CurrentHealthy: 3, DesiredHealthy: 1, ExpectedPods: 3}
	st := failedStatus(pdb, errors.New("boom"))
	if st.DisruptionsAllowed != 0 || st.CurrentHealthy != 3 || st.ExpectedPods != 3 {
		t.Fatalf("failed status %+v: want no disruption allowed and the counts kept", st)
	}
	if cond := metav1.FindStatusCondition(st.Conditions, policyv1.DisruptionAllowedCondition); cond == nil || cond.Reason != policyv1.SyncFailedReason || cond.Message != "boom" {
		t.Fatalf("condition %+v, want SyncFailed: boom", cond)
	}
	if pdb.Status.Conditions != nil {
		t.Fatal("failedStatus changed the budget it was given")
	}
}

func TestStalePodDisruption(t *testing.T) {
	target := func(reason string, ago time.Duration) podOpt {
		return func(p *corev1.Pod) {
			p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue,
				Reason: reason, LastTransitionTime: metav1.NewTime(now.Add(-ago))})
		}
	}
	tests := []struct {
		name  string
		pod   *corev1.Pod
		stale bool
		wait  time.Duration
		reset bool
	}{
		{name: "evicted long ago and still there", pod: pod("a", target("EvictionByEvictionAPI", 3*time.Minute)), stale: true, reset: true},
		{name: "evicted a minute ago", pod: pod("a", target("EvictionByEvictionAPI", time.Minute)), stale: true, wait: time.Minute},
		{name: "being deleted", pod: pod("a", target("EvictionByEvictionAPI", 3*time.Minute), deleting)},
		{name: "finished", pod: pod("a", target("EvictionByEvictionAPI", 3*time.Minute), func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed })},
		{name: "set by the kubelet", pod: pod("a", target("TerminationByKubelet", 3*time.Minute))},
		{name: "no condition", pod: pod("a")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stale, wait := staleDisruption(tt.pod, now, StalePodDisruptionTimeout)
			if stale != tt.stale || wait != tt.wait {
				t.Fatalf("staleDisruption = %v, %v; want %v, %v", stale, wait, tt.stale, tt.wait)
			}
			w := &fakeWriter{}
			c := newTestController(t, w, nil, budget(minAvailable("1")), tt.pod)
			if err := c.syncStalePod(context.Background(), "ns/a"); err != nil {
				t.Fatal(err)
			}
			if !tt.reset {
				if len(w.pods) != 0 {
					t.Fatalf("wrote pod status %+v, want nothing", w.pods[0].Status)
				}
				return
			}
			if len(w.pods) != 1 {
				t.Fatalf("wrote %d pod statuses, want 1", len(w.pods))
			}
			for _, cond := range w.pods[0].Status.Conditions {
				if cond.Type == corev1.DisruptionTarget && (cond.Status != corev1.ConditionFalse || !cond.LastTransitionTime.Equal(&metav1.Time{Time: now})) {
					t.Errorf("DisruptionTarget %+v, want False since now", cond)
				}
			}
		})
	}
}
