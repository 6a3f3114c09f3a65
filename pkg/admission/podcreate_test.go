package admission

import (
	"context"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/registry/rest"
)

func TestPodCreateMutatorHandlesOnlyPodCreates(t *testing.T) {
	var seen []string
	m := PodCreateMutator(func(_ context.Context, pod *corev1.Pod) error {
		seen = append(seen, pod.Name)
		return nil
	})
	pods := corev1.SchemeGroupVersion.WithResource("pods")
	cases := []struct {
		name string
		a    rest.Attributes
		want bool
	}{
		{"pod create", rest.Attributes{Operation: rest.OperationCreate, Resource: pods}, true},
		{"pod update", rest.Attributes{Operation: rest.OperationUpdate, Resource: pods}, false},
		{"pod binding", rest.Attributes{Operation: rest.OperationCreate, Resource: pods, Subresource: "binding"}, false},
		{"configmap create", rest.Attributes{Operation: rest.OperationCreate, Resource: corev1.SchemeGroupVersion.WithResource("configmaps")}, false},
	}
	for _, c := range cases {
		if got := m.Handles(&c.a); got != c.want {
			t.Errorf("%s: Handles = %v, want %v", c.name, got, c.want)
		}
	}
	a := &rest.Attributes{Operation: rest.OperationCreate, Resource: pods, Object: &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}}
	if err := m.Admit(context.Background(), a); err != nil || len(seen) != 1 || seen[0] != "p" {
		t.Fatalf("Admit of a pod: err %v, seen %v", err, seen)
	}
	if err := m.Admit(context.Background(), &rest.Attributes{Object: &corev1.ConfigMap{}}); err != nil || len(seen) != 1 {
		t.Fatalf("Admit of a non-pod: err %v, seen %v", err, seen)
	}
}
