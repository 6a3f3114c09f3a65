package daemonset

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// daemonPod returns a pod of node at hash, created age before t0;
// state is "ready", "running" (not ready), "failed", "succeeded" or
// "deleting".
func daemonPod(name, node, hash, state string, age time.Duration) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), CreationTimestamp: metav1.NewTime(t0.Add(-age)),
			Labels: map[string]string{appsv1.DefaultDaemonSetUniqueLabelKey: hash}},
		Spec:   corev1.PodSpec{NodeName: node},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	switch state {
	case "ready":
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0.Add(-age))}}
	case "failed":
		p.Status.Phase = corev1.PodFailed
	case "succeeded":
		p.Status.Phase = corev1.PodSucceeded
	case "deleting":
		p.DeletionTimestamp = &metav1.Time{Time: t0}
	}
	return p
}

func names(pods []*corev1.Pod) string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}

func allRun(nodes ...string) map[string]decision {
	m := map[string]decision{}
	for _, n := range nodes {
		m[n] = decision{run: true, keep: true}
	}
	return m
}

func noBackoff(string) time.Duration { return 0 }

func TestManage(t *testing.T) {
	decisions := allRun("a", "b", "c", "d", "e")
	decisions["f"] = decision{keep: true} // NoSchedule taint: keep, no new pod
	decisions["g"] = decision{}           // no longer matches
	decisions["h"] = decision{}           // never had a pod
	decisions["i"] = decision{run: true, keep: true}
	pods := []*corev1.Pod{
		daemonPod("a-old", "a", "h1", "ready", 2*time.Hour),
		daemonPod("a-dup", "a", "h1", "ready", time.Hour), // a duplicate: the newer goes
		daemonPod("b-1", "b", "h1", "failed", time.Hour),
		daemonPod("c-1", "c", "h1", "succeeded", time.Hour),
		daemonPod("d-1", "d", "h1", "deleting", time.Hour), // going away: wait, create nothing
		daemonPod("f-1", "f", "h1", "ready", time.Hour),
		daemonPod("g-1", "g", "h1", "ready", time.Hour),
		daemonPod("x-1", "gone", "h1", "ready", time.Hour), // its node was deleted
		daemonPod("i-1", "i", "h1", "ready", time.Hour),
	}
	pl := manage(testDaemonSet(), decisions, podsByNode(pods), "h1", t0, noBackoff)
	if got := names(pl.deletes); got != "a-dup,b-1,c-1,g-1,x-1" {
		t.Errorf("deletes %s", got)
	}
	if got := strings.Join(pl.creates, ","); got != "e" {
		t.Errorf("creates %s", got)
	}

	// A failed pod in back-off stays, and the DaemonSet is looked at again.
	pl = manage(testDaemonSet(), decisions, podsByNode(pods), "h1", t0, func(node string) time.Duration {
		if node == "b" {
			return 4 * time.Second
		}
		return 0
	})
	if strings.Contains(names(pl.deletes), "b-1") || pl.retryAfter != 4*time.Second {
		t.Errorf("back-off: deletes %s, retry after %v", names(pl.deletes), pl.retryAfter)
	}
}

func TestManageSurge(t *testing.T) {
	surge := intstr.FromString("10%")
	ds := testDaemonSet(func(ds *appsv1.DaemonSet) { ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge = &surge })
	pods := []*corev1.Pod{
		// a: the new pod is available, the old one goes.
		daemonPod("a-old", "a", "h1", "ready", 2*time.Hour), daemonPod("a-new", "a", "h2", "ready", time.Hour),
		// b: the new pod is not ready yet: both stay.
		daemonPod("b-old", "b", "h1", "ready", 2*time.Hour), daemonPod("b-new", "b", "h2", "running", time.Hour),
		// c: three pods: the second new one goes.
		daemonPod("c-old", "c", "h1", "running", 3*time.Hour), daemonPod("c-new", "c", "h2", "running", 2*time.Hour), daemonPod("c-new2", "c", "h2", "running", time.Hour),
	}
	pl := manage(ds, allRun("a", "b", "c", "d"), podsByNode(pods), "h2", t0, noBackoff)
	// c-old is not ready: it goes too.
	if got := names(pl.deletes); got != "a-old,c-new2,c-old" {
		t.Errorf("deletes %s", got)
	}
	if got := strings.Join(pl.creates, ","); got != "d" {
		t.Errorf("creates %s", got)
	}
}

