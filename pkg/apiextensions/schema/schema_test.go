package schema

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "kubecore.io/api/apiextensions/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// props decodes a JSON schema.
func props(t *testing.T, js string) *apiextensionsv1.JSONSchemaProps {
	t.Helper()
	var p apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal([]byte(js), &p); err != nil {
		t.Fatalf("decode schema: %v", err)
	}
	return &p
}

func structural(t *testing.T, js string) *Structural {
	t.Helper()
	s, errs := NewStructural(props(t, js), field.NewPath("schema"))
	if len(errs) > 0 {
		t.Fatalf("schema is not structural: %v", errs)
	}
	return s
}

func object(t *testing.T, js string) map[string]any {
	t.Helper()
	m, err := unstructured.DecodeJSONObject([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func fieldsOf(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Field)
	}
	return out
}

func TestNewStructural(t *testing.T) {
	cases := []struct {
		name, schema string
		want         []string // error fields; none means structural
	}{
		{"ok", `{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"string","default":"x"}}}}}`, nil},
		{"root not object", `{"type":"string"}`, []string{"schema.type"}},
		{"missing type", `{"type":"object","properties":{"a":{"description":"no type"}}}`, []string{"schema.properties[a].type"}},
		{"unknown type", `{"type":"object","properties":{"a":{"type":"date"}}}`, []string{"schema.properties[a].type"}},
		{"preserve without type", `{"type":"object","properties":{"a":{"x-kubernetes-preserve-unknown-fields":true}}}`, nil},
		{"int-or-string", `{"type":"object","properties":{"a":{"x-kubernetes-int-or-string":true}}}`, nil},
		{"int-or-string typed", `{"type":"object","properties":{"a":{"type":"string","x-kubernetes-int-or-string":true}}}`, []string{"schema.properties[a].type"}},
		{"array without items", `{"type":"object","properties":{"a":{"type":"array"}}}`, []string{"schema.properties[a].items"}},
		{"items array", `{"type":"object","properties":{"a":{"type":"array","items":[{"type":"string"}]}}}`, []string{"schema.properties[a].items"}},
		{"type in allOf", `{"type":"object","properties":{"a":{"type":"string","allOf":[{"type":"string"}]}}}`, []string{"schema.properties[a].allOf[0].type"}},
		{"default in not", `{"type":"object","properties":{"a":{"type":"string","not":{"default":"x"}}}}`, []string{"schema.properties[a].not.default"}},
		{"properties and additionalProperties", `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}},"additionalProperties":{"type":"string"}}}}`, []string{"schema.properties[a].additionalProperties"}},
		{"ref", `{"type":"object","properties":{"a":{"$ref":"#/x","type":"string"}}}`, []string{"schema.properties[a].$ref"}},
		{"bad pattern", `{"type":"object","properties":{"a":{"type":"string","pattern":"("}}}`, []string{"schema.properties[a].pattern"}},
		{"default of the wrong type", `{"type":"object","properties":{"a":{"type":"integer","default":"one"}}}`, []string{"schema.properties[a].default"}},
		{"default out of range", `{"type":"object","properties":{"a":{"type":"integer","maximum":3,"default":4}}}`, []string{"schema.properties[a].default"}},
		{"default with unknown fields", `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}},"default":{"c":1}}}}`, []string{"schema.properties[a].default"}},
		{"metadata beyond name", `{"type":"object","properties":{"metadata":{"type":"object","properties":{"labels":{"type":"object"}}}}}`, []string{"schema.properties[metadata].properties[labels]"}},
		{"embedded not object", `{"type":"object","properties":{"a":{"type":"string","x-kubernetes-embedded-resource":true}}}`, []string{"schema.properties[a].type"}},
	}
	for _, c := range cases {
		_, errs := NewStructural(props(t, c.schema), field.NewPath("schema"))
		got := fieldsOf(errs)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: errors %v lack %s", c.name, errs, w)
			}
		}
		if len(c.want) == 0 && len(errs) > 0 {
			t.Errorf("%s: unexpected errors %v", c.name, errs)
		}
	}
}

const crontabSchema = `{"type":"object","properties":{
  "metadata":{"type":"object","properties":{"name":{"type":"string","maxLength":8}}},
  "spec":{"type":"object","required":["cronSpec"],"properties":{
    "cronSpec":{"type":"string","pattern":"^\\S+ \\S+$"},
    "replicas":{"type":"integer","minimum":1,"maximum":5,"default":1},
    "ratio":{"type":"number","exclusiveMaximum":true,"maximum":1},
    "mode":{"type":"string","enum":["A","B"]},
    "tags":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string","minLength":2}},
    "labels":{"type":"object","additionalProperties":{"type":"string"},"maxProperties":1},
    "port":{"x-kubernetes-int-or-string":true},
    "either":{"type":"string","anyOf":[{"pattern":"^a"},{"pattern":"^b"}]},
    "one":{"type":"integer","oneOf":[{"minimum":0},{"maximum":10}]},
    "nullable":{"type":"string","nullable":true},
    "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"known":{"type":"integer"}}},
    "pod":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}
  }}
}}`

