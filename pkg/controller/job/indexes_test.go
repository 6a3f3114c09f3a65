package job

import (
	"slices"
	"testing"
)

func TestIndexesRoundTrip(t *testing.T) {
	for in, want := range map[string]string{
		"":            "",
		"0":           "0",
		"0,1":         "0,1",
		"0,1,2":       "0-2",
		"3,1,2,7,5-6": "1-3,5-7",
		"1,3-5,7":     "1,3-5,7",
		"x,2,4-y,9":   "2",   // unparsable parts and 9 >= completions dropped
		"-1,0":        "0",   // negative dropped
		"6-20":        "6-8", // clipped to completions
	} {
		if got := parseIndexes(in, 9).String(); got != want {
			t.Errorf("parseIndexes(%q).String() = %q, want %q", in, got, want)
		}
	}
}

func TestPendingIndexes(t *testing.T) {
	completed := parseIndexes("0,2", 6)
	active := indexSet{1: {}, 4: {}}
	if got := pendingIndexes(6, completed, active, 10); !slices.Equal(got, []int{3, 5}) {
		t.Fatalf("pending = %v, want [3 5]", got)
	}
	if got := pendingIndexes(6, completed, active, 1); !slices.Equal(got, []int{3}) {
		t.Fatalf("pending (1) = %v, want [3]", got)
	}
}
