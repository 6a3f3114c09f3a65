package interpodaffinity

import (
	"context"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/labels"

	"kubecore.io/kubecore/pkg/scheduler/framework"
	"kubecore.io/kubecore/pkg/scheduler/internal/schedtest"
)

const zone = "topology.kubernetes.io/zone"

func term(key, value, topology string) corev1.PodAffinityTerm {
	return corev1.PodAffinityTerm{LabelSelector: schedtest.Selector(key, value), TopologyKey: topology}
}

func withAffinity(p *corev1.Pod, aff *corev1.Affinity) *corev1.Pod {
	p.Spec.Affinity = aff
	return p
}

func nodes() []*corev1.Node {
	return []*corev1.Node{
		schedtest.Node("a1", zone, "a", corev1.LabelHostname, "a1"),
		schedtest.Node("a2", zone, "a", corev1.LabelHostname, "a2"),
		schedtest.Node("b1", zone, "b", corev1.LabelHostname, "b1"),
		schedtest.Node("nozone", corev1.LabelHostname, "nozone"),
	}
}

func TestFilter(t *testing.T) {
	db := schedtest.Pod("db", "a1", "app", "db")
	otherNS := schedtest.Pod("db-other", "b1", "app", "db")
	otherNS.Namespace = "other"
	lonely := withAffinity(schedtest.Pod("lonely", "b1", "app", "lonely"), &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term("app", "web", zone)},
	}})
	for _, tc := range []struct {
		name     string
		existing []*corev1.Pod
		pod      *corev1.Pod
		want     map[string]string // node -> reason; absent means fits
	}{
		{"affinity to db's zone", []*corev1.Pod{db},
			withAffinity(schedtest.Pod("web", "", "app", "web"), &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term("app", "db", zone)}}}),
			map[string]string{"b1": ErrReasonAffinityRulesNotMatch, "nozone": ErrReasonAffinityRulesNotMatch}},
		{"affinity ignores other namespaces", []*corev1.Pod{otherNS},
			withAffinity(schedtest.Pod("web", "", "app", "web"), &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term("app", "db", zone)}}}),
			map[string]string{"a1": ErrReasonAffinityRulesNotMatch, "a2": ErrReasonAffinityRulesNotMatch, "b1": ErrReasonAffinityRulesNotMatch, "nozone": ErrReasonAffinityRulesNotMatch}},
		{"affinity with namespaces lists the other namespace", []*corev1.Pod{otherNS},
			withAffinity(schedtest.Pod("web", "", "app", "web"), &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{LabelSelector: schedtest.Selector("app", "db"), TopologyKey: zone, Namespaces: []string{"other"}}}}}),
			map[string]string{"a1": ErrReasonAffinityRulesNotMatch, "a2": ErrReasonAffinityRulesNotMatch, "nozone": ErrReasonAffinityRulesNotMatch}},
		{"affinity with a namespace selector", []*corev1.Pod{otherNS},
			withAffinity(schedtest.Pod("web", "", "app", "web"), &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{LabelSelector: schedtest.Selector("app", "db"), TopologyKey: zone, NamespaceSelector: schedtest.Selector("team", "data")}}}}),
			map[string]string{"a1": ErrReasonAffinityRulesNotMatch, "a2": ErrReasonAffinityRulesNotMatch, "nozone": ErrReasonAffinityRulesNotMatch}},
		{"first pod of a self-selecting group goes anywhere", nil,
			withAffinity(schedtest.Pod("web", "", "app", "web"), &corev1.Affinity{PodAffinity: &corev1.PodAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term("app", "web", zone)}}}),
			map[string]string{}},
		{"anti-affinity per host", []*corev1.Pod{schedtest.Pod("web-0", "a1", "app", "web")},
			withAffinity(schedtest.Pod("web-1", "", "app", "web"), &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term("app", "web", corev1.LabelHostname)}}}),
			map[string]string{"a1": ErrReasonAntiAffinityRulesNotMatch}},
		{"anti-affinity per zone", []*corev1.Pod{schedtest.Pod("web-0", "a1", "app", "web")},
			withAffinity(schedtest.Pod("web-1", "", "app", "web"), &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term("app", "web", zone)}}}),
			map[string]string{"a1": ErrReasonAntiAffinityRulesNotMatch, "a2": ErrReasonAntiAffinityRulesNotMatch}},
		{"symmetry: an existing pod's anti-affinity", []*corev1.Pod{lonely},
			schedtest.Pod("web", "", "app", "web"),
			map[string]string{"b1": ErrReasonExistingAntiAffinityRulesNotMatch}},
		{"symmetry does not apply to unmatched pods", []*corev1.Pod{lonely},
			schedtest.Pod("api", "", "app", "api"),
			map[string]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nsLabels := map[string]labels.Set{"other": {"team": "data"}, "default": {"team": "web"}}
			f, err := schedtest.NewFramework(nodes(), tc.existing, nsLabels, framework.PluginSpec{Name: Name, New: New})
			if err != nil {
				t.Fatal(err)
			}
			got, err := schedtest.FilterAll(context.Background(), f, tc.pod)
			if err != nil {
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

func TestPreemptionExtensions(t *testing.T) {
	existing := schedtest.Pod("web-0", "a1", "app", "web")
	pod := withAffinity(schedtest.Pod("web-1", "", "app", "web"), &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{term("app", "web", corev1.LabelHostname)}}})
	f, err := schedtest.NewFramework(nodes(), []*corev1.Pod{existing}, nil, framework.PluginSpec{Name: Name, New: New})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	state := framework.NewCycleState()
	if _, st := f.RunPreFilterPlugins(ctx, state, pod); !st.IsSuccess() {
		t.Fatal(st)
	}
	a1, _ := f.SnapshotSharedLister().Get("a1")
	if st := f.RunFilterPlugins(ctx, state, pod, a1); st.IsSuccess() {
		t.Fatal("a1 fits with web-0 on it")
	}
	clone := state.Clone()
	ni := a1.Clone()
	ni.RemovePod(existing)
	pi, _ := framework.NewPodInfo(existing)
	if st := f.RunPreFilterExtensionRemovePod(ctx, clone, pod, pi, ni); !st.IsSuccess() {
		t.Fatal(st)
	}
	if st := f.RunFilterPlugins(ctx, clone, pod, ni); !st.IsSuccess() {
		t.Errorf("a1 without web-0: %v", st)
	}
	if st := f.RunFilterPlugins(ctx, state, pod, a1); st.IsSuccess() {
		t.Error("the original state changed")
	}
}

