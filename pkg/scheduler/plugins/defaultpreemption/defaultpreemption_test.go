package defaultpreemption

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	policyv1 "kubecore.io/api/policy/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"

	"kubecore.io/kubecore/pkg/scheduler/framework"
	"kubecore.io/kubecore/pkg/scheduler/internal/cache"
	"kubecore.io/kubecore/pkg/scheduler/plugins/nodeaffinity"
	"kubecore.io/kubecore/pkg/scheduler/plugins/noderesources"
)

// fakeClient records the deletions and status patches of preemption: the
// DisruptionTarget conditions of victims apart from the other patches
// (cleared nominations).
type fakeClient struct {
	mu         sync.Mutex
	deleted    []string
	patched    []string
	disrupted  map[string]corev1.PodCondition
	markedLate []string // victims marked after their deletion
}

func (c *fakeClient) BindPod(context.Context, *corev1.Binding) error { return nil }

func (c *fakeClient) DeletePod(_ context.Context, pod *corev1.Pod, opts metav1.DeleteOptions) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if opts.Preconditions == nil || opts.Preconditions.UID == nil || *opts.Preconditions.UID != pod.UID {
		panic("preemption must delete the victim it saw, by UID")
	}
	c.deleted = append(c.deleted, pod.Name)
	return nil
}

func (c *fakeClient) PatchPodStatus(_ context.Context, pod *corev1.Pod, patch []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var body struct {
		Status struct {
			Conditions []corev1.PodCondition `json:"conditions"`
		} `json:"status"`
	}
	if err := json.Unmarshal(patch, &body); err != nil {
		return err
	}
	for _, cond := range body.Status.Conditions {
		if cond.Type == corev1.DisruptionTarget {
			if slices.Contains(c.deleted, pod.Name) {
				c.markedLate = append(c.markedLate, pod.Name)
			}
			if c.disrupted == nil {
				c.disrupted = map[string]corev1.PodCondition{}
			}
			c.disrupted[pod.Name] = cond
			return nil
		}
	}
	c.patched = append(c.patched, pod.Name)
	return nil
}

// fakeNominator is a map of nominations.
type fakeNominator struct {
	mu    sync.Mutex
	nodes map[types.UID]string
	pods  map[types.UID]*framework.PodInfo
}

func (n *fakeNominator) NominatedPodsForNode(node string) []*framework.PodInfo {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []*framework.PodInfo
	for uid, name := range n.nodes {
		if name == node {
			out = append(out, n.pods[uid])
		}
	}
	return out
}

func (n *fakeNominator) AddNominatedPod(pi *framework.PodInfo, node string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if node == "" {
		delete(n.nodes, pi.Pod.UID)
		return
	}
	n.nodes[pi.Pod.UID], n.pods[pi.Pod.UID] = node, pi
}

type binder struct{}

func (binder) Name() string { return "Binder" }
func (binder) Bind(context.Context, *framework.CycleState, *corev1.Pod, string) *framework.Status {
	return nil
}

func node(name, cpu string, kv ...string) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{}}}
	for i := 0; i+1 < len(kv); i += 2 {
		n.Labels[kv[i]] = kv[i+1]
	}
	n.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourcePods: resource.MustParse("110")}
	return n
}

type podOpt func(*corev1.Pod)

func started(minutesAgo int) podOpt {
	return func(p *corev1.Pod) {
		t := metav1.NewTime(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC).Add(-time.Duration(minutesAgo) * time.Minute))
		p.Status.StartTime = &t
	}
}

func labelled(k, v string) podOpt { return func(p *corev1.Pod) { p.Labels[k] = v } }

func terminating(p *corev1.Pod) {
	now := metav1.Now()
	p.DeletionTimestamp = &now
}

func nominated(node string) podOpt { return func(p *corev1.Pod) { p.Status.NominatedNodeName = node } }

func never(p *corev1.Pod) {
	v := corev1.PreemptNever
	p.Spec.PreemptionPolicy = &v
}

func onlyOn(node string) podOpt {
	return func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"name": node} }
}

