package daemonset

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/util/intstr"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/discovery"
	"kubecore.io/client/informers"
	"kubecore.io/client/metadata"
	"kubecore.io/client/typed"
	"kubecore.io/client/util/retry"

	"kubecore.io/kubecore/pkg/controller/daemonset"
	"kubecore.io/kubecore/pkg/controller/garbagecollector"
	"kubecore.io/kubecore/pkg/controllermanager"
	"kubecore.io/kubecore/pkg/scheduler"
	"kubecore.io/kubecore/test/integration/fakenode"
	"kubecore.io/kubecore/test/integration/framework"
)

// nodeLabel marks the nodes of one test (labelled with its namespace):
// the tests of this package share an etcd, so a DaemonSet selects only
// its own test's nodes.
const nodeLabel = "daemonset-test"

// cluster is an API server with the DaemonSet controller, the scheduler
// and the garbage collector; nodes are added with fake node agents.
type cluster struct {
	t          *testing.T
	cs         *typed.Clientset
	ns         string
	readyAfter time.Duration
}

func setup(t *testing.T, readyAfter time.Duration) *cluster {
	t.Helper()
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	cs := s.Clientset(t)
	c := &cluster{t: t, cs: cs, ns: s.CreateNamespace(t, "ds"), readyAfter: readyAfter}
	factory := informers.NewSharedInformerFactory(cs)
	dsc, err := daemonset.New(cs, factory, daemonset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p := dsc.Runner().Panics(); p > 0 {
			t.Errorf("%d syncs panicked", p)
		}
	})
	sched, err := scheduler.New(t.Context(), scheduler.Config{Client: cs, Informers: factory, InitialBackoff: 100 * time.Millisecond, MaxBackoff: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	md, err := metadata.NewForConfig(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	disco, err := discovery.NewForConfig(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	gc, err := garbagecollector.New(controllermanager.Clients{MetadataClient: md, DiscoveryClient: disco}, garbagecollector.Options{})
	if err != nil {
		t.Fatal(err)
	}
	framework.RunControllers(t, factory,
		func(ctx context.Context) error { return dsc.Run(ctx, 3) },
		sched.Run,
		func(ctx context.Context) error { return gc.Run(ctx, 2) })
	return c
}

// node is the name of the test's node called short.
func (c *cluster) node(short string) string { return c.ns + "-" + short }

// addNodes registers nodes (made by mutate, labelled as the test's
// unless mutate removes it) run by a new fake node agent.
func (c *cluster) addNodes(mutate func(*corev1.Node), short ...string) {
	c.t.Helper()
	ctx := context.Background()
	var names []string
	for _, s := range short {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: c.node(s), Labels: map[string]string{corev1.LabelHostname: c.node(s), nodeLabel: c.ns}}}
		if mutate != nil {
			mutate(n)
		}
		if _, err := c.cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{}); err != nil {
			c.t.Fatal(err)
		}
		names = append(names, n.Name)
		c.t.Cleanup(func() { _ = c.cs.CoreV1().Nodes().Delete(context.Background(), n.Name, metav1.DeleteOptions{}) })
	}
	agent, err := fakenode.Start(ctx, c.cs, fakenode.Options{Nodes: names, ReadyAfter: c.readyAfter, LeaseRenewInterval: -1})
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { _ = agent.Stop() })
}

// updateNode changes a node, retrying on conflicts.
func (c *cluster) updateNode(short string, mutate func(*corev1.Node)) {
	c.t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		n, err := c.cs.CoreV1().Nodes().Get(context.Background(), c.node(short), metav1.GetOptions{})
		if err != nil {
			return err
		}
		mutate(n)
		_, err = c.cs.CoreV1().Nodes().Update(context.Background(), n, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		c.t.Fatal(err)
	}
}

// updateDaemonSet changes the DaemonSet, retrying on conflicts.
func (c *cluster) updateDaemonSet(name string, mutate func(*appsv1.DaemonSet)) {
	c.t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		ds, err := c.cs.AppsV1().DaemonSets(c.ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		mutate(ds)
		_, err = c.cs.AppsV1().DaemonSets(c.ns).Update(context.Background(), ds, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		c.t.Fatal(err)
	}
}

var podLabels = map[string]string{"app": "agent"}

func (c *cluster) newDaemonSet(name string, mutate ...func(*appsv1.DaemonSet)) *appsv1.DaemonSet {
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: podLabels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: podLabels},
				Spec: corev1.PodSpec{
					NodeSelector: map[string]string{nodeLabel: c.ns},
					Containers:   []corev1.Container{{Name: "agent", Image: "agent:1"}},
				},
			},
		},
	}
	for _, m := range mutate {
		m(ds)
	}
	out, err := c.cs.AppsV1().DaemonSets(c.ns).Create(context.Background(), ds, metav1.CreateOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	return out
}

