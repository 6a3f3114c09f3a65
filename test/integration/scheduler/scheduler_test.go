package scheduler

import (
	"fmt"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/scheduler"
)

func TestResourceFitAndOvercommit(t *testing.T) {
	e := newEnv(t)
	e.node("small", "1", "1Gi")
	e.node("big", "4", "8Gi")
	e.start(scheduler.Config{})

	// Only the big node has room for 3 CPUs.
	e.pod("three-cpus", requests("3", "1Gi"))
	if p := e.waitScheduled("three-cpus"); p.Spec.NodeName != e.ns+"-big" {
		t.Errorf("three-cpus on %s, want %s-big", p.Spec.NodeName, e.ns)
	}
	e.waitEvent("three-cpus", "Scheduled", fmt.Sprintf("Successfully assigned %s/three-cpus to %s-big", e.ns, e.ns))

	// 2 CPUs fit nowhere now: 1 left on big, 1 on small.
	e.pod("two-cpus", requests("2", ""))
	msg := e.waitUnschedulable("two-cpus")
	want := "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling."
	if msg != want {
		t.Errorf("condition message = %q, want %q", msg, want)
	}
	e.waitEvent("two-cpus", "FailedScheduling", want)

	// The pod asking for more than any node has is told about memory too.
	e.pod("huge", requests("8", "16Gi"))
	if msg := e.waitUnschedulable("huge"); msg != "0/2 nodes are available: 2 Insufficient cpu, 2 Insufficient memory. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling." {
		t.Errorf("huge: message %q", msg)
	}

	// Deleting the 3-CPU pod makes room: two-cpus is scheduled by the
	// event, not by a timer.
	if err := e.cs.CoreV1().Pods(e.ns).Delete(e.ctx, "three-cpus", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if p := e.waitScheduled("two-cpus"); p.Spec.NodeName != e.ns+"-big" {
		t.Errorf("two-cpus on %s, want big", p.Spec.NodeName)
	}
}

func TestPodsCountAndNoOvercommitUnderLoad(t *testing.T) {
	e := newEnv(t)
	for i := range 3 {
		e.node(fmt.Sprint("n", i), "1", "1Gi")
	}
	e.start(scheduler.Config{})
	// 10 pods of 300m on 3 × 1 CPU: 9 fit (3 per node), 1 does not.
	for i := range 10 {
		e.pod(fmt.Sprint("p", i), requests("300m", "10Mi"))
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		list, err := e.cs.CoreV1().Pods(e.ns).List(e.ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		perNode := map[string]int{}
		bound := 0
		for _, p := range list.Items {
			if p.Spec.NodeName != "" {
				perNode[p.Spec.NodeName]++
				bound++
			}
		}
		for n, c := range perNode {
			if c > 3 {
				t.Fatalf("node %s overcommitted with %d pods of 300m", n, c)
			}
		}
		if bound == 9 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("9 pods were not bound")
}

func TestTaints(t *testing.T) {
	e := newEnv(t)
	e.node("gpu", "4", "4Gi", withTaint("gpu", "true", corev1.TaintEffectNoSchedule))
	e.node("drain", "4", "4Gi", withTaint("drain", "", corev1.TaintEffectNoExecute))
	e.node("soft", "4", "4Gi", withTaint("soft", "", corev1.TaintEffectPreferNoSchedule))
	e.start(scheduler.Config{})

	// PreferNoSchedule only lowers the score: the soft node is the one left.
	e.pod("plain")
	if p := e.waitScheduled("plain"); p.Spec.NodeName != e.ns+"-soft" {
		t.Errorf("plain on %s, want soft", p.Spec.NodeName)
	}
	// A pod tolerating the gpu taint may go there; it prefers it over soft.
	e.pod("gpu-job", tolerate("gpu", corev1.TaintEffectNoSchedule))
	if p := e.waitScheduled("gpu-job"); p.Spec.NodeName != e.ns+"-gpu" {
		t.Errorf("gpu-job on %s, want gpu", p.Spec.NodeName)
	}
	// With the soft node cordoned, an intolerant pod fits nowhere.
	soft, err := e.cs.CoreV1().Nodes().Get(e.ctx, e.ns+"-soft", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	soft.Spec.Unschedulable = true
	if _, err := e.cs.CoreV1().Nodes().Update(e.ctx, soft, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.pod("intolerant")
	msg := e.waitUnschedulable("intolerant")
	want := "0/3 nodes are available: 1 node(s) had untolerated taint {drain: }, 1 node(s) had untolerated taint {gpu: true}, 1 node(s) were unschedulable. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
	if msg != want {
		t.Errorf("message = %q, want %q", msg, want)
	}
}

func TestCordonUncordonWithoutTimer(t *testing.T) {
	e := newEnv(t)
	e.node("only", "2", "2Gi", cordoned)
	// Long back-offs: only the node event may bring the pod back in time.
	s := e.start(scheduler.Config{InitialBackoff: 200 * time.Millisecond, MaxBackoff: 200 * time.Millisecond})
	e.pod("waiting")
	if msg := e.waitUnschedulable("waiting"); msg != "0/1 nodes are available: 1 node(s) were unschedulable. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling." {
		t.Errorf("message = %q", msg)
	}
	// It waits in the unschedulable set, not in a back-off loop.
	deadline := time.Now().Add(5 * time.Second)
	for s.Queue().Has(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: "waiting"}}) != "unschedulable" {
		if time.Now().After(deadline) {
			t.Fatal("the pod is not in the unschedulable set")
		}
		time.Sleep(10 * time.Millisecond)
	}
	attempts := countAttempts(t, e)
	time.Sleep(1500 * time.Millisecond)
	if got := countAttempts(t, e); got != attempts {
		t.Errorf("the pod was retried %d times while nothing changed", got-attempts)
	}
	node, err := e.cs.CoreV1().Nodes().Get(e.ctx, e.ns+"-only", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	node.Spec.Unschedulable = false
	start := time.Now()
	if _, err := e.cs.CoreV1().Nodes().Update(e.ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.waitScheduled("waiting")
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("scheduled %s after the uncordon", d)
	}
}

// countAttempts counts the FailedScheduling events of the pod "waiting"
// (aggregated repeats count in Event.count).
func countAttempts(t *testing.T, e *env) int32 {
	t.Helper()
	list, err := e.cs.CoreV1().Events(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var n int32
	for _, ev := range list.Items {
		if ev.InvolvedObject.Name == "waiting" && ev.Reason == "FailedScheduling" {
			n += max(ev.Count, 1)
		}
	}
	return n
}

func TestNodeAffinityAndSelector(t *testing.T) {
	e := newEnv(t)
	e.node("a", "2", "2Gi", withLabels("zone", "a", "gen", "3"))
	e.node("b", "2", "2Gi", withLabels("zone", "b", "gen", "5"))
	e.start(scheduler.Config{})
	affinity := func(op corev1.NodeSelectorOperator, key string, values ...string) podOpt {
		return func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}},
				}}},
			}}
		}
	}
	for _, tc := range []struct {
		name string
		opt  podOpt
		want string
	}{
		{"in-b", affinity(corev1.NodeSelectorOpIn, "zone", "b"), "b"},
		{"notin-b", affinity(corev1.NodeSelectorOpNotIn, "zone", "b"), "a"},
		{"gt-4", affinity(corev1.NodeSelectorOpGt, "gen", "4"), "b"},
		{"lt-4", affinity(corev1.NodeSelectorOpLt, "gen", "4"), "a"},
		{"selector-a", func(p *corev1.Pod) { p.Spec.NodeSelector["zone"] = "a" }, "a"},
	} {
		e.pod(tc.name, tc.opt)
		if p := e.waitScheduled(tc.name); p.Spec.NodeName != e.ns+"-"+tc.want {
			t.Errorf("%s on %s, want %s", tc.name, p.Spec.NodeName, tc.want)
		}
	}
	e.pod("nowhere", affinity(corev1.NodeSelectorOpDoesNotExist, "zone"))
	if msg := e.waitUnschedulable("nowhere"); msg != "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling." {
		t.Errorf("message = %q", msg)
	}
}

