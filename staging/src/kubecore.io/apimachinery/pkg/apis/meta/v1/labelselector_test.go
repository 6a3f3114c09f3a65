package v1

import (
	"maps"
	"reflect"
	"testing"

	"kubecore.io/apimachinery/pkg/labels"
)

func TestLabelSelectorAsSelector(t *testing.T) {
	tests := []struct {
		name string
		in   *LabelSelector
		want string // String() of the selector
		err  string
	}{
		{name: "nil selects nothing", in: nil, want: ""},
		{name: "empty selects everything", in: &LabelSelector{}, want: ""},
		{name: "match labels", in: &LabelSelector{MatchLabels: map[string]string{"b": "2", "a": "1"}}, want: "a=1,b=2"},
		{name: "expressions", in: &LabelSelector{
			MatchLabels: map[string]string{"app": "web"},
			MatchExpressions: []LabelSelectorRequirement{
				{Key: "tier", Operator: LabelSelectorOpIn, Values: []string{"front", "back"}},
				{Key: "env", Operator: LabelSelectorOpNotIn, Values: []string{"dev"}},
				{Key: "canary", Operator: LabelSelectorOpDoesNotExist},
				{Key: "zone", Operator: LabelSelectorOpExists},
			},
		}, want: "app=web,!canary,env notin (dev),tier in (back,front),zone"},
		{name: "bad operator", in: &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "a", Operator: "Like"}}},
			err: `"Like" is not a valid label selector operator`},
		{name: "in without values", in: &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "a", Operator: LabelSelectorOpIn}}},
			err: "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty"},
		{name: "exists with values", in: &LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "a", Operator: LabelSelectorOpExists, Values: []string{"x"}}}},
			err: `values: Invalid value: ["x"]: values set must be empty for exists and does not exist`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sel, err := LabelSelectorAsSelector(tc.in)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error = %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if sel.String() != tc.want {
				t.Errorf("String() = %q, want %q", sel.String(), tc.want)
			}
		})
	}
	nothing, _ := LabelSelectorAsSelector(nil)
	everything, _ := LabelSelectorAsSelector(&LabelSelector{})
	if nothing.Matches(labels.Set{}) || !everything.Matches(labels.Set{"a": "b"}) {
		t.Error("nil must match nothing and empty everything")
	}
}

func TestFormatLabelSelector(t *testing.T) {
	tests := []struct {
		in   *LabelSelector
		want string
	}{
		{nil, "<none>"},
		{&LabelSelector{}, "<none>"},
		{&LabelSelector{MatchLabels: map[string]string{"app": "nginx"}}, "app=nginx"},
		{&LabelSelector{MatchExpressions: []LabelSelectorRequirement{{Key: "a", Operator: "Bad"}}}, "<error>"},
		{&LabelSelector{MatchLabels: map[string]string{"-": "x"}}, "<error>"},
	}
	for _, tc := range tests {
		if got := FormatLabelSelector(tc.in); got != tc.want {
			t.Errorf("FormatLabelSelector(%+v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseToLabelSelector(t *testing.T) {
	got, err := ParseToLabelSelector("app=web,tier in (front,back),!canary,zone,env notin (dev),x==y")
	if err != nil {
		t.Fatal(err)
	}
	want := &LabelSelector{
		MatchLabels: map[string]string{"app": "web", "x": "y"},
		MatchExpressions: []LabelSelectorRequirement{
			{Key: "canary", Operator: LabelSelectorOpDoesNotExist},
			{Key: "env", Operator: LabelSelectorOpNotIn, Values: []string{"dev"}},
			{Key: "tier", Operator: LabelSelectorOpIn, Values: []string{"back", "front"}},
			{Key: "zone", Operator: LabelSelectorOpExists},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseToLabelSelector =\n %+v\nwant\n %+v", got, want)
	}
	back, err := LabelSelectorAsSelector(got)
	if err != nil || back.String() != "app=web,!canary,env notin (dev),tier in (back,front),x=y,zone" {
		t.Errorf("round trip = %v, %v", back, err)
	}
	for in, wantErr := range map[string]string{
		"a!=b":   `"!=" is not a valid label selector operator`,
		"a>1":    `"gt" isn't supported in label selectors`,
		"a in (": `couldn't parse the selector string "a in (": unable to parse requirement: found '', expected: ',', ')' or identifier`,
	} {
		if _, err := ParseToLabelSelector(in); err == nil || err.Error() != wantErr {
			t.Errorf("ParseToLabelSelector(%q) error = %v, want %s", in, err, wantErr)
		}
	}
}

func TestLabelSelectorAsMap(t *testing.T) {
	m, err := LabelSelectorAsMap(&LabelSelector{
		MatchLabels:      map[string]string{"a": "1"},
		MatchExpressions: []LabelSelectorRequirement{{Key: "b", Operator: LabelSelectorOpIn, Values: []string{"2"}}},
	})
	if err != nil || !maps.Equal(m, map[string]string{"a": "1", "b": "2"}) {
		t.Errorf("LabelSelectorAsMap = %v, %v", m, err)
	}
	if m, err := LabelSelectorAsMap(nil); m != nil || err != nil {
		t.Errorf("nil selector = %v, %v", m, err)
	}
	for _, expr := range []LabelSelectorRequirement{
		{Key: "b", Operator: LabelSelectorOpIn, Values: []string{"1", "2"}},
		{Key: "b", Operator: LabelSelectorOpExists},
		{Key: "b", Operator: "Odd"},
	} {
		if _, err := LabelSelectorAsMap(&LabelSelector{MatchExpressions: []LabelSelectorRequirement{expr}}); err == nil {
			t.Errorf("LabelSelectorAsMap accepted %+v", expr)
		}
	}
	ls := labels.Set{"a": "1"}
	sel := SetAsLabelSelector(ls)
	ls["a"] = "changed"
	if sel.MatchLabels["a"] != "1" || SetAsLabelSelector(nil) != nil {
		t.Errorf("SetAsLabelSelector = %+v", sel)
	}
}