func TestUpdateLimits(t *testing.T) {
	for _, tc := range []struct {
		surge, unavailable intstr.IntOrString
		desired            int
		want               string
	}{
		{intstr.FromInt32(0), intstr.FromInt32(1), 10, "0 1"},
		{intstr.FromInt32(0), intstr.FromString("25%"), 10, "0 3"}, // 2.5 rounded up
		{intstr.FromString("10%"), intstr.FromInt32(0), 5, "1 0"},  // 0.5 rounded up
		{intstr.FromInt32(0), intstr.FromInt32(0), 4, "0 1"},       // impossible: one at a time
		{intstr.FromInt32(0), intstr.FromInt32(0), 0, "0 0"},
	} {
		ds := testDaemonSet(func(ds *appsv1.DaemonSet) {
			ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxSurge: &tc.surge, MaxUnavailable: &tc.unavailable}
		})
		s, u, err := updateLimits(ds, tc.desired)
		if got := fmt.Sprint(s, " ", u); err != nil || got != tc.want {
			t.Errorf("surge %s unavailable %s of %d: %s (%v), want %s", tc.surge.String(), tc.unavailable.String(), tc.desired, got, err, tc.want)
		}
	}
	bad := intstr.FromString("x%")
	if _, _, err := updateLimits(testDaemonSet(func(ds *appsv1.DaemonSet) { ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = &bad }), 3); err == nil {
		t.Error("a bad percentage must be an error")
	}
}

func TestRollingUpdateWithoutSurge(t *testing.T) {
	two := intstr.FromInt32(2)
	for _, tc := range []struct {
		name    string
		ds      *appsv1.DaemonSet
		pods    []*corev1.Pod
		deletes string
	}{{
		name: "one node at a time",
		ds:   testDaemonSet(),
		pods: []*corev1.Pod{daemonPod("a", "a", "h1", "ready", time.Hour), daemonPod("b", "b", "h1", "ready", time.Hour), daemonPod("c", "c", "h1", "ready", time.Hour)},
		// Nodes are visited in name order.
		deletes: "a",
	}, {
		name:    "an updated pod not yet ready holds the next one back",
		ds:      testDaemonSet(),
		pods:    []*corev1.Pod{daemonPod("a", "a", "h2", "running", time.Minute), daemonPod("b", "b", "h1", "ready", time.Hour), daemonPod("c", "c", "h1", "ready", time.Hour)},
		deletes: "",
	}, {
		name:    "the next node once the updated pod is available",
		ds:      testDaemonSet(),
		pods:    []*corev1.Pod{daemonPod("a", "a", "h2", "ready", time.Minute), daemonPod("b", "b", "h1", "ready", time.Hour), daemonPod("c", "c", "h1", "ready", time.Hour)},
		deletes: "b",
	}, {
		name: "minReadySeconds: ready for less is not available",
		ds:   testDaemonSet(func(ds *appsv1.DaemonSet) { ds.Spec.MinReadySeconds = 120 }),
		pods: []*corev1.Pod{daemonPod("a", "a", "h2", "ready", time.Minute), daemonPod("b", "b", "h1", "ready", time.Hour), daemonPod("c", "c", "h1", "ready", time.Hour)},
	}, {
		name:    "unavailable old pods are replaced at once",
		ds:      testDaemonSet(),
		pods:    []*corev1.Pod{daemonPod("a", "a", "h2", "running", time.Minute), daemonPod("b", "b", "h1", "running", time.Hour), daemonPod("c", "c", "h1", "running", time.Hour)},
		deletes: "b,c",
	}, {
		name:    "maxUnavailable 2",
		ds:      testDaemonSet(func(ds *appsv1.DaemonSet) { ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = &two }),
		pods:    []*corev1.Pod{daemonPod("a", "a", "h1", "ready", time.Hour), daemonPod("b", "b", "h1", "ready", time.Hour), daemonPod("c", "c", "h1", "ready", time.Hour)},
		deletes: "a,b",
	}, {
		name:    "a node without its pod counts as unavailable",
		ds:      testDaemonSet(),
		pods:    []*corev1.Pod{daemonPod("b", "b", "h1", "ready", time.Hour), daemonPod("c", "c", "h1", "ready", time.Hour)},
		deletes: "",
	}, {
		name:    "a pod being deleted counts as unavailable",
		ds:      testDaemonSet(func(ds *appsv1.DaemonSet) { ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = &two }),
		pods:    []*corev1.Pod{daemonPod("a", "a", "h1", "deleting", time.Hour), daemonPod("b", "b", "h1", "ready", time.Hour), daemonPod("c", "c", "h1", "ready", time.Hour)},
		deletes: "b",
	}, {
		name:    "done",
		ds:      testDaemonSet(),
		pods:    []*corev1.Pod{daemonPod("a", "a", "h2", "ready", time.Hour), daemonPod("b", "b", "h2", "ready", time.Hour), daemonPod("c", "c", "h2", "ready", time.Hour)},
		deletes: "",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := rollingUpdate(tc.ds, allRun("a", "b", "c"), podsByNode(tc.pods), "h2", t0)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(pl.deletes); got != tc.deletes || len(pl.creates) != 0 {
				t.Errorf("deletes %q creates %v, want deletes %q", got, pl.creates, tc.deletes)
			}
		})
	}
}

