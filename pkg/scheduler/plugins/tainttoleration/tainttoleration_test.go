package tainttoleration

import (
	"context"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/scheduler/framework"
)

func nodeWith(name string, taints ...corev1.Taint) *framework.NodeInfo {
	n := framework.NewNodeInfo()
	n.SetNode(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{Taints: taints}})
	return n
}

func TestFilter(t *testing.T) {
	for _, tc := range []struct {
		name        string
		taints      []corev1.Taint
		tolerations []corev1.Toleration
		wantReason  string
	}{
		{"no taints", nil, nil, ""},
		{"NoSchedule untolerated", []corev1.Taint{{Key: "gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}}, nil, "node(s) had untolerated taint {gpu: true}"},
		{"NoExecute untolerated", []corev1.Taint{{Key: "drain", Effect: corev1.TaintEffectNoExecute}}, nil, "node(s) had untolerated taint {drain: }"},
		{"PreferNoSchedule is not a filter", []corev1.Taint{{Key: "soft", Effect: corev1.TaintEffectPreferNoSchedule}}, nil, ""},
		{"tolerated with Equal", []corev1.Taint{{Key: "gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}},
			[]corev1.Toleration{{Key: "gpu", Operator: corev1.TolerationOpEqual, Value: "true", Effect: corev1.TaintEffectNoSchedule}}, ""},
		{"Equal with another value", []corev1.Taint{{Key: "gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}},
			[]corev1.Toleration{{Key: "gpu", Value: "false"}}, "node(s) had untolerated taint {gpu: true}"},
		{"Exists with no key tolerates all", []corev1.Taint{{Key: "a", Effect: corev1.TaintEffectNoExecute}}, []corev1.Toleration{{Operator: corev1.TolerationOpExists}}, ""},
		{"wrong effect", []corev1.Taint{{Key: "a", Effect: corev1.TaintEffectNoExecute}}, []corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}, "node(s) had untolerated taint {a: }"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: corev1.PodSpec{Tolerations: tc.tolerations}}
			st := TaintToleration{}.Filter(context.Background(), nil, pod, nodeWith("n", tc.taints...))
			if tc.wantReason == "" {
				if !st.IsSuccess() {
					t.Errorf("rejected: %v", st)
				}
				return
			}
			if st.Code() != framework.UnschedulableAndUnresolvable || st.Message() != tc.wantReason {
				t.Errorf("status = %v, want %q", st, tc.wantReason)
			}
		})
	}
}

func TestScore(t *testing.T) {
	soft := func(k string) corev1.Taint { return corev1.Taint{Key: k, Effect: corev1.TaintEffectPreferNoSchedule} }
	nodes := []*framework.NodeInfo{nodeWith("clean"), nodeWith("one", soft("a")), nodeWith("two", soft("a"), soft("b"))}
	for _, tc := range []struct {
		name        string
		tolerations []corev1.Toleration
		want        []int64
	}{
		{"no tolerations", nil, []int64{100, 50, 0}},
		{"tolerates a", []corev1.Toleration{{Key: "a", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectPreferNoSchedule}}, []int64{100, 100, 0}},
		{"tolerates everything", []corev1.Toleration{{Operator: corev1.TolerationOpExists}}, []int64{100, 100, 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: corev1.PodSpec{Tolerations: tc.tolerations}}
			p := TaintToleration{}
			scores := make([]framework.NodeScore, len(nodes))
			for i, n := range nodes {
				s, st := p.Score(context.Background(), nil, pod, n)
				if !st.IsSuccess() {
					t.Fatal(st)
				}
				scores[i] = framework.NodeScore{Name: n.Name(), Score: s}
			}
			p.ScoreExtensions().NormalizeScore(context.Background(), nil, pod, scores)
			for i, s := range scores {
				if s.Score != tc.want[i] {
					t.Errorf("%s: score %d, want %d", s.Name, s.Score, tc.want[i])
				}
			}
		})
	}
}