func TestValidate(t *testing.T) {
	s := structural(t, crontabSchema)
	cases := []struct {
		name, obj string
		want      []string
	}{
		{"valid", `{"metadata":{"name":"ok"},"spec":{"cronSpec":"a b","replicas":3,"ratio":0.5,"mode":"A","tags":["ab"],"labels":{"x":"y"},"port":80,"either":"bee","one":20,"nullable":null,"free":{"x":[1]},"pod":{"apiVersion":"v1","kind":"Pod"}}}`, nil},
		{"required", `{"spec":{}}`, []string{"spec.cronSpec"}},
		{"pattern", `{"spec":{"cronSpec":"ab"}}`, []string{"spec.cronSpec"}},
		{"type", `{"spec":{"cronSpec":"a b","replicas":"2"}}`, []string{"spec.replicas"}},
		{"integer is not a fraction", `{"spec":{"cronSpec":"a b","replicas":2.5}}`, []string{"spec.replicas"}},
		{"minimum", `{"spec":{"cronSpec":"a b","replicas":0}}`, []string{"spec.replicas"}},
		{"exclusive maximum", `{"spec":{"cronSpec":"a b","ratio":1}}`, []string{"spec.ratio"}},
		{"enum", `{"spec":{"cronSpec":"a b","mode":"C"}}`, []string{"spec.mode"}},
		{"minItems", `{"spec":{"cronSpec":"a b","tags":[]}}`, []string{"spec.tags"}},
		{"maxItems", `{"spec":{"cronSpec":"a b","tags":["aa","bb","cc"]}}`, []string{"spec.tags"}},
		{"item minLength", `{"spec":{"cronSpec":"a b","tags":["aa","b"]}}`, []string{"spec.tags[1]"}},
		{"additionalProperties", `{"spec":{"cronSpec":"a b","labels":{"x":1}}}`, []string{"spec.labels.x"}},
		{"maxProperties", `{"spec":{"cronSpec":"a b","labels":{"x":"1","y":"2"}}}`, []string{"spec.labels"}},
		{"int-or-string", `{"spec":{"cronSpec":"a b","port":1.5}}`, []string{"spec.port"}},
		{"anyOf", `{"spec":{"cronSpec":"a b","either":"cat"}}`, []string{"spec.either"}},
		{"oneOf", `{"spec":{"cronSpec":"a b","one":5}}`, []string{"spec.one"}},
		{"null", `{"spec":{"cronSpec":null}}`, []string{"spec.cronSpec"}},
		{"preserved known field", `{"spec":{"cronSpec":"a b","free":{"known":"x"}}}`, []string{"spec.free.known"}},
		{"embedded", `{"spec":{"cronSpec":"a b","pod":{"metadata":{}}}}`, []string{"spec.pod.apiVersion", "spec.pod.kind"}},
		{"metadata name", `{"metadata":{"name":"far-too-long"},"spec":{"cronSpec":"a b"}}`, []string{"metadata.name"}},
		{"spec type", `{"spec":[]}`, []string{"spec"}},
	}
	for _, c := range cases {
		errs := Validate(s, object(t, c.obj))
		got := fieldsOf(errs)
		if len(c.want) == 0 && len(errs) > 0 {
			t.Errorf("%s: unexpected errors %v", c.name, errs)
		}
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%s: errors %v lack %s", c.name, errs, w)
			}
		}
	}
	errs := Validate(s, object(t, `{"spec":{"cronSpec":"a b","replicas":9}}`))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "spec.replicas in body should be less than or equal to 5") {
		t.Errorf("maximum message: %v", errs)
	}
	errs = Validate(s, object(t, `{"spec":{"cronSpec":7}}`))
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), `spec.cronSpec in body must be of type string: "integer"`) {
		t.Errorf("type message: %v", errs)
	}
}

func TestPrune(t *testing.T) {
	s := structural(t, crontabSchema)
	obj := object(t, `{"apiVersion":"x/v1","kind":"K","metadata":{"name":"n","bogus":1,"labels":{"a":"b"}},
		"spec":{"cronSpec":"a b","extra":1,"labels":{"any":"kept"},"tags":["x"],
		"free":{"anything":{"deep":1}},"pod":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","junk":2},"spec":{"kept":true}}},
		"status":{"x":1},"top":true}`)
	removed := Prune(obj, s)
	want := []string{"metadata.bogus", "spec.extra", "spec.pod.metadata.junk", "status", "top"}
	if !reflect.DeepEqual(removed, want) {
		t.Errorf("removed %v, want %v", removed, want)
	}
	after := object(t, `{"apiVersion":"x/v1","kind":"K","metadata":{"name":"n","labels":{"a":"b"}},
		"spec":{"cronSpec":"a b","labels":{"any":"kept"},"tags":["x"],
		"free":{"anything":{"deep":1}},"pod":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"kept":true}}}}`)
	if !reflect.DeepEqual(obj, after) {
		t.Errorf("pruned to %v, want %v", obj, after)
	}
}

