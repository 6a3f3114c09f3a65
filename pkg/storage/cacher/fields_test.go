package cacher

import (
	"testing"

	"kubecore.io/apimachinery/pkg/fields"
)

func TestFieldValues(t *testing.T) {
	var names fieldNames
	a := names.compact(fields.Set{"spec.nodeName": "n1", "metadata.name": "a", "status.phase": ""})
	b := names.compact(fields.Set{"status.phase": "Running", "metadata.name": "b", "spec.nodeName": ""})
	if &a.names[0] != &b.names[0] {
		t.Error("two field sets of the same names do not share their name list")
	}
	for _, tc := range []struct {
		f          fieldValues
		name, want string
		has        bool
	}{
		{a, "spec.nodeName", "n1", true},
		{a, "metadata.name", "a", true},
		{a, "status.phase", "", true},
		{b, "status.phase", "Running", true},
		{b, "spec.nodeName", "", true},
		{b, "metadata.namespace", "", false},
	} {
		if got := tc.f.Get(tc.name); got != tc.want {
			t.Errorf("Get(%q) = %q, want %q", tc.name, got, tc.want)
		}
		if got := tc.f.Has(tc.name); got != tc.has {
			t.Errorf("Has(%q) = %v, want %v", tc.name, got, tc.has)
		}
	}
	sel := fields.SelectorFromSet(fields.Set{"spec.nodeName": "n1"})
	if !sel.Matches(a) || sel.Matches(b) {
		t.Errorf("selector %s: matches a %v (want true), b %v (want false)", sel, sel.Matches(a), sel.Matches(b))
	}
	other := names.compact(fields.Set{"metadata.name": "c"})
	if other.Get("metadata.name") != "c" || other.Has("spec.nodeName") {
		t.Errorf("a field set of other names: %+v", other)
	}
}