func TestPodAntiAffinityAndSpread(t *testing.T) {
	e := newEnv(t)
	for i := range 3 {
		e.node(fmt.Sprint("n", i), "4", "4Gi", withLabels("zone", fmt.Sprint("z", i%2)))
	}
	e.start(scheduler.Config{})
	anti := func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, TopologyKey: corev1.LabelHostname,
		}}}}
	}
	used := map[string]bool{}
	for i := range 3 {
		name := fmt.Sprint("web-", i)
		e.pod(name, podLabels("app", "web"), anti)
		p := e.waitScheduled(name)
		if used[p.Spec.NodeName] {
			t.Errorf("%s shares node %s", name, p.Spec.NodeName)
		}
		used[p.Spec.NodeName] = true
	}
	e.pod("web-3", podLabels("app", "web"), anti)
	if msg := e.waitUnschedulable("web-3"); msg != "0/3 nodes are available: 3 node(s) didn't satisfy existing pods anti-affinity rules. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod." {
		t.Errorf("message = %q", msg)
	}
	// Spreading over zones with maxSkew 1: z0 has two nodes, z1 one.
	spreadOpt := func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "spread"}}}}
	}
	zones := map[string]int{}
	for i := range 4 {
		name := fmt.Sprint("spread-", i)
		e.pod(name, podLabels("app", "spread"), spreadOpt)
		p := e.waitScheduled(name)
		n, err := e.cs.CoreV1().Nodes().Get(e.ctx, p.Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		zones[n.Labels["zone"]]++
	}
	if zones["z0"] != 2 || zones["z1"] != 2 {
		t.Errorf("spread over zones = %v, want 2 and 2", zones)
	}
}
