package v1

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func TestEncoding(t *testing.T) {
	grace := int64(0)
	evicted := metav1.NewTime(time.Date(2025, 3, 14, 10, 0, 0, 0, time.UTC))
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"Eviction zero", Eviction{}, `{"metadata":{"creationTimestamp":null}}`},
		{"Eviction as kubectl drain sends it", Eviction{
			TypeMeta:      metav1.TypeMeta{Kind: "Eviction", APIVersion: "policy/v1"},
			ObjectMeta:    metav1.ObjectMeta{Name: "web-0", Namespace: "shop"},
			DeleteOptions: &metav1.DeleteOptions{GracePeriodSeconds: &grace},
		}, `{"kind":"Eviction","apiVersion":"policy/v1","metadata":{"name":"web-0","namespace":"shop","creationTimestamp":null},` +
			`"deleteOptions":{"gracePeriodSeconds":0}}`},
		{"PodDisruptionBudget zero", PodDisruptionBudget{},
			`{"metadata":{"creationTimestamp":null},"spec":{},"status":{"disruptionsAllowed":0,"currentHealthy":0,"desiredHealthy":0,"expectedPods":0}}`},
		{"PodDisruptionBudgetStatus", PodDisruptionBudgetStatus{
			ObservedGeneration: 2,
			DisruptedPods:      map[string]metav1.Time{"web-1": evicted},
			DisruptionsAllowed: 1, CurrentHealthy: 3, DesiredHealthy: 2, ExpectedPods: 3,
		}, `{"observedGeneration":2,"disruptedPods":{"web-1":"2025-03-14T10:00:00Z"},"disruptionsAllowed":1,"currentHealthy":3,"desiredHealthy":2,"expectedPods":3}`},
		{"PodDisruptionBudgetList", PodDisruptionBudgetList{}, `{"metadata":{},"items":null}`},
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

func TestPatchTags(t *testing.T) {
	typ := reflect.TypeOf(PodDisruptionBudgetSpec{})
	f, _ := typ.FieldByName("Selector")
	if got := f.Tag.Get("patchStrategy"); got != "replace" {
		t.Errorf("spec.selector patchStrategy = %q, want replace", got)
	}
	typ = reflect.TypeOf(PodDisruptionBudgetStatus{})
	f, _ = typ.FieldByName("Conditions")
	if f.Tag.Get("patchStrategy") != "merge" || f.Tag.Get("patchMergeKey") != "type" {
		t.Errorf("status.conditions tags = %q", f.Tag)
	}
}

func TestResource(t *testing.T) {
	if gr := Resource("poddisruptionbudgets"); gr.Group != "policy" || gr.Resource != "poddisruptionbudgets" {
		t.Errorf("Resource = %+v", gr)
	}
}
