package nodelifecycle

import (
	"context"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/informers"

	"kubecore.io/kubecore/pkg/controllermanager"
	"kubecore.io/kubecore/pkg/scheduler"

	"kubecore.io/kubecore/test/integration/framework"
)

// TestLostNodesPodsRescheduledByReplicaSet runs the ReplicaSet controller
// and the scheduler beside the node lifecycle controller: when a node's
// Lease stops, the node is tainted, its pods are evicted after their
// (shortened) toleration, and the ReplicaSet's replacements are scheduled
// on the healthy node, never on the lost one.
func TestLostNodesPodsRescheduledByReplicaSet(t *testing.T) {
	tb := setup(t)
	cs, ns := tb.cs, tb.ns
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	manager := make(chan error, 1)
	go func() {
		manager <- controllermanager.Config{RESTConfig: tb.s.Config, Controllers: []string{"replicaset"}}.Run(ctx)
	}()
	factory := informers.NewSharedInformerFactory(cs)
	sched, err := scheduler.New(ctx, scheduler.Config{Client: cs, Informers: factory, InitialBackoff: 100 * time.Millisecond, MaxBackoff: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx)
	scheduled := make(chan error, 1)
	go func() { scheduled <- sched.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-manager; err != nil {
			t.Errorf("controller-manager: %v", err)
		}
		if err := <-scheduled; err != nil {
			t.Errorf("scheduler: %v", err)
		}
		factory.Shutdown()
	})

	// Every replica starts on node A: B is cordoned until they run.
	setUnschedulable := func(node string, v bool) {
		t.Helper()
		n, err := cs.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n.Spec.Unschedulable = v
		if _, err := cs.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	setUnschedulable(tb.nodeB, true)
	const replicas = 4
	template := pod("", "", true, secs(2))
	template.Labels = map[string]string{"app": "web"}
	template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
		NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
			Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{tb.nodeA, tb.nodeB},
		}}}},
	}}}
	n := int32(replicas)
	rs, err := cs.AppsV1().ReplicaSets(ns).Create(ctx, &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.ReplicaSetSpec{Replicas: &n, Selector: &metav1.LabelSelector{MatchLabels: template.Labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: template.ObjectMeta, Spec: template.Spec}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// running returns the active pods of the ReplicaSet by node, counting
	// only Running ones.
	running := func() (map[string][]string, int, error) {
		list, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, 0, err
		}
		byNode, active := map[string][]string{}, 0
		for _, p := range list.Items {
			if ref := metav1.GetControllerOf(&p); ref == nil || ref.UID != rs.UID || p.DeletionTimestamp != nil {
				continue
			}
			active++
			if p.Status.Phase == corev1.PodRunning {
				byNode[p.Spec.NodeName] = append(byNode[p.Spec.NodeName], p.Name)
			}
		}
		return byNode, active, nil
	}
	var onA []string
	framework.WaitFor(t, 20*time.Second, "4 pods running on node A", func() (bool, error) {
		byNode, _, err := running()
		onA = byNode[tb.nodeA]
		return len(onA) == replicas, err
	})
	setUnschedulable(tb.nodeB, false)

	tb.agent.StopHeartbeat(tb.nodeA)
	stopped := time.Now()
	framework.WaitFor(t, 30*time.Second, "the pods of node A to be evicted", func() (bool, error) {
		for _, name := range onA {
			if ok, err := gone(cs, ns, name); !ok || err != nil {
				return false, err
			}
		}
		return true, nil
	})
	// The lease grace (1s) and the toleration (2s) both passed; the
	// taint's timeAdded has second precision, so allow one second less.
	if d := time.Since(stopped); d < 2*time.Second {
		t.Errorf("pods evicted %s after the node went silent, before grace + toleration", d)
	}
	framework.WaitFor(t, 30*time.Second, "4 replacement pods running on node B", func() (bool, error) {
		byNode, active, err := running()
		return len(byNode[tb.nodeB]) == replicas && active == replicas, err
	})
	// And nothing was placed on the lost node meanwhile.
	list, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list.Items {
		if p.Spec.NodeName == tb.nodeA && p.DeletionTimestamp == nil {
			t.Errorf("pod %s is on the lost node %s", p.Name, tb.nodeA)
		}
	}
}
