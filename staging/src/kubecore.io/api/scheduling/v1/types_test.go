package v1

import (
	"encoding/json"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func TestPriorityClassEncoding(t *testing.T) {
	never := corev1.PreemptNever
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"zero", PriorityClass{}, `{"metadata":{"creationTimestamp":null},"value":0}`},
		{"full", PriorityClass{
			TypeMeta:         metav1.TypeMeta{Kind: "PriorityClass", APIVersion: "scheduling.k8s.io/v1"},
			ObjectMeta:       metav1.ObjectMeta{Name: "batch-low"},
			Value:            -10,
			GlobalDefault:    true,
			Description:      "Batch jobs that yield to everything else.",
			PreemptionPolicy: &never,
		}, `{"kind":"PriorityClass","apiVersion":"scheduling.k8s.io/v1","metadata":{"name":"batch-low","creationTimestamp":null},` +
			`"value":-10,"globalDefault":true,"description":"Batch jobs that yield to everything else.","preemptionPolicy":"Never"}`},
		{"list", PriorityClassList{}, `{"metadata":{},"items":null}`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(tt.in)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if string(got) != tt.want {
			t.Errorf("%s:\n got: %s\nwant: %s", tt.name, got, tt.want)
		}
	}
}

func TestResource(t *testing.T) {
	if gr := Resource("priorityclasses"); gr.Group != "scheduling.k8s.io" || gr.Resource != "priorityclasses" {
		t.Errorf("Resource(priorityclasses) = %+v", gr)
	}
}
