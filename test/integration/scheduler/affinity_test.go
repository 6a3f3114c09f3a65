package scheduler

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/scheduler"
)

func selector(kv ...string) *metav1.LabelSelector {
	s := &metav1.LabelSelector{MatchLabels: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		s.MatchLabels[kv[i]] = kv[i+1]
	}
	return s
}

func podAffinity(terms ...corev1.PodAffinityTerm) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms}}
	}
}

func podAntiAffinity(terms ...corev1.PodAffinityTerm) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: terms}}
	}
}

// onlyNodes restricts the pod to the named nodes by hostname.
func onlyNodes(names ...string) podOpt {
	return func(p *corev1.Pod) {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &corev1.Affinity{}
		}
		p.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: names}}}},
		}}
	}
}

func spread(key string, maxSkew int32, minDomains *int32, when corev1.UnsatisfiableConstraintAction, kv ...string) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
			MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: when, MinDomains: minDomains, LabelSelector: selector(kv...),
		})
	}
}

// TestInterPodAffinityCases covers required pod affinity by zone, the
// symmetry of an existing pod's anti-affinity, terms reaching other
// namespaces by name and by namespaceSelector, and preferred affinity
// winning over resource balance.
func TestInterPodAffinityCases(t *testing.T) {
	e := newEnv(t)
	var n [4]string
	for i := range n {
		n[i] = e.node(fmt.Sprint("n", i), "4", "8Gi", withLabels("zone", fmt.Sprint("z", i/2))).Name
	}
	other := e.ns + "-other"
	if _, err := e.cs.CoreV1().Namespaces().Create(e.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: other, Labels: map[string]string{"team": other}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Running pods: a db on n2 (zone z1), a loner on n0 that repels
	// noisy pods, and in the other namespace a cache on n3.
	e.pod("db", podLabels("app", "db"), requests("1", "1Gi"), onNode(n[2]))
	e.pod("loner", onNode(n[0]), podAntiAffinity(corev1.PodAffinityTerm{LabelSelector: selector("role", "noisy"), TopologyKey: corev1.LabelHostname}))
	e.pod("cache", inNamespace(other), podLabels("app", "cache"), onNode(n[3]))
	e.start(scheduler.Config{})

	for _, tc := range []struct {
		name string
		opts []podOpt
		want []string
	}{
		{"with-db-zone", []podOpt{podAffinity(corev1.PodAffinityTerm{LabelSelector: selector("app", "db"), TopologyKey: "zone"})}, []string{n[2], n[3]}},
		// The loner's anti-affinity keeps noisy pods off n0 although they
		// declare nothing themselves.
		{"noisy", []podOpt{podLabels("role", "noisy"), onlyNodes(n[0], n[1])}, []string{n[1]}},
		{"near-cache-by-name", []podOpt{podAffinity(corev1.PodAffinityTerm{LabelSelector: selector("app", "cache"), Namespaces: []string{other}, TopologyKey: corev1.LabelHostname})}, []string{n[3]}},
		{"near-cache-by-selector", []podOpt{podAffinity(corev1.PodAffinityTerm{LabelSelector: selector("app", "cache"), NamespaceSelector: selector("team", other), TopologyKey: corev1.LabelHostname})}, []string{n[3]}},
		// An empty namespaceSelector means every namespace.
		{"near-cache-anywhere", []podOpt{podAffinity(corev1.PodAffinityTerm{LabelSelector: selector("app", "cache"), NamespaceSelector: &metav1.LabelSelector{}, TopologyKey: corev1.LabelHostname})}, []string{n[3]}},
		// Preferred affinity to the db outweighs n2 being the busiest.
		{"prefers-db", []podOpt{requests("100m", "100Mi"), func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
				Weight: 100, PodAffinityTerm: corev1.PodAffinityTerm{LabelSelector: selector("app", "db"), TopologyKey: corev1.LabelHostname},
			}}}}
		}}, []string{n[2]}},
		// Preferred anti-affinity to the db and the cache: n0 or n1.
		{"avoids-db-and-cache", []podOpt{func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{
				{Weight: 100, PodAffinityTerm: corev1.PodAffinityTerm{LabelSelector: selector("app", "db"), TopologyKey: "zone"}},
				{Weight: 100, PodAffinityTerm: corev1.PodAffinityTerm{LabelSelector: selector("app", "cache"), NamespaceSelector: &metav1.LabelSelector{}, TopologyKey: "zone"}},
			}}}
		}}, []string{n[0], n[1]}},
	} {
		e.pod(tc.name, tc.opts...)
		p := e.waitScheduled(tc.name)
		ok := false
		for _, w := range tc.want {
			ok = ok || p.Spec.NodeName == w
		}
		if !ok {
			t.Errorf("%s on %s, want one of %v", tc.name, p.Spec.NodeName, tc.want)
		}
	}

	// Without a namespace in the term, only the pod's own namespace
	// counts: there is no cache there.
	e.pod("near-cache-own-namespace", podAffinity(corev1.PodAffinityTerm{LabelSelector: selector("app", "cache"), TopologyKey: corev1.LabelHostname}))
	if msg := e.waitUnschedulable("near-cache-own-namespace"); !strings.HasPrefix(msg, "0/4 nodes are available: 4 node(s) didn't match pod affinity rules.") {
		t.Errorf("message = %q", msg)
	}
	// The cache pod arrives in the env's namespace: the waiting pod follows
	// it, moved by the pod event rather than a timer.
	e.pod("cache-here", podLabels("app", "cache"), onNode(n[1]))
	if p := e.waitScheduled("near-cache-own-namespace"); p.Spec.NodeName != n[1] {
		t.Errorf("near-cache-own-namespace on %s, want %s", p.Spec.NodeName, n[1])
	}
}

