package v1

import (
	"encoding/json"
	"testing"

	"kubecore.io/apimachinery/pkg/runtime"
)

func TestAddToScheme(t *testing.T) {
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	for _, obj := range []runtime.Object{&CustomResourceDefinition{}, &CustomResourceDefinitionList{}} {
		gvk, err := s.ObjectKind(obj)
		if err != nil || gvk.GroupVersion() != SchemeGroupVersion {
			t.Errorf("%T: %v %v", obj, gvk, err)
		}
	}
}

// TestSchemaJSON checks that schemas keep their shape through JSON: items
// as a schema or an array, additionalProperties as a boolean or a schema,
// free-form defaults and enums.
func TestSchemaJSON(t *testing.T) {
	in := `{"type":"object","properties":{` +
		`"a":{"type":"array","items":{"type":"string"}},` +
		`"b":{"type":"array","items":[{"type":"string"},{"type":"integer"}]},` +
		`"c":{"type":"object","additionalProperties":false},` +
		`"d":{"type":"object","additionalProperties":{"type":"integer"}},` +
		`"e":{"type":"string","default":"x","enum":["x",null,{"k":[1]}]},` +
		`"f":{"x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-int-or-string":true}}}`
	var s JSONSchemaProps
	if err := json.Unmarshal([]byte(in), &s); err != nil {
		t.Fatal(err)
	}
	p := s.Properties
	switch {
	case p["a"].Items == nil || p["a"].Items.Schema == nil || p["a"].Items.Schema.Type != "string":
		t.Errorf("items schema %+v", p["a"].Items)
	case p["b"].Items == nil || len(p["b"].Items.JSONSchemas) != 2:
		t.Errorf("items array %+v", p["b"].Items)
	case p["c"].AdditionalProperties == nil || p["c"].AdditionalProperties.Allows || p["c"].AdditionalProperties.Schema != nil:
		t.Errorf("additionalProperties false %+v", p["c"].AdditionalProperties)
	case p["d"].AdditionalProperties == nil || !p["d"].AdditionalProperties.Allows || p["d"].AdditionalProperties.Schema.Type != "integer":
		t.Errorf("additionalProperties schema %+v", p["d"].AdditionalProperties)
	case string(p["e"].Default.Raw) != `"x"` || len(p["e"].Enum) != 3 || len(p["e"].Enum[1].Raw) != 0:
		t.Errorf("default and enum %+v", p["e"])
	case p["f"].XPreserveUnknownFields == nil || !*p["f"].XPreserveUnknownFields || !p["f"].XIntOrString:
		t.Errorf("extensions %+v", p["f"])
	}
	out, err := json.Marshal(&s)
	if err != nil {
		t.Fatal(err)
	}
	var again, want any
	_ = json.Unmarshal(out, &again)
	_ = json.Unmarshal([]byte(in), &want)
	if a, _ := json.Marshal(again); string(a) != string(mustMarshal(t, want)) {
		t.Errorf("round trip\n got %s\nwant %s", a, mustMarshal(t, want))
	}
	// DeepCopy shares nothing.
	c := s.DeepCopy()
	c.Properties["a"].Items.Schema.Type = "integer"
	if s.Properties["a"].Items.Schema.Type != "string" {
		t.Error("DeepCopy shares items")
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
