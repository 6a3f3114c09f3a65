package v1

import (
	"encoding/json"
	"testing"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func TestScaleEncoding(t *testing.T) {
	tests := []struct {
		name string
		in   Scale
		want string
	}{
		{"zero", Scale{}, `{"metadata":{"creationTimestamp":null},"spec":{},"status":{"replicas":0}}`},
		{"scaled deployment", Scale{
			TypeMeta:   metav1.TypeMeta{Kind: "Scale", APIVersion: "autoscaling/v1"},
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", ResourceVersion: "12"},
			Spec:       ScaleSpec{Replicas: 5},
			Status:     ScaleStatus{Replicas: 3, Selector: "app=web"},
		}, `{"kind":"Scale","apiVersion":"autoscaling/v1","metadata":{"name":"web","namespace":"default","resourceVersion":"12","creationTimestamp":null},` +
			`"spec":{"replicas":5},"status":{"replicas":3,"selector":"app=web"}}`},
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
	if gr := Resource("horizontalpodautoscalers"); gr.Group != "autoscaling" || gr.Resource != "horizontalpodautoscalers" {
		t.Errorf("Resource = %+v", gr)
	}
}