func pod(name, nodeName, cpu string, prio int32, opts ...podOpt) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), Labels: map[string]string{}}}
	p.Spec.SchedulerName = corev1.DefaultSchedulerName
	p.Spec.NodeName = nodeName
	p.Spec.Priority = &prio
	p.Spec.Containers = []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}}}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func pdb(allowed int32, k, v string) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "pdb", Namespace: "default"},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{k: v}}},
		Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed},
	}
}

func TestPostFilter(t *testing.T) {
	tests := []struct {
		name          string
		nodes         []*corev1.Node
		pods          []*corev1.Pod
		nominatedPods []*corev1.Pod
		pdbs          []*policyv1.PodDisruptionBudget
		preemptor     *corev1.Pod
		wantNode      string
		wantVictims   []string
		wantCleared   []string
		wantMsg       string
	}{
		{
			name:  "only the lowest-priority pod is evicted",
			nodes: []*corev1.Node{node("n1", "2")},
			pods: []*corev1.Pod{
				pod("low", "n1", "1", 1), pod("mid", "n1", "1", 5),
			},
			preemptor:   pod("p", "", "1", 10),
			wantNode:    "n1",
			wantVictims: []string{"low"},
		},
		{
			name:  "enough lower-priority pods to make room, the most important kept",
			nodes: []*corev1.Node{node("n1", "4")},
			pods: []*corev1.Pod{
				pod("a", "n1", "1", 1), pod("b", "n1", "1", 2), pod("c", "n1", "1", 3), pod("d", "n1", "1", 20),
			},
			preemptor:   pod("p", "", "2", 10),
			wantNode:    "n1",
			wantVictims: []string{"a", "b"},
		},
		{
			name:  "the node whose most important victim matters least",
			nodes: []*corev1.Node{node("n1", "1"), node("n2", "1")},
			pods: []*corev1.Pod{
				pod("n1-a", "n1", "500m", 1), pod("n1-b", "n1", "500m", 1), pod("n2-a", "n2", "1", 2),
			},
			preemptor:   pod("p", "", "1", 10),
			wantNode:    "n1",
			wantVictims: []string{"n1-a", "n1-b"},
		},
		{
			name:  "with equal priorities, the fewest victims",
			nodes: []*corev1.Node{node("n1", "1"), node("n2", "1")},
			pods: []*corev1.Pod{
				pod("n1-a", "n1", "500m", 1), pod("n1-b", "n1", "500m", 1), pod("n2-a", "n2", "1", 1),
			},
			preemptor:   pod("p", "", "1", 10),
			wantNode:    "n2",
			wantVictims: []string{"n2-a"},
		},
		{
			name:  "with one victim each, the most recently started",
			nodes: []*corev1.Node{node("n1", "1"), node("n2", "1")},
			pods: []*corev1.Pod{
				pod("old", "n1", "1", 1, started(60)), pod("new", "n2", "1", 1, started(5)),
			},
			preemptor:   pod("p", "", "1", 10),
			wantNode:    "n2",
			wantVictims: []string{"new"},
		},
		{
			name:  "a disruption budget steers preemption to another node",
			nodes: []*corev1.Node{node("n1", "1"), node("n2", "1")},
			pods: []*corev1.Pod{
				pod("guarded", "n1", "1", 1, labelled("app", "db"), started(5)), pod("free", "n2", "1", 1, started(60)),
			},
			pdbs:        []*policyv1.PodDisruptionBudget{pdb(0, "app", "db")},
			preemptor:   pod("p", "", "1", 10),
			wantNode:    "n2",
			wantVictims: []string{"free"},
		},
		{
			name:        "a budget is violated when nothing else helps",
			nodes:       []*corev1.Node{node("n1", "1")},
			pods:        []*corev1.Pod{pod("guarded", "n1", "1", 1, labelled("app", "db"))},
			pdbs:        []*policyv1.PodDisruptionBudget{pdb(0, "app", "db")},
			preemptor:   pod("p", "", "1", 10),
			wantNode:    "n1",
			wantVictims: []string{"guarded"},
		},
		{
			name:      "equal or higher priority is never preempted",
			nodes:     []*corev1.Node{node("n1", "1"), node("n2", "1")},
			pods:      []*corev1.Pod{pod("same", "n1", "1", 10), pod("higher", "n2", "1", 11)},
			preemptor: pod("p", "", "1", 10),
			wantMsg:   "preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.",
		},
		{
			name:      "removing every lower-priority pod is not enough",
			nodes:     []*corev1.Node{node("n1", "2")},
			pods:      []*corev1.Pod{pod("low", "n1", "1", 1), pod("high", "n1", "1", 100)},
			preemptor: pod("p", "", "2", 10),
			wantMsg:   "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
		},
		{
			name:      "nodes the filters rule out are not helped",
			nodes:     []*corev1.Node{node("n1", "1", "name", "n1"), node("n2", "1", "name", "n2")},
			pods:      []*corev1.Pod{pod("low", "n1", "1", 1), pod("high", "n2", "1", 100)},
			preemptor: pod("p", "", "1", 10, onlyOn("n2")),
			wantMsg:   "preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.",
		},
		{
			name:      "preemptionPolicy Never",
			nodes:     []*corev1.Node{node("n1", "1")},
			pods:      []*corev1.Pod{pod("low", "n1", "1", 1)},
			preemptor: pod("p", "", "1", 10, never),
			wantMsg:   "preemption: not eligible due to preemptionPolicy=Never.",
		},
		{
			name:      "victims of the last preemption still terminating",
			nodes:     []*corev1.Node{node("n1", "1"), node("n2", "1")},
			pods:      []*corev1.Pod{pod("going", "n1", "1", 1, terminating), pod("low", "n2", "1", 1)},
			preemptor: pod("p", "", "1", 10, nominated("n1")),
			wantMsg:   "preemption: not eligible due to a terminating pod on the nominated node.",
		},
		{
			name:          "lower-priority pods nominated to the node lose it",
			nodes:         []*corev1.Node{node("n1", "2")},
			pods:          []*corev1.Pod{pod("low", "n1", "1", 1), pod("mid", "n1", "1", 5)},
			nominatedPods: []*corev1.Pod{pod("waiting", "", "1", 3, nominated("n1"))},
			preemptor:     pod("p", "", "1", 10),
			wantNode:      "n1",
			wantVictims:   []string{"low"},
			wantCleared:   []string{"waiting"},
		},
		{
			name:          "a higher-priority nominated pod keeps its room",
			nodes:         []*corev1.Node{node("n1", "2"), node("n2", "1")},
			pods:          []*corev1.Pod{pod("n1-low", "n1", "1", 1, started(5)), pod("n1-mid", "n1", "1", 1, started(5)), pod("n2-low", "n2", "1", 1, started(60))},
			nominatedPods: []*corev1.Pod{pod("waiting", "", "1", 50, nominated("n1"))},
			preemptor:     pod("p", "", "2", 10),
			wantMsg:       "preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			client := &fakeClient{}
			nom := &fakeNominator{nodes: map[types.UID]string{}, pods: map[types.UID]*framework.PodInfo{}}
			for _, p := range tc.nominatedPods {
				pi, err := framework.NewPodInfo(p)
				if err != nil {
					t.Fatal(err)
				}
				nom.AddNominatedPod(pi, p.Status.NominatedNodeName)
			}
			args := Args{PodDisruptionBudgets: func() []*policyv1.PodDisruptionBudget { return tc.pdbs }}
			f, err := framework.NewFramework(framework.Config{
				ProfileName: "test",
				Plugins: []framework.PluginSpec{
					{Name: nodeaffinity.Name, New: nodeaffinity.New},
					{Name: noderesources.FitName, New: noderesources.NewFit(noderesources.FitArgs{})},
					{Name: Name, New: New(args)},
					{Name: "Binder", New: func(framework.Handle) (framework.Plugin, error) { return binder{}, nil }},
				},
				Snapshot:  cache.NewSnapshot(tc.pods, tc.nodes),
				Client:    client,
				Nominator: nom,
			})
			if err != nil {
				t.Fatal(err)
			}
			state := framework.NewCycleState()
			if _, st := f.RunPreFilterPlugins(ctx, state, tc.preemptor); !st.IsSuccess() {
				t.Fatalf("prefilter: %v", st)
			}
			statuses := map[string]*framework.Status{}
			for _, n := range f.SnapshotSharedLister().List() {
				st := f.RunFilterPluginsWithNominatedPods(ctx, state, tc.preemptor, n)
				if st.IsSuccess() {
					t.Fatalf("the preemptor fits on %s already", n.Name())
				}
				statuses[n.Name()] = st
			}
			res, st := f.RunPostFilterPlugins(ctx, state, tc.preemptor, statuses)
			if tc.wantMsg != "" {
				if st.Code() != framework.Unschedulable || st.Message() != tc.wantMsg {
					t.Fatalf("status = %v, want Unschedulable %q", st, tc.wantMsg)
				}
				if len(client.deleted) > 0 {
					t.Errorf("deleted %v without nominating", client.deleted)
				}
				return
			}
			if !st.IsSuccess() {
				t.Fatalf("status = %v", st)
			}
			if res == nil || res.NominatedNodeName != tc.wantNode {
				t.Errorf("nominated %+v, want %s", res, tc.wantNode)
			}
			slices.Sort(client.deleted)
			if !slices.Equal(client.deleted, tc.wantVictims) {
				t.Errorf("victims %v, want %v", client.deleted, tc.wantVictims)
			}
			// Each victim is marked DisruptionTarget before its deletion.
			marked := slices.Sorted(maps.Keys(client.disrupted))
			if !slices.Equal(marked, tc.wantVictims) || len(client.markedLate) > 0 {
				t.Errorf("marked DisruptionTarget %v (after deletion: %v), want the victims %v", marked, client.markedLate, tc.wantVictims)
			}
			for name, cond := range client.disrupted {
				if cond.Status != corev1.ConditionTrue || cond.Reason != corev1.PodReasonPreemptionByScheduler ||
					cond.Message != "default-scheduler: preempting to accommodate a higher priority pod" || cond.LastTransitionTime.IsZero() {
					t.Errorf("%s: condition %+v", name, cond)
				}
			}
			if !slices.Equal(client.patched, tc.wantCleared) {
				t.Errorf("cleared nominations %v, want %v", client.patched, tc.wantCleared)
			}
			for _, name := range tc.wantCleared {
				if len(nom.NominatedPodsForNode(tc.wantNode)) > 0 {
					t.Errorf("%s still nominated to %s", name, tc.wantNode)
				}
			}
		})
	}
}

