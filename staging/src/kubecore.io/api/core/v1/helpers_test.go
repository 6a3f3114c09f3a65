package v1

import (
	"testing"

	"kubecore.io/apimachinery/pkg/runtime/schema"
)

func TestTaintToString(t *testing.T) {
	tests := []struct {
		taint Taint
		want  string
	}{
		{Taint{Key: "k", Value: "v", Effect: TaintEffectNoSchedule}, "k=v:NoSchedule"},
		{Taint{Key: "k", Effect: TaintEffectNoExecute}, "k:NoExecute"},
		{Taint{Key: "k", Value: "v"}, "k=v:"},
		{Taint{Key: "k"}, "k"},
	}
	for _, tt := range tests {
		if got := tt.taint.ToString(); got != tt.want {
			t.Errorf("%+v.ToString() = %q, want %q", tt.taint, got, tt.want)
		}
	}
}

func TestMatchTaint(t *testing.T) {
	a := Taint{Key: "k", Value: "v1", Effect: TaintEffectNoSchedule}
	tests := []struct {
		other Taint
		want  bool
	}{
		{Taint{Key: "k", Value: "v2", Effect: TaintEffectNoSchedule}, true},
		{Taint{Key: "k", Value: "v1", Effect: TaintEffectNoExecute}, false},
		{Taint{Key: "j", Value: "v1", Effect: TaintEffectNoSchedule}, false},
	}
	for _, tt := range tests {
		if got := a.MatchTaint(&tt.other); got != tt.want {
			t.Errorf("MatchTaint(%+v) = %v, want %v", tt.other, got, tt.want)
		}
	}
}

func TestToleratesTaint(t *testing.T) {
	taint := Taint{Key: TaintNodeNotReady, Value: "v", Effect: TaintEffectNoExecute}
	tests := []struct {
		name string
		tol  Toleration
		want bool
	}{
		{"equal key, value and effect", Toleration{Key: TaintNodeNotReady, Operator: TolerationOpEqual, Value: "v", Effect: TaintEffectNoExecute}, true},
		{"empty operator means Equal", Toleration{Key: TaintNodeNotReady, Value: "v"}, true},
		{"different value", Toleration{Key: TaintNodeNotReady, Value: "w"}, false},
		{"exists ignores value", Toleration{Key: TaintNodeNotReady, Operator: TolerationOpExists}, true},
		{"different effect", Toleration{Key: TaintNodeNotReady, Operator: TolerationOpExists, Effect: TaintEffectNoSchedule}, false},
		{"different key", Toleration{Key: TaintNodeUnreachable, Operator: TolerationOpExists}, false},
		{"empty key with exists tolerates all", Toleration{Operator: TolerationOpExists}, true},
		{"unknown operator", Toleration{Key: TaintNodeNotReady, Operator: "Lt", Value: "v"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.tol.ToleratesTaint(&taint); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMatchToleration(t *testing.T) {
	secs := int64(30)
	a := Toleration{Key: "k", Operator: TolerationOpEqual, Value: "v", Effect: TaintEffectNoExecute}
	b := a
	b.TolerationSeconds = &secs
	if !a.MatchToleration(&b) {
		t.Error("tolerationSeconds must not matter")
	}
	b.Value = "w"
	if a.MatchToleration(&b) {
		t.Error("a different value must not match")
	}
}

func TestObjectReferenceKind(t *testing.T) {
	var r ObjectReference
	r.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	if r.APIVersion != "apps/v1" || r.Kind != "Deployment" {
		t.Errorf("got apiVersion %q kind %q", r.APIVersion, r.Kind)
	}
	if got := r.GroupVersionKind(); got != (schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}) {
		t.Errorf("GroupVersionKind() = %v", got)
	}
	r = ObjectReference{APIVersion: "v1", Kind: "Pod"}
	if got := r.GroupVersionKind(); got != (schema.GroupVersionKind{Version: "v1", Kind: "Pod"}) {
		t.Errorf("core GroupVersionKind() = %v", got)
	}
}
