package nodeaffinity

import (
	"context"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/scheduler/framework"
)

func nodeInfo(name string, labels map[string]string) *framework.NodeInfo {
	n := framework.NewNodeInfo()
	n.SetNode(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}})
	return n
}

func required(terms ...corev1.NodeSelectorTerm) *corev1.Affinity {
	return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: terms}}}
}

func expr(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorTerm {
	return corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}}
}

func TestFilter(t *testing.T) {
	labels := map[string]string{"zone": "a", "gen": "5"}
	for _, tc := range []struct {
		name     string
		selector map[string]string
		affinity *corev1.Affinity
		want     framework.Code
	}{
		{"nothing asked", nil, nil, framework.Skip},
		{"selector matches", map[string]string{"zone": "a"}, nil, framework.Success},
		{"selector does not match", map[string]string{"zone": "b"}, nil, framework.UnschedulableAndUnresolvable},
		{"In", nil, required(expr("zone", corev1.NodeSelectorOpIn, "a", "b")), framework.Success},
		{"NotIn", nil, required(expr("zone", corev1.NodeSelectorOpNotIn, "a")), framework.UnschedulableAndUnresolvable},
		{"Exists", nil, required(expr("gen", corev1.NodeSelectorOpExists)), framework.Success},
		{"DoesNotExist", nil, required(expr("gen", corev1.NodeSelectorOpDoesNotExist)), framework.UnschedulableAndUnresolvable},
		{"Gt", nil, required(expr("gen", corev1.NodeSelectorOpGt, "4")), framework.Success},
		{"Lt", nil, required(expr("gen", corev1.NodeSelectorOpLt, "4")), framework.UnschedulableAndUnresolvable},
		{"terms are ORed", nil, required(expr("zone", corev1.NodeSelectorOpIn, "x"), expr("zone", corev1.NodeSelectorOpIn, "a")), framework.Success},
		{"empty term matches nothing", nil, required(corev1.NodeSelectorTerm{}), framework.UnschedulableAndUnresolvable},
		{"matchFields name", nil, required(corev1.NodeSelectorTerm{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"n1"}}}}), framework.Success},
		{"selector and affinity both apply", map[string]string{"zone": "b"}, required(expr("zone", corev1.NodeSelectorOpIn, "a")), framework.UnschedulableAndUnresolvable},
		{"bad operator is an error", nil, required(expr("zone", "Near", "a")), framework.Error},
		{"Gt with a word is an error", nil, required(expr("gen", corev1.NodeSelectorOpGt, "five")), framework.Error},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: corev1.PodSpec{NodeSelector: tc.selector, Affinity: tc.affinity}}
			state := framework.NewCycleState()
			_, st := NodeAffinity{}.PreFilter(context.Background(), state, pod)
			if !st.IsSuccess() {
				if st.Code() != tc.want {
					t.Fatalf("PreFilter = %v, want %v", st, tc.want)
				}
				return
			}
			st = NodeAffinity{}.Filter(context.Background(), state, pod, nodeInfo("n1", labels))
			if st.Code() != tc.want {
				t.Fatalf("Filter = %v, want %v", st, tc.want)
			}
			if st.Code() == framework.UnschedulableAndUnresolvable && st.Message() != ErrReasonPod {
				t.Errorf("reason = %q", st.Message())
			}
		})
	}
}

func TestScore(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{
			{Weight: 2, Preference: expr("zone", corev1.NodeSelectorOpIn, "a")},
			{Weight: 6, Preference: expr("ssd", corev1.NodeSelectorOpExists)},
		},
	}}}}
	nodes := []*framework.NodeInfo{
		nodeInfo("zone-a", map[string]string{"zone": "a"}),
		nodeInfo("ssd", map[string]string{"ssd": "1"}),
		nodeInfo("both", map[string]string{"zone": "a", "ssd": "1"}),
		nodeInfo("none", nil),
	}
	state := framework.NewCycleState()
	p := NodeAffinity{}
	if st := p.PreScore(context.Background(), state, pod, nodes); !st.IsSuccess() {
		t.Fatal(st)
	}
	scores := make([]framework.NodeScore, len(nodes))
	for i, n := range nodes {
		s, st := p.Score(context.Background(), state, pod, n)
		if !st.IsSuccess() {
			t.Fatal(st)
		}
		scores[i] = framework.NodeScore{Name: n.Name(), Score: s}
	}
	p.ScoreExtensions().NormalizeScore(context.Background(), state, pod, scores)
	want := []int64{25, 75, 100, 0}
	for i, s := range scores {
		if s.Score != want[i] {
			t.Errorf("%s: %d, want %d", s.Name, s.Score, want[i])
		}
	}
	if st := p.PreScore(context.Background(), framework.NewCycleState(), &corev1.Pod{}, nodes); !st.IsSkip() {
		t.Errorf("a pod without preferences: PreScore = %v, want Skip", st)
	}
}