// TestTopologySpreadMinDomainsAndScheduleAnyway: with minDomains above the
// zones there are, the global minimum counts as 0, so each zone takes one
// pod and the next waits; a ScheduleAnyway constraint only scores.
func TestTopologySpreadMinDomainsAndScheduleAnyway(t *testing.T) {
	e := newEnv(t)
	for i := range 4 {
		e.node(fmt.Sprint("n", i), "4", "8Gi", withLabels("zone", fmt.Sprint("z", i%2)))
	}
	e.start(scheduler.Config{})
	three := int32(3)
	zones := map[string]int{}
	for i := range 2 {
		name := fmt.Sprint("min-", i)
		e.pod(name, podLabels("app", "min"), spread("zone", 1, &three, corev1.DoNotSchedule, "app", "min"))
		node, err := e.cs.CoreV1().Nodes().Get(e.ctx, e.waitScheduled(name).Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		zones[node.Labels["zone"]]++
	}
	if zones["z0"] != 1 || zones["z1"] != 1 {
		t.Errorf("pods per zone = %v, want one in each", zones)
	}
	e.pod("min-2", podLabels("app", "min"), spread("zone", 1, &three, corev1.DoNotSchedule, "app", "min"))
	if msg := e.waitUnschedulable("min-2"); !strings.HasPrefix(msg, "0/4 nodes are available: 4 node(s) didn't match pod topology spread constraints.") {
		t.Errorf("min-2: message %q", msg)
	}
	// The same constraint, ScheduleAnyway: it schedules.
	e.pod("anyway", podLabels("app", "min"), spread("zone", 1, &three, corev1.ScheduleAnyway, "app", "min"))
	e.waitScheduled("anyway")
}

// TestHardAntiAffinity1000Pods1000Nodes creates 1,000 pods that repel one
// another by hostname while the scheduler runs over 1,000 nodes: each node
// ends with exactly one.
func TestHardAntiAffinity1000Pods1000Nodes(t *testing.T) {
	const count = 1000
	e := newEnv(t)
	names := make([]string, count)
	for i := range names {
		names[i] = fmt.Sprintf("%s-node-%d", e.ns, i)
	}
	e.nodes = names
	err := parallel(count, 16, func(i int) error {
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: names[i], Labels: map[string]string{"env": e.ns, corev1.LabelHostname: names[i]}},
			Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110"),
			}},
		}
		_, err := e.cs.CoreV1().Nodes().Create(e.ctx, node, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	e.start(scheduler.Config{})
	start := time.Now()
	anti := podAntiAffinity(corev1.PodAffinityTerm{LabelSelector: selector("app", "one"), TopologyKey: corev1.LabelHostname})
	err = parallel(count, 16, func(i int) error {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("one-", i), Namespace: e.ns, Labels: map[string]string{"app": "one"}},
			Spec: corev1.PodSpec{SchedulerName: e.scheduler, NodeSelector: map[string]string{"env": e.ns},
				Containers: []corev1.Container{{Name: "c", Image: "pause"}}},
		}
		anti(p)
		_, err := e.cs.CoreV1().Pods(e.ns).Create(e.ctx, p, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		list, err := e.cs.CoreV1().Pods(e.ns).List(e.ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		perNode := map[string]int{}
		bound := 0
		for _, p := range list.Items {
			if p.Spec.NodeName != "" {
				bound++
				if perNode[p.Spec.NodeName]++; perNode[p.Spec.NodeName] > 1 {
					t.Fatalf("node %s has two pods that repel each other", p.Spec.NodeName)
				}
			}
		}
		if bound == count {
			if len(perNode) != count {
				t.Fatalf("%d pods on %d nodes", bound, len(perNode))
			}
			t.Logf("1,000 pods bound one per node in %s", time.Since(start).Round(time.Millisecond))
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d pods bound after 3 minutes", bound, count)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