func TestSplitByBudget(t *testing.T) {
	info := func(p *corev1.Pod) *framework.PodInfo {
		pi, _ := framework.NewPodInfo(p)
		return pi
	}
	disrupted := pdb(1, "app", "web")
	disrupted.Status.DisruptedPods = map[string]metav1.Time{"w0": {}}
	other := pdb(0, "app", "web")
	other.Namespace = "elsewhere"
	tests := []struct {
		name          string
		pdbs          []*policyv1.PodDisruptionBudget
		wantViolating []string
	}{
		{name: "no budgets"},
		{name: "one disruption allowed", pdbs: []*policyv1.PodDisruptionBudget{pdb(1, "app", "web")}, wantViolating: []string{"w1", "w2"}},
		{name: "already disrupted pods do not count", pdbs: []*policyv1.PodDisruptionBudget{disrupted}, wantViolating: []string{"w2"}},
		{name: "a budget of another namespace", pdbs: []*policyv1.PodDisruptionBudget{other}},
	}
	pods := []*framework.PodInfo{
		info(pod("w0", "n", "1", 1, labelled("app", "web"))),
		info(pod("w1", "n", "1", 1, labelled("app", "web"))),
		info(pod("x", "n", "1", 1, labelled("app", "other"))),
		info(pod("w2", "n", "1", 1, labelled("app", "web"))),
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl := &DefaultPreemption{args: Args{PodDisruptionBudgets: func() []*policyv1.PodDisruptionBudget { return tc.pdbs }}}
			violating, free := splitByBudget(pods, pl.budgets())
			var names []string
			for _, p := range violating {
				names = append(names, p.Pod.Name)
			}
			if !slices.Equal(names, tc.wantViolating) {
				t.Errorf("violating %v, want %v", names, tc.wantViolating)
			}
			if len(violating)+len(free) != len(pods) {
				t.Errorf("lost pods: %d + %d", len(violating), len(free))
			}
		})
	}
}