// pods returns the DaemonSet's pods not being deleted, by node.
func (c *cluster) pods() map[string][]corev1.Pod {
	c.t.Helper()
	list, err := c.cs.CoreV1().Pods(c.ns).List(context.Background(), metav1.ListOptions{LabelSelector: "app=agent"})
	if err != nil {
		c.t.Fatal(err)
	}
	out := map[string][]corev1.Pod{}
	for _, p := range list.Items {
		if p.DeletionTimestamp == nil {
			out[p.Spec.NodeName] = append(out[p.Spec.NodeName], p)
		}
	}
	return out
}

func isReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// waitStatus waits until the DaemonSet's status, observed at its
// generation, reads want: "desired current ready available updated
// misscheduled unavailable".
func (c *cluster) waitStatus(name, want string) *appsv1.DaemonSet {
	c.t.Helper()
	var last *appsv1.DaemonSet
	framework.WaitFor(c.t, 30*time.Second, "status "+want, func() (bool, error) {
		ds, err := c.cs.AppsV1().DaemonSets(c.ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		last = ds
		st := ds.Status
		got := fmt.Sprint(st.DesiredNumberScheduled, st.CurrentNumberScheduled, st.NumberReady, st.NumberAvailable,
			st.UpdatedNumberScheduled, st.NumberMisscheduled, st.NumberUnavailable)
		if st.ObservedGeneration != ds.Generation || got != want {
			return false, fmt.Errorf("status %s at generation %d/%d", got, st.ObservedGeneration, ds.Generation)
		}
		return true, nil
	})
	return last
}

// waitPodsOn waits until exactly the given nodes run one Ready pod each
// and no other node runs any, and returns them by node.
func (c *cluster) waitPodsOn(short ...string) map[string]corev1.Pod {
	c.t.Helper()
	want := map[string]bool{}
	for _, s := range short {
		want[c.node(s)] = true
	}
	var out map[string]corev1.Pod
	framework.WaitFor(c.t, 30*time.Second, fmt.Sprintf("one ready pod on each of %v", short), func() (bool, error) {
		byNode := c.pods()
		out = map[string]corev1.Pod{}
		for node, pods := range byNode {
			if !want[node] || len(pods) != 1 || !isReady(&pods[0]) {
				return false, fmt.Errorf("pods on %q: %d", node, len(pods))
			}
			out[node] = pods[0]
		}
		return len(out) == len(want), fmt.Errorf("ready pods on %d nodes of %d", len(out), len(want))
	})
	return out
}

// TestPlacement: a pod on every eligible node and none elsewhere; a new
// node gets one; cordoned nodes keep theirs (the scheduler binds a
// replacement there); a failed pod is replaced; a NoExecute taint or a
// deleted node loses its pod; deleting the DaemonSet deletes its pods.
func TestPlacement(t *testing.T) {
	c := setup(t, 0)
	ctx := context.Background()
	c.addNodes(nil, "a", "b", "c")
	c.addNodes(func(n *corev1.Node) {
		n.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule}}
	}, "tainted")
	c.addNodes(func(n *corev1.Node) { delete(n.Labels, nodeLabel) }, "unlabelled")
	ds := c.newDaemonSet("agent")
	c.waitStatus(ds.Name, "3 3 3 3 3 0 0")
	pods := c.waitPodsOn("a", "b", "c")
	revs, err := c.cs.AppsV1().ControllerRevisions(c.ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(revs.Items) != 1 || !metav1.IsControlledBy(&revs.Items[0], ds) {
		t.Fatalf("revisions %+v, %v", revs, err)
	}
	hash := revs.Items[0].Labels[appsv1.ControllerRevisionHashLabelKey]
	for node, p := range pods {
		if p.Labels[appsv1.ControllerRevisionHashLabelKey] != hash || p.Labels[daemonset.TemplateGenerationLabel] != "1" || !metav1.IsControlledBy(&p, ds) {
			t.Errorf("pod %s on %s: labels %v owners %v", p.Name, node, p.Labels, p.OwnerReferences)
		}
		terms := p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		if len(terms) != 1 || terms[0].MatchFields[0].Key != "metadata.name" || terms[0].MatchFields[0].Values[0] != node {
			t.Errorf("pod %s on %s: node affinity %+v", p.Name, node, terms)
		}
		if len(p.Spec.Tolerations) != 6 {
			t.Errorf("pod %s tolerations %+v", p.Name, p.Spec.Tolerations)
		}
	}

	// A new node gets a pod.
	c.addNodes(nil, "d")
	c.waitStatus(ds.Name, "4 4 4 4 4 0 0")
	pods = c.waitPodsOn("a", "b", "c", "d")

	// A cordoned node keeps its pod, and the scheduler binds the
	// replacement of a deleted one there.
	c.updateNode("b", func(n *corev1.Node) { n.Spec.Unschedulable = true })
	old := pods[c.node("b")]
	if err := c.cs.CoreV1().Pods(c.ns).Delete(ctx, old.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "a new pod on the cordoned node", func() (bool, error) {
		p := c.pods()[c.node("b")]
		return len(p) == 1 && p[0].UID != old.UID && isReady(&p[0]), nil
	})

	// A failed pod is replaced.
	failed := pods[c.node("d")]
	failed.Status.Phase = corev1.PodFailed
	if _, err := c.cs.CoreV1().Pods(c.ns).UpdateStatus(ctx, &failed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "the failed pod replaced", func() (bool, error) {
		p := c.pods()[c.node("d")]
		return len(p) == 1 && p[0].UID != failed.UID && isReady(&p[0]), nil
	})

	// A NoExecute taint evicts the daemon pod; a deleted node loses its pod.
	c.updateNode("a", func(n *corev1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: "maintenance", Effect: corev1.TaintEffectNoExecute})
	})
	if err := c.cs.CoreV1().Nodes().Delete(ctx, c.node("c"), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	c.waitStatus(ds.Name, "2 2 2 2 2 0 0")
	c.waitPodsOn("b", "d")

	// The garbage collector deletes the pods of a deleted DaemonSet.
	if err := c.cs.AppsV1().DaemonSets(c.ns).Delete(ctx, ds.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "no pods left", func() (bool, error) {
		list, err := c.cs.CoreV1().Pods(c.ns).List(ctx, metav1.ListOptions{})
		return err == nil && len(list.Items) == 0, err
	})
}

