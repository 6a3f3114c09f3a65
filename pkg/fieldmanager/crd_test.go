package fieldmanager

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	apiextv1 "kubecore.io/api/apiextensions/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

var widgetKind = schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}

const widgetSchema = `
type: object
properties:
  spec:
    type: object
    properties:
      replicas: {type: integer}
      items:
        type: array
        x-kubernetes-list-type: map
        x-kubernetes-list-map-keys: [name]
        items:
          type: object
          required: [name]
          properties:
            name: {type: string}
            value: {type: string}
      tags: {type: array, items: {type: string}}
      set: {type: array, x-kubernetes-list-type: set, items: {type: string}}
      selector: {type: object, x-kubernetes-map-type: atomic, additionalProperties: {type: string}}
      labels: {type: object, additionalProperties: {type: string}}
      config: {type: object, x-kubernetes-preserve-unknown-fields: true}
      port: {x-kubernetes-int-or-string: true}
      template: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
  status:
    type: object
    properties:
      phase: {type: string}
`

func widgetManager(t *testing.T, c *clock) *FieldManager {
	t.Helper()
	data, err := yaml.YAMLToJSON([]byte(widgetSchema))
	if err != nil {
		t.Fatal(err)
	}
	var props apiextv1.JSONSchemaProps
	if err := json.Unmarshal(data, &props); err != nil {
		t.Fatal(err)
	}
	tc, err := NewCRDTypeConverter(builtin(t), widgetKind, &props)
	if err != nil {
		t.Fatal(err)
	}
	f, err := New(Options{Kind: widgetKind, TypeConverter: tc, Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func widget(spec string) string {
	return "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: default}\nspec:\n" + spec
}

func specOf(t *testing.T, obj runtime.Object) map[string]any {
	t.Helper()
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		t.Fatalf("object is %T", obj)
	}
	spec, _ := u.Object["spec"].(map[string]any)
	return spec
}

// TestCRDMarkers: a custom kind merges by the markers of its structural
// schema.
func TestCRDMarkers(t *testing.T) {
	c := newClock()
	f := widgetManager(t, c)
	obj := mustApply(t, f, nil, config(t, widget(`
  replicas: 1
  items: [{name: a, value: "1"}]
  tags: [x, w]
  set: [p]
  selector: {app: w}
  labels: {l1: a}
  config: {nested: {one: 1}}
  port: 8080
  template: {apiVersion: v1, kind: Pod, metadata: {name: t, labels: {a: b}}, spec: {anything: [1, 2]}}
`)), "alice", false)

	// bob: disjoint keys of a list map, a set and a granular or deduced map.
	obj = mustApply(t, f, obj, config(t, widget(`
  items: [{name: b, value: "2"}]
  set: [q]
  labels: {l2: b}
  config: {nested: {two: 2}}
`)), "bob", false)
	spec := specOf(t, obj)
	if items := spec["items"].([]any); len(items) != 2 {
		t.Errorf("items = %v", items)
	}
	if set := spec["set"].([]any); len(set) != 2 {
		t.Errorf("set = %v", set)
	}
	if labels := spec["labels"].(map[string]any); len(labels) != 2 {
		t.Errorf("labels = %v", labels)
	}
	if nested := spec["config"].(map[string]any)["nested"].(map[string]any); len(nested) != 2 {
		t.Errorf("config = %v", nested)
	}
}

func TestCRDConflicts(t *testing.T) {
	c := newClock()
	f := widgetManager(t, c)
	obj := mustApply(t, f, nil, config(t, widget(`
  tags: [x, w]
  selector: {app: w}
  port: 8080
  template: {apiVersion: v1, kind: Pod, metadata: {name: t}}
`)), "alice", false)
	cases := []struct{ spec, field string }{
		{"  tags: [z]\n", ".spec.tags"},
		{"  selector: {tier: web}\n", ".spec.selector"},
		{"  port: http\n", ".spec.port"},
		{"  template: {metadata: {name: u}}\n", ".spec.template.metadata.name"},
	}
	for _, tc := range cases {
		_, err := f.Apply(obj, config(t, widget(tc.spec)), "bob", false)
		if err == nil || !strings.HasSuffix(err.Error(), `conflict with "alice": `+tc.field) {
			t.Errorf("%s: err = %v", tc.field, err)
		}
	}
	// Forcing an atomic list replaces it whole.
	out := mustApply(t, f, obj, config(t, widget("  tags: [z]\n")), "bob", true)
	if tags := specOf(t, out)["tags"].([]any); len(tags) != 1 || tags[0] != "z" {
		t.Errorf("tags = %v", tags)
	}
}

func TestCRDUpdateAndUnknownFields(t *testing.T) {
	c := newClock()
	f := widgetManager(t, c)
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(widget("  replicas: 2\n  items: [{name: a}]\n")), &u.Object); err != nil {
		t.Fatal(err)
	}
	out, err := f.Update(nil, u, "controller")
	if err != nil {
		t.Fatal(err)
	}
	if got := entries(t, out)["controller/Update"]; got != `{"f:spec":{".":{},"f:items":{".":{},"k:{\"name\":\"a\"}":{".":{},"f:name":{}}},"f:replicas":{}}}` {
		t.Errorf("fields = %s", got)
	}
	if _, err := f.Apply(out, config(t, widget("  bogus: 1\n")), "x", false); err == nil || !strings.Contains(err.Error(), ".spec.bogus: field not declared in schema") {
		t.Errorf("unknown field: %v", err)
	}
	if _, err := f.Apply(out, config(t, widget("  items: [{value: v}]\n")), "x", false); err == nil || !strings.Contains(err.Error(), `"name"`) {
		t.Errorf("list item without its key: %v", err)
	}
}

func TestCRDSchemaErrors(t *testing.T) {
	bad := []*apiextv1.JSONSchemaProps{
		{Type: "object", Properties: map[string]apiextv1.JSONSchemaProps{"l": {Type: "array", XListType: ptr("map"), Items: &apiextv1.JSONSchemaPropsOrArray{Schema: &apiextv1.JSONSchemaProps{Type: "object"}}}}},
		{Type: "object", Properties: map[string]apiextv1.JSONSchemaProps{"l": {Type: "array", XListType: ptr("bag")}}},
		{Type: "object", Properties: map[string]apiextv1.JSONSchemaProps{"m": {Type: "object", XMapType: ptr("loose")}}},
	}
	for i, props := range bad {
		if _, err := NewCRDTypeConverter(nil, widgetKind, props); err == nil {
			t.Errorf("schema %d accepted", i)
		}
	}
	// No schema at all: everything is deduced, and apply still merges.
	tc, err := NewCRDTypeConverter(nil, widgetKind, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := New(Options{Kind: widgetKind, TypeConverter: tc})
	if err != nil {
		t.Fatal(err)
	}
	obj := mustApply(t, f, nil, config(t, widget("  a: 1\n")), "x", false)
	obj = mustApply(t, f, obj, config(t, widget("  b: 2\n")), "y", false)
	if spec := specOf(t, obj); len(spec) != 2 {
		t.Errorf("spec = %v", spec)
	}
}

// TestUpdateNoErrors: an object the schema cannot read (here a custom
// object stored before its schema changed) keeps live's managedFields.
func TestUpdateNoErrors(t *testing.T) {
	c := newClock()
	f := widgetManager(t, c)
	live := mustApply(t, f, nil, config(t, widget("  replicas: 1\n")), "alice", false).(*unstructured.Unstructured)
	bad := live.DeepCopy()
	bad.Object["spec"].(map[string]any)["replicas"] = "many"
	if _, err := f.Update(live, bad.DeepCopy(), "bob"); err == nil {
		t.Fatal("update of a value of the wrong type succeeded")
	}
	out := f.UpdateNoErrors(live, bad, "bob")
	if got, want := entries(t, out), entries(t, live); !reflect.DeepEqual(got, want) {
		t.Errorf("managedFields = %v, want live's %v", got, want)
	}
}
