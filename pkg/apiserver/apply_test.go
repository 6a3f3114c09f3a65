package apiserver

import (
	"reflect"
	"testing"
)

// TestDropPath: the unknown fields strict decoding names are removed from
// an apply configuration under Warn and Ignore, nested in lists too.
func TestDropPath(t *testing.T) {
	for _, tc := range []struct {
		path string
		in   map[string]any
		want map[string]any
	}{
		{"bogus", map[string]any{"bogus": 1, "kind": "X"}, map[string]any{"kind": "X"}},
		{"spec.foo", map[string]any{"spec": map[string]any{"foo": 1, "a": 2}}, map[string]any{"spec": map[string]any{"a": 2}}},
		{"spec.containers[1].x", map[string]any{"spec": map[string]any{"containers": []any{
			map[string]any{"name": "a", "x": 1}, map[string]any{"name": "b", "x": 2},
		}}}, map[string]any{"spec": map[string]any{"containers": []any{
			map[string]any{"name": "a", "x": 1}, map[string]any{"name": "b"},
		}}}},
		{"spec.m[0][1].y", map[string]any{"spec": map[string]any{"m": []any{[]any{map[string]any{}, map[string]any{"y": 1, "z": 2}}}}},
			map[string]any{"spec": map[string]any{"m": []any{[]any{map[string]any{}, map[string]any{"z": 2}}}}}},
		{"spec.containers[5].x", map[string]any{"spec": map[string]any{"containers": []any{}}}, map[string]any{"spec": map[string]any{"containers": []any{}}}},
		{"spec.nothere.x", map[string]any{"spec": map[string]any{}}, map[string]any{"spec": map[string]any{}}},
	} {
		dropPath(tc.in, tc.path)
		if !reflect.DeepEqual(tc.in, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.path, tc.in, tc.want)
		}
	}
}