func TestScore(t *testing.T) {
	existing := []*corev1.Pod{
		schedtest.Pod("cache", "a1", "app", "cache"),
		schedtest.Pod("noisy", "b1", "app", "noisy"),
	}
	pod := withAffinity(schedtest.Pod("web", "", "app", "web"), &corev1.Affinity{
		PodAffinity: &corev1.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{
			{Weight: 10, PodAffinityTerm: term("app", "cache", corev1.LabelHostname)},
		}},
		PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{
			{Weight: 10, PodAffinityTerm: term("app", "noisy", zone)},
		}},
	})
	f, err := schedtest.NewFramework(nodes(), existing, nil, framework.PluginSpec{Name: Name, New: New})
	if err != nil {
		t.Fatal(err)
	}
	got, err := schedtest.ScoreAll(context.Background(), f, pod)
	if err != nil {
		t.Fatal(err)
	}
	// Raw: a1 +10, a2 0, b1 -10, nozone 0 → min-max over [-10, 10].
	want := map[string]int64{"a1": 100, "a2": 50, "b1": 0, "nozone": 50}
	for n, s := range want {
		if got[n] != s {
			t.Errorf("%s: %d, want %d", n, got[n], s)
		}
	}

	// Symmetry: an existing pod preferring to be away from web lowers
	// its zone's score for web.
	shy := withAffinity(schedtest.Pod("shy", "a2", "app", "shy"), &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
		PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 5, PodAffinityTerm: term("app", "web", zone)}}}})
	f, _ = schedtest.NewFramework(nodes(), []*corev1.Pod{shy}, nil, framework.PluginSpec{Name: Name, New: New})
	got, err = schedtest.ScoreAll(context.Background(), f, schedtest.Pod("web", "", "app", "web"))
	if err != nil {
		t.Fatal(err)
	}
	if got["a1"] != 0 || got["b1"] != 100 {
		t.Errorf("symmetric scores = %v, want zone a at 0 and b at 100", got)
	}
}
