package podtopologyspread

import (
	"context"
	"testing"

	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/scheduler/framework"
	"kubecore.io/kubecore/pkg/scheduler/internal/schedtest"
)

const zone = "topology.kubernetes.io/zone"

func spread(p *corev1.Pod, cs ...corev1.TopologySpreadConstraint) *corev1.Pod {
	p.Spec.TopologySpreadConstraints = cs
	return p
}

func tsc(key string, maxSkew int32, when corev1.UnsatisfiableConstraintAction) corev1.TopologySpreadConstraint {
	return corev1.TopologySpreadConstraint{MaxSkew: maxSkew, TopologyKey: key, WhenUnsatisfiable: when, LabelSelector: schedtest.Selector("app", "web")}
}

func nodes() []*corev1.Node {
	return []*corev1.Node{
		schedtest.Node("a1", zone, "a"),
		schedtest.Node("a2", zone, "a"),
		schedtest.Node("b1", zone, "b"),
		schedtest.Node("c1", zone, "c", "pool", "spare"),
		schedtest.Node("nozone"),
	}
}

func TestFilter(t *testing.T) {
	web := func(name, node string) *corev1.Pod { return schedtest.Pod(name, node, "app", "web") }
	three := int32(3)
	four := int32(4)
	for _, tc := range []struct {
		name     string
		existing []*corev1.Pod
		pod      *corev1.Pod
		want     map[string]string
	}{
		{"even zones accept any", nil, spread(web("p", ""), tsc(zone, 1, corev1.DoNotSchedule)),
			map[string]string{"nozone": ErrReasonNodeLabelNotMatch}},
		{"skew 1: only the empty zones", []*corev1.Pod{web("w0", "a1")}, spread(web("p", ""), tsc(zone, 1, corev1.DoNotSchedule)),
			map[string]string{"a1": ErrReasonConstraintsNotMatch, "a2": ErrReasonConstraintsNotMatch, "nozone": ErrReasonNodeLabelNotMatch}},
		{"skew 2 allows one more", []*corev1.Pod{web("w0", "a1")}, spread(web("p", ""), tsc(zone, 2, corev1.DoNotSchedule)),
			map[string]string{"nozone": ErrReasonNodeLabelNotMatch}},
		{"other labels do not count", []*corev1.Pod{schedtest.Pod("x", "a1", "app", "db")}, spread(web("p", ""), tsc(zone, 1, corev1.DoNotSchedule)),
			map[string]string{"nozone": ErrReasonNodeLabelNotMatch}},
		{"ScheduleAnyway does not filter", []*corev1.Pod{web("w0", "a1"), web("w1", "a2")}, spread(web("p", ""), tsc(zone, 1, corev1.ScheduleAnyway)),
			map[string]string{}},
		{"node affinity limits the domains", []*corev1.Pod{web("w0", "b1")},
			func() *corev1.Pod {
				p := spread(web("p", ""), tsc(zone, 1, corev1.DoNotSchedule))
				p.Spec.NodeSelector = map[string]string{zone: "b"}
				return p
			}(),
			// Only zone b counts: 1 + 1 - 1 = 1 <= 1.
			map[string]string{"nozone": ErrReasonNodeLabelNotMatch}},
		{"minDomains above the domains makes the minimum 0", []*corev1.Pod{web("w0", "a1"), web("w1", "b1"), web("w2", "c1")},
			spread(web("p", ""), func() corev1.TopologySpreadConstraint {
				c := tsc(zone, 1, corev1.DoNotSchedule)
				c.MinDomains = &four
				return c
			}()),
			map[string]string{"a1": ErrReasonConstraintsNotMatch, "a2": ErrReasonConstraintsNotMatch, "b1": ErrReasonConstraintsNotMatch, "c1": ErrReasonConstraintsNotMatch, "nozone": ErrReasonNodeLabelNotMatch}},
		{"minDomains met", []*corev1.Pod{web("w0", "a1"), web("w1", "b1"), web("w2", "c1")},
			spread(web("p", ""), func() corev1.TopologySpreadConstraint {
				c := tsc(zone, 1, corev1.DoNotSchedule)
				c.MinDomains = &three
				return c
			}()),
			map[string]string{"nozone": ErrReasonNodeLabelNotMatch}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := schedtest.NewFramework(nodes(), tc.existing, nil, framework.PluginSpec{Name: Name, New: New})
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]*framework.Status
			if len(tc.pod.Spec.TopologySpreadConstraints) > 0 && tc.pod.Spec.TopologySpreadConstraints[0].WhenUnsatisfiable == corev1.ScheduleAnyway {
				got = map[string]*framework.Status{}
			} else if got, err = schedtest.FilterAll(context.Background(), f, tc.pod); err != nil {
				t.Fatal(err)
			}
			for node, st := range got {
				want, rejected := tc.want[node]
				if rejected != !st.IsSuccess() || (rejected && st.Message() != want) {
					t.Errorf("node %s: %v, want %q", node, st, want)
				}
			}
		})
	}
}

func TestSkipWithoutConstraints(t *testing.T) {
	f, _ := schedtest.NewFramework(nodes(), nil, nil, framework.PluginSpec{Name: Name, New: New})
	p, _ := New(f)
	_, st := p.(*PodTopologySpread).PreFilter(context.Background(), framework.NewCycleState(), schedtest.Pod("p", ""))
	if !st.IsSkip() {
		t.Errorf("PreFilter = %v, want Skip", st)
	}
}

func TestScore(t *testing.T) {
	existing := []*corev1.Pod{
		schedtest.Pod("w0", "a1", "app", "web"),
		schedtest.Pod("w1", "a2", "app", "web"),
		schedtest.Pod("w2", "b1", "app", "web"),
	}
	f, err := schedtest.NewFramework(nodes(), existing, nil, framework.PluginSpec{Name: Name, New: New})
	if err != nil {
		t.Fatal(err)
	}
	got, err := schedtest.ScoreAll(context.Background(), f, spread(schedtest.Pod("p", "", "app", "web"), tsc(zone, 1, corev1.ScheduleAnyway)))
	if err != nil {
		t.Fatal(err)
	}
	// Zone a has 2, b 1, c 0: the emptier the zone, the higher the score.
	if !(got["c1"] > got["b1"] && got["b1"] > got["a1"] && got["a1"] == got["a2"]) {
		t.Errorf("scores = %v, want c1 > b1 > a1 = a2", got)
	}
	if got["c1"] != 100 || got["nozone"] != 0 {
		t.Errorf("scores = %v, want c1 100 and nozone 0", got)
	}
}
