package scheduler

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	schedulingv1 "kubecore.io/api/scheduling/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/scheduler"
)

// priorityClass creates a PriorityClass named after the env and returns its
// name; the class is deleted when the test ends.
func (e *env) priorityClass(tb testing.TB, name string, value int32) string {
	tb.Helper()
	name = e.ns + "-" + name
	pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Value: value}
	if _, err := e.cs.SchedulingV1().PriorityClasses().Create(e.ctx, pc, metav1.CreateOptions{}); err != nil {
		tb.Fatalf("create PriorityClass %s: %v", name, err)
	}
	tb.Cleanup(func() {
		_ = e.cs.SchedulingV1().PriorityClasses().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return name
}

func priority(class string) podOpt {
	return func(p *corev1.Pod) { p.Spec.PriorityClassName = class }
}

func onNode(node string) podOpt {
	return func(p *corev1.Pod) { p.Spec.NodeName = node }
}

func gracePeriod(s int64) podOpt {
	return func(p *corev1.Pod) { p.Spec.TerminationGracePeriodSeconds = &s }
}

// podNames lists the names of the env's pods that exist, deleting or not.
func (e *env) podNames() []string {
	e.t.Helper()
	list, err := e.cs.CoreV1().Pods(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, p := range list.Items {
		out = append(out, p.Name)
	}
	slices.Sort(out)
	return out
}

func (e *env) waitGone(name string) {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		_, err := e.cs.CoreV1().Pods(e.ns).Get(e.ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.t.Fatalf("pod %s still exists after 20s", name)
}

// TestPreemptionEvictsLowestPriorityVictimsOnly fills three nodes with pods
// of several priorities and checks that each preemptor evicts exactly the
// victims Kubernetes would: the node whose most important victim is least
// important wins, even over a node needing fewer victims; a victim's
// graceful termination is waited for; and equal priority is never evicted.
func TestPreemptionEvictsLowestPriorityVictimsOnly(t *testing.T) {
	e := newEnv(t)
	p50, p100, p300, p1000 := e.priorityClass(t, "p50", 50), e.priorityClass(t, "p100", 100), e.priorityClass(t, "p300", 300), e.priorityClass(t, "p1000", 1000)
	n1, n2, n3 := e.node("n1", "2", "4Gi").Name, e.node("n2", "2", "4Gi").Name, e.node("n3", "2", "4Gi").Name
	// Running pods, bound by hand as a kubelet would find them.
	e.pod("a-100", requests("1", ""), priority(p100), onNode(n1))
	e.pod("b-100", requests("1", ""), priority(p100), onNode(n1))
	e.pod("c-50", requests("1", ""), priority(p50), onNode(n2), gracePeriod(30))
	e.pod("d-300", requests("1", ""), priority(p300), onNode(n2))
	e.pod("e-300", requests("2", ""), priority(p300), onNode(n3))
	e.start(scheduler.Config{})

	// One CPU: evicting c-50 on n2 costs priority 50, less than one
	// 100 on n1 or the 300 on n3.
	e.pod("high-1", requests("1", ""), priority(p1000))
	p := e.waitFor("high-1", 20*time.Second, "nominated", func(p *corev1.Pod) bool { return p.Status.NominatedNodeName != "" })
	if p.Status.NominatedNodeName != n2 {
		t.Fatalf("high-1 nominated to %s, want %s", p.Status.NominatedNodeName, n2)
	}
	// c-50 terminates gracefully (30 s): the preemptor waits for it
	// rather than evicting anyone else.
	victim, err := e.cs.CoreV1().Pods(e.ns).Get(e.ctx, "c-50", metav1.GetOptions{})
	if err != nil || victim.DeletionTimestamp == nil {
		t.Fatalf("victim c-50 not terminating: %v %+v", err, victim)
	}
	time.Sleep(time.Second)
	if got, want := e.podNames(), []string{"a-100", "b-100", "c-50", "d-300", "e-300", "high-1"}; !slices.Equal(got, want) {
		t.Fatalf("pods while the victim terminates = %v, want %v", got, want)
	}
	if p, _ := e.cs.CoreV1().Pods(e.ns).Get(e.ctx, "high-1", metav1.GetOptions{}); p.Spec.NodeName != "" {
		t.Fatalf("high-1 bound to %s while its victim still terminates", p.Spec.NodeName)
	}
	// The kubelet finishes the termination.
	if err := e.cs.CoreV1().Pods(e.ns).Delete(e.ctx, "c-50", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	if p := e.waitScheduled("high-1"); p.Spec.NodeName != n2 {
		t.Fatalf("high-1 bound to %s, want %s", p.Spec.NodeName, n2)
	}
	e.waitEvent("high-1", "Scheduled", fmt.Sprintf("Successfully assigned %s/high-1 to %s", e.ns, n2))

	// Two CPUs: n1's two 100s (highest victim 100) beat n3's one 300.
	e.pod("high-2", requests("2", ""), priority(p1000))
	if p := e.waitScheduled("high-2"); p.Spec.NodeName != n1 {
		t.Fatalf("high-2 bound to %s, want %s", p.Spec.NodeName, n1)
	}
	e.waitGone("a-100")
	e.waitGone("b-100")
	if got, want := e.podNames(), []string{"d-300", "e-300", "high-1", "high-2"}; !slices.Equal(got, want) {
		t.Fatalf("pods after the second preemption = %v, want %v", got, want)
	}

	// A 300 pod may not evict the other 300s, nor the 1000s.
	e.pod("equal-300", requests("1", ""), priority(p300))
	msg := e.waitUnschedulable("equal-300")
	want := "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
	if msg != want {
		t.Errorf("equal-300: message %q, want %q", msg, want)
	}
	time.Sleep(time.Second)
	if got, want := e.podNames(), []string{"d-300", "e-300", "equal-300", "high-1", "high-2"}; !slices.Equal(got, want) {
		t.Fatalf("pods after an equal-priority attempt = %v, want %v", got, want)
	}
}