// podWatch replays the pod events of a namespace from a list, keeping the
// pods' state after every event.
type podWatch struct {
	mu   sync.Mutex
	pods map[types.UID]*corev1.Pod
}

// read runs f while no event is being replayed: what check records is
// read there.
func (pw *podWatch) read(f func()) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	f()
}

func watchPods(t *testing.T, cs *typed.Clientset, ns string, check func(map[types.UID]*corev1.Pod)) *podWatch {
	t.Helper()
	list, err := cs.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pw := &podWatch{pods: map[types.UID]*corev1.Pod{}}
	for i := range list.Items {
		pw.pods[list.Items[i].UID] = &list.Items[i]
	}
	check(pw.pods)
	ctx, cancel := context.WithCancel(context.Background())
	w, err := cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			pw.mu.Lock()
			if ev.Type == watch.Deleted {
				delete(pw.pods, p.UID)
			} else {
				pw.pods[p.UID] = p
			}
			check(pw.pods)
			pw.mu.Unlock()
		}
	}()
	t.Cleanup(func() { cancel(); w.Stop(); <-done })
	return pw
}

// TestRollingUpdateAndOnDelete: with maxUnavailable 1 a new template is
// rolled out node by node — at every observed moment at most one node
// lacks a ready pod and no node runs two — recording a second revision;
// with OnDelete a new template waits until a pod is deleted.
func TestRollingUpdateAndOnDelete(t *testing.T) {
	c := setup(t, 300*time.Millisecond)
	ctx := context.Background()
	nodes := []string{"a", "b", "c", "d"}
	c.addNodes(nil, nodes...)
	ds := c.newDaemonSet("agent")
	c.waitStatus(ds.Name, "4 4 4 4 4 0 0")
	before := c.waitPodsOn(nodes...)

	var (
		maxUnavailable, maxOnNode int
		replacedOrder             []string
	)
	seenDeleting := map[types.UID]bool{}
	pw := watchPods(t, c.cs, c.ns, func(pods map[types.UID]*corev1.Pod) {
		onNode := map[string]int{}
		readyOn := map[string]bool{}
		for _, p := range pods {
			if p.DeletionTimestamp != nil {
				if !seenDeleting[p.UID] {
					seenDeleting[p.UID] = true
					replacedOrder = append(replacedOrder, p.Spec.NodeName)
				}
				continue
			}
			node, _ := nodeOf(p)
			onNode[node]++
			if isReady(p) {
				readyOn[node] = true
			}
		}
		unavailable := 0
		for _, n := range nodes {
			if !readyOn[c.node(n)] {
				unavailable++
			}
			maxOnNode = max(maxOnNode, onNode[c.node(n)])
		}
		maxUnavailable = max(maxUnavailable, unavailable)
	})
	c.updateDaemonSet(ds.Name, func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "agent:2" })
	c.waitStatus(ds.Name, "4 4 4 4 4 0 0")
	after := c.waitPodsOn(nodes...)
	pw.read(func() {
		if maxUnavailable != 1 || maxOnNode != 1 {
			t.Errorf("during the update: at most %d nodes without a ready pod (want 1), at most %d pods on a node (want 1)", maxUnavailable, maxOnNode)
		}
		slices.Sort(replacedOrder)
		if want := []string{c.node("a"), c.node("b"), c.node("c"), c.node("d")}; !slices.Equal(replacedOrder, want) {
			t.Errorf("pods deleted on %v, want one on each of %v", replacedOrder, want)
		}
	})
	revs, err := c.cs.AppsV1().ControllerRevisions(c.ns).List(ctx, metav1.ListOptions{})
	if err != nil || len(revs.Items) != 2 {
		t.Fatalf("revisions %+v, %v", revs, err)
	}
	newest := revs.Items[0]
	if revs.Items[1].Revision > newest.Revision {
		newest = revs.Items[1]
	}
	for node, p := range after {
		if p.UID == before[node].UID || p.Spec.Containers[0].Image != "agent:2" ||
			p.Labels[appsv1.ControllerRevisionHashLabelKey] != newest.Labels[appsv1.ControllerRevisionHashLabelKey] || newest.Revision != 2 {
			t.Errorf("pod %s on %s not updated: image %s labels %v; newest revision %s (%d)", p.Name, node, p.Spec.Containers[0].Image, p.Labels, newest.Name, newest.Revision)
		}
	}

	// OnDelete: the new template waits for a pod to be deleted.
	c.updateDaemonSet(ds.Name, func(ds *appsv1.DaemonSet) {
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
		ds.Spec.Template.Spec.Containers[0].Image = "agent:3"
	})
	c.waitStatus(ds.Name, "4 4 4 4 0 0 0")
	time.Sleep(time.Second)
	for node, p := range c.waitPodsOn(nodes...) {
		if p.UID != after[node].UID {
			t.Errorf("OnDelete replaced the pod on %s", node)
		}
	}
	victim := after[c.node("c")]
	if err := c.cs.CoreV1().Pods(c.ns).Delete(ctx, victim.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	c.waitStatus(ds.Name, "4 4 4 4 1 0 0")
	if p := c.waitPodsOn(nodes...)[c.node("c")]; p.Spec.Containers[0].Image != "agent:3" {
		t.Errorf("the replacement of a deleted pod runs %s", p.Spec.Containers[0].Image)
	}
}

