package nodelifecycle

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/informers"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/controller/nodelifecycle"
	"kubecore.io/kubecore/test/integration/fakenode"
	"kubecore.io/kubecore/test/integration/framework"
)

const grace = time.Second

// testbed is a test's API server client, fake nodes and namespace. The
// tests share one etcd, so node names are made unique per test.
type testbed struct {
	s            *framework.APIServer
	cs           *typed.Clientset
	agent        *fakenode.Agent
	ns           string
	nodeA, nodeB string
}

func setup(t *testing.T) testbed {
	t.Helper()
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	cs := s.Clientset(t)
	ns := s.CreateNamespace(t, "nodes")
	tb := testbed{s: s, cs: cs, ns: ns, nodeA: ns + "-a", nodeB: ns + "-b"}
	t.Cleanup(func() {
		// Nodes are cluster-scoped: remove them so that the next test's
		// controller does not count them as down.
		for _, n := range []string{tb.nodeA, tb.nodeB} {
			_ = cs.CoreV1().Nodes().Delete(context.Background(), n, metav1.DeleteOptions{})
			_ = cs.CoordinationV1().Leases(corev1.NamespaceNodeLease).Delete(context.Background(), n, metav1.DeleteOptions{})
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	agent, err := fakenode.Start(ctx, cs, fakenode.Options{Nodes: []string{tb.nodeA, tb.nodeB}, LeaseRenewInterval: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Stop() })
	tb.agent = agent
	factory := informers.NewSharedInformerFactory(cs)
	c, err := nodelifecycle.New(cs, factory, nodelifecycle.Options{
		NodeMonitorGracePeriod: grace, NodeMonitorPeriod: 100 * time.Millisecond, EvictionRate: 100,
	})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx)
	wg.Go(func() {
		if err := c.Run(ctx, 2); err != nil {
			t.Error(err)
		}
		factory.Shutdown()
	})
	return tb
}

func secs(n int64) *int64 { return &n }

// pod makes a pod bound to node, tolerating the unreachable and not-ready
// NoExecute taints for seconds (nil: forever; absent when tolerate is false).
func pod(name, node string, tolerate bool, seconds *int64) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}
	if tolerate {
		for _, key := range []string{corev1.TaintNodeUnreachable, corev1.TaintNodeNotReady} {
			p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{
				Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: seconds,
			})
		}
	}
	return p
}

func taintOf(n *corev1.Node, key string, effect corev1.TaintEffect) *corev1.Taint {
	i := slices.IndexFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == key && t.Effect == effect })
	if i < 0 {
		return nil
	}
	return &n.Spec.Taints[i]
}