func TestRollingUpdateWithSurge(t *testing.T) {
	one := intstr.FromInt32(1)
	zero := intstr.FromInt32(0)
	ds := testDaemonSet(func(ds *appsv1.DaemonSet) {
		ds.Spec.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateDaemonSet{MaxSurge: &one, MaxUnavailable: &zero}
	})
	decisions := allRun("a", "b", "c")
	step := func(pods ...*corev1.Pod) string {
		pl, err := rollingUpdate(ds, decisions, podsByNode(pods), "h2", t0)
		if err != nil {
			t.Fatal(err)
		}
		return "delete " + names(pl.deletes) + " create " + strings.Join(pl.creates, ",")
	}
	if got := step(daemonPod("a", "a", "h1", "ready", time.Hour), daemonPod("b", "b", "h1", "ready", time.Hour), daemonPod("c", "c", "h1", "ready", time.Hour)); got != "delete  create a" {
		t.Errorf("first step: %s", got)
	}
	if got := step(daemonPod("a", "a", "h1", "ready", time.Hour), daemonPod("a2", "a", "h2", "running", time.Minute),
		daemonPod("b", "b", "h1", "ready", time.Hour), daemonPod("c", "c", "h1", "ready", time.Hour)); got != "delete  create " {
		t.Errorf("surge used up: %s", got)
	}
	if got := step(daemonPod("a", "a", "h1", "ready", time.Hour), daemonPod("a2", "a", "h2", "ready", time.Minute),
		daemonPod("b", "b", "h1", "ready", time.Hour), daemonPod("c", "c", "h1", "running", time.Hour)); got != "delete a create c,b" {
		// c's old pod is unavailable: replaced without waiting for surge room.
		t.Errorf("new pod available: %s", got)
	}
	// A node that no longer takes new pods keeps its available old pod
	// while the other nodes have no more available pods than desired.
	decisions["d"] = decision{keep: true}
	if got := step(daemonPod("a", "a", "h2", "ready", time.Hour), daemonPod("b", "b", "h2", "ready", time.Hour),
		daemonPod("c", "c", "h2", "running", time.Hour), daemonPod("d", "d", "h1", "ready", time.Hour)); got != "delete  create " {
		t.Errorf("stranded old pod while short: %s", got)
	}
	if got := step(daemonPod("a", "a", "h2", "ready", time.Hour), daemonPod("b", "b", "h2", "ready", time.Hour),
		daemonPod("c", "c", "h2", "ready", time.Hour), daemonPod("d", "d", "h1", "ready", time.Hour)); got != "delete d create " {
		t.Errorf("stranded old pod once all are available: %s", got)
	}
}

func TestComputeStatus(t *testing.T) {
	ds := testDaemonSet(func(ds *appsv1.DaemonSet) {
		ds.Spec.MinReadySeconds = 600
		ds.Status.ObservedGeneration = 1
	})
	decisions := allRun("a", "b", "c", "d")
	decisions["e"] = decision{keep: true}
	pods := []*corev1.Pod{
		daemonPod("a", "a", "h2", "ready", time.Hour),
		daemonPod("b", "b", "h1", "ready", time.Minute), // ready, not yet available
		daemonPod("c", "c", "h1", "running", time.Hour),
		daemonPod("e", "e", "h1", "ready", time.Hour), // misscheduled
	}
	st := computeStatus(ds, decisions, podsByNode(pods), "h2", false, t0)
	got := fmt.Sprintf("desired %d current %d misscheduled %d ready %d available %d unavailable %d updated %d observed %d",
		st.DesiredNumberScheduled, st.CurrentNumberScheduled, st.NumberMisscheduled, st.NumberReady, st.NumberAvailable,
		st.NumberUnavailable, st.UpdatedNumberScheduled, st.ObservedGeneration)
	if want := "desired 4 current 3 misscheduled 1 ready 2 available 1 unavailable 3 updated 1 observed 1"; got != want {
		t.Errorf("status %s\nwant   %s", got, want)
	}
	if st := computeStatus(ds, decisions, podsByNode(pods), "h2", true, t0); st.ObservedGeneration != 2 {
		t.Errorf("observed generation %d once expectations are met", st.ObservedGeneration)
	}
}

func TestBackoff(t *testing.T) {
	b := newBackoff(time.Second, 8*time.Second)
	now := t0
	if w := b.next("k", now); w != 0 {
		t.Fatalf("first failure waits %v", w)
	}
	if w := b.next("k", now.Add(300*time.Millisecond)); w != 700*time.Millisecond {
		t.Fatalf("second failure within the first delay waits %v", w)
	}
	var waits []time.Duration
	for range 6 {
		now = now.Add(b.entries["k"].delay)
		waits = append(waits, b.entries["k"].delay)
		if w := b.next("k", now); w != 0 {
			t.Fatalf("after the delay: wait %v", w)
		}
	}
	if fmt.Sprint(waits) != "[1s 2s 4s 8s 8s 8s]" {
		t.Errorf("delays %v", waits)
	}
	if w := b.next("other", now); w != 0 {
		t.Errorf("another key waits %v", w)
	}
	// Idle for long: starts over, and the idle entries are dropped.
	if w := b.next("other", now.Add(time.Hour)); w != 0 || b.entries["other"].delay != time.Second || len(b.entries) != 1 {
		t.Errorf("after an idle hour: wait %v, entries %d", w, len(b.entries))
	}
}
