package nodename

import (
	"context"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/scheduler/framework"
)

func TestFilter(t *testing.T) {
	for _, tc := range []struct {
		name, podNode string
		want          framework.Code
	}{
		{"no node name", "", framework.Success},
		{"same node", "n1", framework.Success},
		{"other node", "n2", framework.UnschedulableAndUnresolvable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := framework.NewNodeInfo()
			n.SetNode(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}})
			st := NodeName{}.Filter(context.Background(), nil, &corev1.Pod{Spec: corev1.PodSpec{NodeName: tc.podNode}}, n)
			if st.Code() != tc.want {
				t.Errorf("code = %v, want %v (%v)", st.Code(), tc.want, st)
			}
		})
	}
}
