package taintnodesbycondition

import (
	"context"
	"testing"

	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/registry/rest"
)

func TestAdmitTaintsNewNodesOnce(t *testing.T) {
	nodes := corev1.SchemeGroupVersion.WithResource("nodes")
	fresh := &corev1.Node{Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "dedicated", Effect: corev1.TaintEffectNoSchedule}}}}
	a := &rest.Attributes{Operation: rest.OperationCreate, Resource: nodes, Object: fresh}
	if !(Plugin{}).Handles(a) {
		t.Fatal("node create not handled")
	}
	for range 2 {
		if err := (Plugin{}).Admit(context.Background(), a); err != nil {
			t.Fatal(err)
		}
	}
	want := []corev1.Taint{{Key: "dedicated", Effect: corev1.TaintEffectNoSchedule}, {Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}}
	if len(fresh.Spec.Taints) != 2 || fresh.Spec.Taints[0] != want[0] || fresh.Spec.Taints[1] != want[1] {
		t.Errorf("taints %+v, want %+v", fresh.Spec.Taints, want)
	}
	if (Plugin{}).Handles(&rest.Attributes{Operation: rest.OperationUpdate, Resource: nodes}) {
		t.Error("handles node updates")
	}
}
