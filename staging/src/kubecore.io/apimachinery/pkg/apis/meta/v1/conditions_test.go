package v1

import (
	"reflect"
	"testing"
	"time"
)

func TestSetStatusCondition(t *testing.T) {
	t1 := Unix(100, 0)
	t2 := Unix(200, 0)
	tests := []struct {
		name        string
		conditions  []Condition
		toAdd       Condition
		wantChanged bool
		want        []Condition
	}{
		{
			name:        "add with time",
			toAdd:       Condition{Type: "Ready", Status: ConditionTrue, LastTransitionTime: t1, Reason: "R", Message: "m"},
			wantChanged: true,
			want:        []Condition{{Type: "Ready", Status: ConditionTrue, LastTransitionTime: t1, Reason: "R", Message: "m"}},
		},
		{
			name:        "status change moves the time",
			conditions:  []Condition{{Type: "Ready", Status: ConditionFalse, LastTransitionTime: t1, Reason: "R"}, {Type: "Other", Status: ConditionTrue, LastTransitionTime: t1}},
			toAdd:       Condition{Type: "Ready", Status: ConditionTrue, LastTransitionTime: t2, Reason: "R2", Message: "m2", ObservedGeneration: 4},
			wantChanged: true,
			want:        []Condition{{Type: "Ready", Status: ConditionTrue, LastTransitionTime: t2, Reason: "R2", Message: "m2", ObservedGeneration: 4}, {Type: "Other", Status: ConditionTrue, LastTransitionTime: t1}},
		},
		{
			name:        "same status keeps the time",
			conditions:  []Condition{{Type: "Ready", Status: ConditionTrue, LastTransitionTime: t1, Reason: "R"}},
			toAdd:       Condition{Type: "Ready", Status: ConditionTrue, LastTransitionTime: t2, Reason: "R", Message: "new"},
			wantChanged: true,
			want:        []Condition{{Type: "Ready", Status: ConditionTrue, LastTransitionTime: t1, Reason: "R", Message: "new"}},
		},
		{
			name:       "no change",
			conditions: []Condition{{Type: "Ready", Status: ConditionTrue, LastTransitionTime: t1, Reason: "R"}},
			toAdd:      Condition{Type: "Ready", Status: ConditionTrue, LastTransitionTime: t2, Reason: "R"},
			want:       []Condition{{Type: "Ready", Status: ConditionTrue, LastTransitionTime: t1, Reason: "R"}},
		},
	}
	for _, tt := range tests {
		conds := tt.conditions
		if changed := SetStatusCondition(&conds, tt.toAdd); changed != tt.wantChanged {
			t.Errorf("%s: changed = %v, want %v", tt.name, changed, tt.wantChanged)
		}
		if !reflect.DeepEqual(conds, tt.want) {
			t.Errorf("%s: got %+v, want %+v", tt.name, conds, tt.want)
		}
	}
	if SetStatusCondition(nil, Condition{Type: "x"}) {
		t.Error("SetStatusCondition(nil) reported a change")
	}
}

func TestSetStatusConditionDefaultsTime(t *testing.T) {
	before := time.Now().Add(-time.Second)
	var conds []Condition
	SetStatusCondition(&conds, Condition{Type: "Ready", Status: ConditionFalse})
	if conds[0].LastTransitionTime.Time.Before(before) {
		t.Errorf("new condition time %v not defaulted to now", conds[0].LastTransitionTime)
	}
	conds[0].LastTransitionTime = Unix(1, 0)
	SetStatusCondition(&conds, Condition{Type: "Ready", Status: ConditionTrue})
	if conds[0].LastTransitionTime.Time.Before(before) {
		t.Errorf("transition time %v not defaulted to now", conds[0].LastTransitionTime)
	}
}

func TestFindRemoveAndPredicates(t *testing.T) {
	conds := []Condition{
		{Type: "Ready", Status: ConditionTrue},
		{Type: "Progressing", Status: ConditionFalse},
		{Type: "Degraded", Status: ConditionUnknown},
	}
	if c := FindStatusCondition(conds, "Progressing"); c == nil || c != &conds[1] {
		t.Errorf("FindStatusCondition(Progressing) = %v", c)
	}
	if FindStatusCondition(conds, "Missing") != nil {
		t.Error("FindStatusCondition(Missing) != nil")
	}
	checks := []struct {
		name string
		got  bool
		want bool
	}{
		{"Ready true", IsStatusConditionTrue(conds, "Ready"), true},
		{"Progressing true", IsStatusConditionTrue(conds, "Progressing"), false},
		{"Progressing false", IsStatusConditionFalse(conds, "Progressing"), true},
		{"Degraded false", IsStatusConditionFalse(conds, "Degraded"), false},
		{"Degraded unknown", IsStatusConditionPresentAndEqual(conds, "Degraded", ConditionUnknown), true},
		{"Missing true", IsStatusConditionTrue(conds, "Missing"), false},
		{"Missing false", IsStatusConditionFalse(conds, "Missing"), false},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if !RemoveStatusCondition(&conds, "Progressing") {
		t.Error("RemoveStatusCondition(Progressing) = false")
	}
	if RemoveStatusCondition(&conds, "Progressing") {
		t.Error("second RemoveStatusCondition(Progressing) = true")
	}
	want := []Condition{{Type: "Ready", Status: ConditionTrue}, {Type: "Degraded", Status: ConditionUnknown}}
	if !reflect.DeepEqual(conds, want) {
		t.Errorf("after remove: %+v", conds)
	}
	if RemoveStatusCondition(nil, "x") {
		t.Error("RemoveStatusCondition(nil) = true")
	}
}