func ready(n *corev1.Node) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == corev1.NodeReady {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

// gone reports whether the pod is deleted or being deleted.
func gone(cs *typed.Clientset, ns, name string) (bool, error) {
	p, err := cs.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return p.DeletionTimestamp != nil, nil
}

// TestSilentNodeIsTaintedAndItsPodsEvicted stops a node's Lease: after the
// grace period it is Ready=Unknown with the unreachable taints; its pods go
// at once (no toleration), after their tolerationSeconds, or never
// (tolerated forever); the healthy node's pods stay; when the node is back
// the taints go.
func TestSilentNodeIsTaintedAndItsPodsEvicted(t *testing.T) {
	tb := setup(t)
	cs, agent, ns := tb.cs, tb.agent, tb.ns
	ctx := context.Background()
	for _, p := range []*corev1.Pod{
		pod("a-now", tb.nodeA, true, secs(0)),
		// Admission gives a pod without tolerations of its own 300 s
		// (DefaultTolerationSeconds): it outlives this test.
		pod("a-defaulted", tb.nodeA, false, nil),
		pod("a-2s", tb.nodeA, true, secs(2)),
		pod("a-forever", tb.nodeA, true, nil),
		pod("b-now", tb.nodeB, true, secs(0)),
	} {
		if _, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(2 * grace) // healthy nodes stay untouched past the grace period
	for _, n := range []string{tb.nodeA, tb.nodeB} {
		node, err := cs.CoreV1().Nodes().Get(ctx, n, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(node.Spec.Taints) != 0 || ready(node).Status != corev1.ConditionTrue {
			t.Fatalf("healthy %s: taints %v ready %v", n, node.Spec.Taints, ready(node).Status)
		}
	}

	agent.StopHeartbeat(tb.nodeA)
	var taint *corev1.Taint
	framework.WaitFor(t, 10*time.Second, "node-a to be Unknown and tainted unreachable", func() (bool, error) {
		n, err := cs.CoreV1().Nodes().Get(ctx, tb.nodeA, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		taint = taintOf(n, corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute)
		rc := ready(n)
		return taint != nil && taintOf(n, corev1.TaintNodeUnreachable, corev1.TaintEffectNoSchedule) != nil &&
			rc.Status == corev1.ConditionUnknown && rc.Reason == "NodeStatusUnknown" && rc.Message == "Kubelet stopped posting node status.", nil
	})
	// The grace period runs from the last renewal the controller saw, which
	// may precede StopHeartbeat by up to one heartbeat (or follow it, when a
	// renewal was in flight): measure from the Lease's own renewTime.
	lease, err := cs.CoordinationV1().Leases(corev1.NamespaceNodeLease).Get(ctx, tb.nodeA, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if taintedAfter := time.Since(lease.Spec.RenewTime.Time); taintedAfter < grace {
		t.Errorf("node tainted %v after its last lease renewal, before the %v grace period", taintedAfter, grace)
	}
	if taint.TimeAdded == nil {
		t.Error("NoExecute taint without timeAdded")
	}
	framework.WaitFor(t, 5*time.Second, "the pod tolerating 0s to be evicted", func() (bool, error) { return gone(cs, ns, "a-now") })
	if ok, _ := gone(cs, ns, "a-2s"); ok {
		t.Error("pod tolerating 2s evicted at once")
	}
	framework.WaitFor(t, 10*time.Second, "the 2s pod to be evicted", func() (bool, error) { return gone(cs, ns, "a-2s") })
	// timeAdded has second precision: at least one whole second passed.
	if since := time.Since(taint.TimeAdded.Time); since < time.Second {
		t.Errorf("2s pod evicted %v after the taint", since)
	}
	for _, name := range []string{"a-forever", "a-defaulted", "b-now"} {
		if ok, err := gone(cs, ns, name); ok || err != nil {
			t.Errorf("pod %s evicted (err %v), want it kept", name, err)
		}
	}

	// The node comes back: its kubelet renews the Lease and posts Ready.
	n, err := cs.CoreV1().Nodes().Get(ctx, tb.nodeA, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	rc := ready(n)
	rc.Status, rc.Reason, rc.Message, rc.LastHeartbeatTime, rc.LastTransitionTime = corev1.ConditionTrue, "KubeletReady", "back", now, now
	if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 10*time.Second, "node-a to be untainted", func() (bool, error) {
		n, err := cs.CoreV1().Nodes().Get(ctx, tb.nodeA, metav1.GetOptions{})
		return err == nil && len(n.Spec.Taints) == 0, err
	})
}

// TestNotReadyNode taints a node that reports Ready=False not-ready.
func TestNotReadyNode(t *testing.T) {
	tb := setup(t)
	cs, ns := tb.cs, tb.ns
	ctx := context.Background()
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod("b-1s", tb.nodeB, true, secs(1)), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	n, err := cs.CoreV1().Nodes().Get(ctx, tb.nodeB, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	now := metav1.Now()
	rc := ready(n)
	rc.Status, rc.Reason, rc.LastHeartbeatTime, rc.LastTransitionTime = corev1.ConditionFalse, "KubeletNotReady", now, now
	if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 10*time.Second, "node-b to be tainted not-ready", func() (bool, error) {
		n, err := cs.CoreV1().Nodes().Get(ctx, tb.nodeB, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		return taintOf(n, corev1.TaintNodeNotReady, corev1.TaintEffectNoExecute) != nil &&
			taintOf(n, corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute) == nil, nil
	})
	framework.WaitFor(t, 10*time.Second, "the pod to be evicted after 1s", func() (bool, error) { return gone(cs, ns, "b-1s") })
}