func TestDefault(t *testing.T) {
	s := structural(t, `{"type":"object","properties":{
	  "spec":{"type":"object","default":{},"properties":{
	    "replicas":{"type":"integer","default":2},
	    "nested":{"type":"object","properties":{"a":{"type":"string","default":"x"}}},
	    "list":{"type":"array","items":{"type":"object","properties":{"b":{"type":"boolean","default":true}}}},
	    "nullable":{"type":"string","nullable":true,"default":"d"}
	  }}}}`)
	cases := []struct{ in, want string }{
		{`{}`, `{"spec":{"replicas":2,"nullable":"d"}}`},
		{`{"spec":{"replicas":5}}`, `{"spec":{"replicas":5,"nullable":"d"}}`},
		{`{"spec":{"replicas":null}}`, `{"spec":{"replicas":2,"nullable":"d"}}`},
		{`{"spec":{"nested":{}}}`, `{"spec":{"replicas":2,"nested":{"a":"x"},"nullable":"d"}}`},
		{`{"spec":{"list":[{},{"b":false}]}}`, `{"spec":{"replicas":2,"list":[{"b":true},{"b":false}],"nullable":"d"}}`},
		{`{"spec":{"nullable":null}}`, `{"spec":{"replicas":2,"nullable":null}}`},
		{`{"spec":{"replicas":1,"nullable":"n","list":[{"b":false}]}}`, `{"spec":{"replicas":1,"nullable":"n","list":[{"b":false}]}}`},
	}
	for _, c := range cases {
		obj := object(t, c.in)
		if got, want := NeedsDefault(obj, s), c.in != c.want; got != want {
			t.Errorf("NeedsDefault(%s) = %v, want %v", c.in, got, want)
		}
		Default(obj, s)
		if NeedsDefault(obj, s) {
			t.Errorf("NeedsDefault after Default(%s) = true", c.in)
		}
		got, _ := json.Marshal(obj)
		want, _ := json.Marshal(object(t, c.want))
		if string(got) != string(want) {
			t.Errorf("default %s = %s, want %s", c.in, got, want)
		}
	}
}

func TestEnumNull(t *testing.T) {
	s := structural(t, `{"type":"object","properties":{"a":{"type":"string","nullable":true,"enum":["x",null]}}}`)
	for obj, valid := range map[string]bool{`{"a":"x"}`: true, `{"a":null}`: true, `{"a":"y"}`: false} {
		if errs := Validate(s, object(t, obj)); (len(errs) == 0) != valid {
			t.Errorf("%s: errors %v", obj, errs)
		}
	}
}

// TestListAndMapTypes: x-kubernetes-list-type, -list-map-keys and
// -map-type are checked on the definition, and set items and map-list
// keys must be unique in objects.
func TestListAndMapTypes(t *testing.T) {
	for _, tt := range []struct {
		name, schema string
		want         []string
	}{
		{"map list", `{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],
		  "items":{"type":"object","required":["k"],"properties":{"k":{"type":"string"}}}}}}`, nil},
		{"unknown list type", `{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"bag","items":{"type":"string"}}}}`,
			[]string{"schema.properties[l].x-kubernetes-list-type"}},
		{"map list without keys", `{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"map","items":{"type":"object"}}}}`,
			[]string{"schema.properties[l].x-kubernetes-list-map-keys"}},
		{"map key neither required nor defaulted", `{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],
		  "items":{"type":"object","properties":{"k":{"type":"string"}}}}}}`, []string{"schema.properties[l].items.properties[k]"}},
		{"map key not a property", `{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],
		  "items":{"type":"object"}}}}`, []string{"schema.properties[l].x-kubernetes-list-map-keys[0]"}},
		{"keys without map", `{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-map-keys":["k"],"items":{"type":"string"}}}}`,
			[]string{"schema.properties[l].x-kubernetes-list-type"}},
		{"set of granular objects", `{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"object"}}}}`,
			[]string{"schema.properties[l].items.x-kubernetes-map-type"}},
		{"map type on a string", `{"type":"object","properties":{"m":{"type":"string","x-kubernetes-map-type":"atomic"}}}`,
			[]string{"schema.properties[m].type"}},
		{"unknown map type", `{"type":"object","properties":{"m":{"type":"object","x-kubernetes-map-type":"mixed"}}}`,
			[]string{"schema.properties[m].x-kubernetes-map-type"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errs := NewStructural(props(t, tt.schema), field.NewPath("schema"))
			if got := fieldsOf(errs); !slices.Equal(got, tt.want) {
				t.Errorf("errors %v, want fields %v", errs, tt.want)
			}
		})
	}
	s := structural(t, `{"type":"object","properties":{
	  "m":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k","p"],
	    "items":{"type":"object","required":["k","p"],"properties":{"k":{"type":"string"},"p":{"type":"integer"}}}},
	  "s":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"integer"}}}}`)
	errs := Validate(s, object(t, `{"m":[{"k":"a","p":1},{"k":"a","p":2},{"k":"a","p":1,"x":1}],"s":[1,2,1]}`))
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	want := []string{`m[2]: Duplicate value: {"k":"a","p":1}`, `s[2]: Duplicate value: 1`}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
