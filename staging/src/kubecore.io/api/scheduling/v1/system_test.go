package v1

import (
	"strings"
	"testing"
)

func TestSystemPriorityClasses(t *testing.T) {
	got := SystemPriorityClasses()
	want := map[string]int32{
		"system-node-critical":    2000001000,
		"system-cluster-critical": 2000000000,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d classes, want %d", len(got), len(want))
	}
	for _, pc := range got {
		v, ok := want[pc.Name]
		if !ok {
			t.Errorf("unexpected class %q", pc.Name)
			continue
		}
		if pc.Value != v {
			t.Errorf("%s value = %d, want %d", pc.Name, pc.Value, v)
		}
		if pc.GlobalDefault || pc.Description == "" || !strings.HasPrefix(pc.Name, SystemPriorityClassPrefix) {
			t.Errorf("%s: globalDefault %v, description %q", pc.Name, pc.GlobalDefault, pc.Description)
		}
		if pc.Value <= HighestUserDefinablePriority {
			t.Errorf("%s value %d is in the user range", pc.Name, pc.Value)
		}
	}

	// Each call returns fresh objects: changing one must not leak.
	got[0].Value = 1
	if again := SystemPriorityClasses(); again[0].Value == 1 {
		t.Error("SystemPriorityClasses returned shared objects")
	}
}

func TestIsKnownSystemPriorityClass(t *testing.T) {
	tests := []struct {
		name          string
		value         int32
		globalDefault bool
		want          bool
		err           string
	}{
		{SystemClusterCritical, SystemCriticalPriority, false, true, ""},
		{SystemNodeCritical, SystemCriticalPriority + 1000, false, true, ""},
		{SystemNodeCritical, SystemCriticalPriority, false, false, "value of system-node-critical PriorityClass must be 2000001000"},
		{SystemClusterCritical, SystemCriticalPriority, true, false, "globalDefault of system-cluster-critical PriorityClass must be false"},
		{"system-custom", 5, false, false, "system-custom is not a known system priority class"},
		{"high", 1000, false, false, "high is not a known system priority class"},
	}
	for _, tt := range tests {
		got, err := IsKnownSystemPriorityClass(tt.name, tt.value, tt.globalDefault)
		if got != tt.want {
			t.Errorf("IsKnownSystemPriorityClass(%q, %d, %v) = %v, want %v", tt.name, tt.value, tt.globalDefault, got, tt.want)
		}
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%s: unexpected error %v", tt.name, err)
		case tt.err != "" && (err == nil || err.Error() != tt.err):
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
		}
	}
}
