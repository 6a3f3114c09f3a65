package apply

import (
	"encoding/json"
	"reflect"
	"testing"

	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/dynamic"
)

func TestThreeWayMergePatch(t *testing.T) {
	tests := []struct {
		name                        string
		original, modified, current string
		want                        string
	}{
		{name: "unchanged", original: `{"a":1}`, modified: `{"a":1}`, current: `{"a":1,"status":{"x":1}}`, want: `{}`},
		{name: "changed value", original: `{"a":1}`, modified: `{"a":2}`, current: `{"a":1}`, want: `{"a":2}`},
		{name: "live edit reverted", original: `{"a":1}`, modified: `{"a":1}`, current: `{"a":5}`, want: `{"a":1}`},
		{name: "field dropped", original: `{"a":1,"b":2}`, modified: `{"a":1}`, current: `{"a":1,"b":2}`, want: `{"b":null}`},
		{name: "dropped and already gone", original: `{"a":1,"b":2}`, modified: `{"a":1}`, current: `{"a":1}`, want: `{}`},
		{name: "field set by others kept", original: `{}`, modified: `{"a":1}`, current: `{"a":1,"c":3}`, want: `{}`},
		{name: "nested", original: `{"m":{"x":1,"y":2}}`, modified: `{"m":{"x":1,"z":3}}`, current: `{"m":{"x":1,"y":2,"w":0}}`, want: `{"m":{"y":null,"z":3}}`},
		{name: "list replaced", original: `{"l":[1,2]}`, modified: `{"l":[1,3]}`, current: `{"l":[1,2]}`, want: `{"l":[1,3]}`},
		{name: "no original", original: ``, modified: `{"a":{"b":1}}`, current: `{"a":{"c":2}}`, want: `{"a":{"b":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ThreeWayMergePatch([]byte(tt.original), []byte(tt.modified), []byte(tt.current))
			if err != nil {
				t.Fatal(err)
			}
			assertJSON(t, got, tt.want)
		})
	}
}

func TestStrategicPatch(t *testing.T) {
	scheme, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	p := NewPatcher(scheme)
	deploy := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	container := func(name, image string) string {
		return `{"name":"` + name + `","image":"` + image + `"}`
	}
	spec := func(replicas string, containers ...string) string {
		list := "["
		for i, c := range containers {
			if i > 0 {
				list += ","
			}
			list += c
		}
		list += "]"
		return `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":` + replicas + `,"template":{"spec":{"containers":` + list + `}}}}`
	}
	tests := []struct {
		name                        string
		gvk                         schema.GroupVersionKind
		original, modified, current string
		want                        string
		wantType                    types.PatchType
	}{
		{
			name: "unchanged", gvk: deploy,
			original: spec("2", container("a", "nginx")), modified: spec("2", container("a", "nginx")),
			current: spec("2", container("a", "nginx")), want: `{}`, wantType: types.StrategicMergePatchType,
		},
		{
			name: "image of one container by merge key", gvk: deploy,
			original: spec("2", container("a", "nginx"), container("b", "redis")),
			modified: spec("2", container("a", "nginx:2"), container("b", "redis")),
			current:  spec("2", container("a", "nginx"), container("b", "redis")),
			want:     `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"b"}],"containers":[{"image":"nginx:2","name":"a"}]}}}}`,
			wantType: types.StrategicMergePatchType,
		},
		{
			name: "container removed", gvk: deploy,
			original: spec("2", container("a", "nginx"), container("b", "redis")),
			modified: spec("2", container("a", "nginx")),
			current:  spec("2", container("a", "nginx"), container("b", "redis")),
			want:     `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"a"}],"containers":[{"$patch":"delete","name":"b"}]}}}}`,
			wantType: types.StrategicMergePatchType,
		},
		{
			name: "scaled by hand, manifest wins", gvk: deploy,
			original: spec("2", container("a", "nginx")), modified: spec("2", container("a", "nginx")),
			current: spec("5", container("a", "nginx")), want: `{"spec":{"replicas":2}}`, wantType: types.StrategicMergePatchType,
		},
		{
			name: "unknown kind falls back to merge patch", gvk: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"},
			original: `{"spec":{"a":1,"b":2}}`, modified: `{"spec":{"a":1}}`, current: `{"spec":{"a":1,"b":2}}`,
			want: `{"spec":{"b":null}}`, wantType: types.MergePatchType,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, pt, err := p.Patch(tt.gvk, []byte(tt.original), []byte(tt.modified), []byte(tt.current))
			if err != nil {
				t.Fatal(err)
			}
			if pt != tt.wantType {
				t.Errorf("patch type %s, want %s", pt, tt.wantType)
			}
			assertJSON(t, got, tt.want)
		})
	}
}

func TestModifiedConfiguration(t *testing.T) {
	obj := &dynamic.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "c", "annotations": map[string]any{LastAppliedAnnotation: "old", "keep": "me"}},
	}}
	annotated, modified, err := ModifiedConfiguration(obj)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"annotations":{"keep":"me"},"name":"c"}}` + "\n"
	if got := annotated.GetAnnotations()[LastAppliedAnnotation]; got != want {
		t.Errorf("annotation %q, want %q", got, want)
	}
	var back map[string]any
	if err := json.Unmarshal(modified, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, annotated.Object) {
		t.Errorf("modified JSON %s is not the annotated object", modified)
	}
	if obj.GetAnnotations()[LastAppliedAnnotation] != "old" {
		t.Error("the input object was changed")
	}
}

func assertJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("patch %s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("patch %s, want %s", got, want)
	}
}
