package nodeunschedulable

import (
	"context"
	"testing"

	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/scheduler/framework"
)

func TestFilter(t *testing.T) {
	tolerating := []corev1.Toleration{{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	for _, tc := range []struct {
		name          string
		unschedulable bool
		tolerations   []corev1.Toleration
		want          framework.Code
	}{
		{"schedulable node", false, nil, framework.Success},
		{"cordoned node", true, nil, framework.UnschedulableAndUnresolvable},
		{"cordoned node, tolerated", true, tolerating, framework.Success},
		{"cordoned node, other toleration", true, []corev1.Toleration{{Key: "x", Operator: corev1.TolerationOpExists}}, framework.UnschedulableAndUnresolvable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := framework.NewNodeInfo()
			n.SetNode(&corev1.Node{Spec: corev1.NodeSpec{Unschedulable: tc.unschedulable}})
			pod := &corev1.Pod{Spec: corev1.PodSpec{Tolerations: tc.tolerations}}
			st := NodeUnschedulable{}.Filter(context.Background(), framework.NewCycleState(), pod, n)
			if st.Code() != tc.want {
				t.Fatalf("code = %v, want %v", st.Code(), tc.want)
			}
			if tc.want != framework.Success && st.Message() != ErrReason {
				t.Errorf("reason = %q", st.Message())
			}
		})
	}
}