// nodeOf is the node a pod is bound to, or pinned to before it is bound.
func nodeOf(p *corev1.Pod) (string, bool) {
	if p.Spec.NodeName != "" {
		return p.Spec.NodeName, true
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return "", false
	}
	for _, t := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if len(t.MatchFields) > 0 && len(t.MatchFields[0].Values) > 0 {
			return t.MatchFields[0].Values[0], true
		}
	}
	return "", false
}

// TestMaxUnavailablePercent: 50% of 4 nodes lets two nodes update at once.
func TestMaxUnavailablePercent(t *testing.T) {
	c := setup(t, 300*time.Millisecond)
	nodes := []string{"a", "b", "c", "d"}
	c.addNodes(nil, nodes...)
	half := intstr.FromString("50%")
	ds := c.newDaemonSet("agent", func(ds *appsv1.DaemonSet) {
		ds.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDaemonSet{MaxUnavailable: &half}}
	})
	c.waitStatus(ds.Name, "4 4 4 4 4 0 0")
	c.waitPodsOn(nodes...)
	maxUnavailable := 0
	pw := watchPods(t, c.cs, c.ns, func(pods map[types.UID]*corev1.Pod) {
		readyOn := map[string]bool{}
		for _, p := range pods {
			if p.DeletionTimestamp == nil && isReady(p) {
				readyOn[p.Spec.NodeName] = true
			}
		}
		maxUnavailable = max(maxUnavailable, len(nodes)-len(readyOn))
	})
	c.updateDaemonSet(ds.Name, func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.Containers[0].Image = "agent:2" })
	c.waitStatus(ds.Name, "4 4 4 4 4 0 0")
	c.waitPodsOn(nodes...)
	pw.read(func() {
		if maxUnavailable != 2 {
			t.Errorf("at most %d nodes without a ready pod, want 2", maxUnavailable)
		}
	})
}
