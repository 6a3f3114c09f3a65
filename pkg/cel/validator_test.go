package cel

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	apiextensionsv1 "kubecore.io/api/apiextensions/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	apischema "kubecore.io/kubecore/pkg/apiextensions/schema"
)

var schemaPath = field.NewPath("spec", "versions").Index(0).Child("schema", "openAPIV3Schema")

// structural builds a structural schema from its JSON.
func structural(t *testing.T, js string) *apischema.Structural {
	t.Helper()
	var props apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal([]byte(js), &props); err != nil {
		t.Fatal(err)
	}
	s, errs := apischema.NewStructural(&props, schemaPath)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return s
}

func decodeObject(js string) (map[string]any, error) {
	return unstructured.DecodeJSONObject([]byte(js))
}

func object(t *testing.T, js string) map[string]any {
	t.Helper()
	m, err := decodeObject(js)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func compile(t *testing.T, js string) *Validator {
	t.Helper()
	v, errs := Compile(structural(t, js), schemaPath)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return v
}

const widgetSchema = `{"type":"object","properties":{
  "spec":{"type":"object",
    "x-kubernetes-validations":[
      {"rule":"self.minReplicas <= self.maxReplicas","message":"minReplicas must not exceed maxReplicas"},
      {"rule":"!has(self.mode) || self.mode != 'off' || self.minReplicas == 0","messageExpression":"'mode off needs minReplicas 0, got ' + string(self.minReplicas)","reason":"FieldValueForbidden","fieldPath":".minReplicas"}
    ],
    "properties":{
      "minReplicas":{"type":"integer"},"maxReplicas":{"type":"integer"},
      "mode":{"type":"string","x-kubernetes-validations":[{"rule":"self == oldSelf","message":"mode is immutable"}]},
      "x-dash.dot":{"type":"string"},"namespace":{"type":"string"},
      "size":{"x-kubernetes-int-or-string":true},
      "limit":{"type":"string","x-kubernetes-validations":[{"rule":"isQuantity(self) && quantity(self).isLessThan(quantity('10Gi'))"}]},
      "ports":{"type":"array","maxItems":10,"x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
        "items":{"type":"object","required":["name"],"properties":{"name":{"type":"string","maxLength":20},"port":{"type":"integer",
          "x-kubernetes-validations":[{"rule":"self > oldSelf","message":"port may only grow"}]}},
          "x-kubernetes-validations":[{"rule":"self.port >= 1 && self.port <= 65535","message":"port out of range"}]}},
      "labels":{"type":"object","additionalProperties":{"type":"string"},"maxProperties":5,
        "x-kubernetes-validations":[{"rule":"self.all(k, k.startsWith('x-'))","message":"keys start with x-"}]},
      "extra":{"type":"object","x-kubernetes-preserve-unknown-fields":true,
        "x-kubernetes-validations":[{"rule":"!has(self.forbidden)","message":"no forbidden"}]},
      "created":{"type":"string","format":"date-time","x-kubernetes-validations":[{"rule":"self > timestamp('2000-01-01T00:00:00Z')"}]}
    }}},
  "x-kubernetes-validations":[{"rule":"self.metadata.name.startsWith('w-')","message":"name must start with w-"},
    {"rule":"!has(self.spec.x__dash__dash__dot__dot) || self.spec.x__dash__dash__dot__dot == 'ok'","message":"escaped names"},
    {"rule":"!has(self.spec.__namespace__) || self.spec.__namespace__ != 'bad'","message":"escaped keyword"}]}`

func widget(spec string) string {
	return `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w-1","namespace":"default"},"spec":` + spec + `}`
}

// TestValidateRules: rules at every level, with messages, message
// expressions, reasons, field paths, transition rules and escaping.
func TestValidateRules(t *testing.T) {
	v := compile(t, widgetSchema)
	ctx := context.Background()
	tests := []struct {
		name     string
		obj, old string
		want     []string
	}{
		{name: "valid", obj: widget(`{"minReplicas":1,"maxReplicas":2,"limit":"1Gi","labels":{"x-a":"b"},"created":"2020-01-01T00:00:00Z"}`)},
		{name: "message", obj: widget(`{"minReplicas":3,"maxReplicas":2}`),
			want: []string{`spec: Invalid value: "object": minReplicas must not exceed maxReplicas`}},
		{name: "messageExpression, reason and fieldPath", obj: widget(`{"minReplicas":1,"maxReplicas":2,"mode":"off"}`),
			want: []string{`spec.minReplicas: Forbidden: mode off needs minReplicas 0, got 1`}},
		{name: "default message", obj: widget(`{"minReplicas":0,"maxReplicas":2,"limit":"20Gi"}`),
			want: []string{`spec.limit: Invalid value: "string": failed rule: isQuantity(self) && quantity(self).isLessThan(quantity('10Gi'))`}},
		{name: "list items and map keys", obj: widget(`{"minReplicas":0,"maxReplicas":2,"ports":[{"name":"a","port":0}],"labels":{"y":"z"}}`),
			want: []string{`spec.labels: Invalid value: "object": keys start with x-`, `spec.ports[0]: Invalid value: "object": port out of range`}},
		{name: "preserve-unknown-fields is dyn", obj: widget(`{"minReplicas":0,"maxReplicas":1,"extra":{"forbidden":1}}`),
			want: []string{`spec.extra: Invalid value: "object": no forbidden`}},
		{name: "root rule sees metadata.name", obj: strings.Replace(widget(`{"minReplicas":0,"maxReplicas":1}`), `"w-1"`, `"x"`, 1),
			want: []string{`<nil>: Invalid value: "object": name must start with w-`}},
		{name: "escaped property names", obj: widget(`{"minReplicas":0,"maxReplicas":1,"x-dash.dot":"no","namespace":"bad"}`),
			want: []string{`<nil>: Invalid value: "object": escaped names`, `<nil>: Invalid value: "object": escaped keyword`}},
		{name: "transition rule skipped on create", obj: widget(`{"minReplicas":0,"maxReplicas":1,"mode":"on"}`)},
		{name: "transition rule on update", obj: widget(`{"minReplicas":0,"maxReplicas":1,"mode":"on"}`), old: widget(`{"minReplicas":0,"maxReplicas":1,"mode":"off"}`),
			want: []string{`spec.mode: Invalid value: "string": mode is immutable`}},
		{name: "transition rule correlates map list items by key", obj: widget(`{"minReplicas":0,"maxReplicas":1,"ports":[{"name":"b","port":5},{"name":"a","port":9}]}`),
			old:  widget(`{"minReplicas":0,"maxReplicas":1,"ports":[{"name":"a","port":10}]}`),
			want: []string{`spec.ports[1].port: Invalid value: "integer": port may only grow`}},
		{name: "unchanged values are not checked again", obj: widget(`{"minReplicas":3,"maxReplicas":2,"mode":"x"}`), old: widget(`{"minReplicas":3,"maxReplicas":2,"mode":"x"}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var old map[string]any
			if tt.old != "" {
				old = object(t, tt.old)
			}
			errs := v.Validate(ctx, object(t, tt.obj), old, nil)
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestOptionalOldSelf: a transition rule with optionalOldSelf runs on
// create too, with oldSelf none.
func TestOptionalOldSelf(t *testing.T) {
	v := compile(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{"v":{"type":"string",
	  "x-kubernetes-validations":[{"rule":"oldSelf.hasValue() ? self == oldSelf.value() : self == 'initial'","optionalOldSelf":true,"message":"starts initial, then immutable"}]}}}}}`)
	ctx := context.Background()
	if errs := v.Validate(ctx, object(t, `{"spec":{"v":"other"}}`), nil, nil); len(errs) != 1 || !strings.Contains(errs[0].Error(), "starts initial") {
		t.Errorf("create: %v", errs)
	}
	if errs := v.Validate(ctx, object(t, `{"spec":{"v":"initial"}}`), nil, nil); len(errs) != 0 {
		t.Errorf("create initial: %v", errs)
	}
	if errs := v.Validate(ctx, object(t, `{"spec":{"v":"b"}}`), object(t, `{"spec":{"v":"initial"}}`), nil); len(errs) != 1 {
		t.Errorf("update: %v", errs)
	}
}

// TestCompileErrors: what a definition's rules are refused for, with
// Kubernetes' field paths and messages.
func TestCompileErrors(t *testing.T) {
	rules := func(node string) string {
		return `{"type":"object","properties":{"spec":` + node + `}}`
	}
	p := `spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0]`
	for name, tt := range map[string]struct{ schema, want string }{
		"undefined field": {rules(`{"type":"object","properties":{"a":{"type":"string"}},"x-kubernetes-validations":[{"rule":"self.b == 'x'"}]}`),
			p + `.rule: Invalid value: "self.b == 'x'": compilation failed: ERROR: <input>:1:5: undefined field 'b'`},
		"syntax": {rules(`{"type":"object","x-kubernetes-validations":[{"rule":"self.("}]}`), p + `.rule: Invalid value: "self.(": compilation failed: ERROR: <input>:1:6: Syntax error`},
		"not a bool": {rules(`{"type":"object","properties":{"a":{"type":"string"}},"x-kubernetes-validations":[{"rule":"self.a"}]}`),
			p + `.rule: Invalid value: "self.a": cel expression must evaluate to a bool`},
		"empty rule": {rules(`{"type":"object","x-kubernetes-validations":[{"rule":" "}]}`), p + `.rule: Required value: rule is not specified`},
		"messageExpression not a string": {rules(`{"type":"object","x-kubernetes-validations":[{"rule":"true","messageExpression":"1"}]}`),
			p + `.messageExpression: Invalid value: "1": messageExpression must evaluate to a string`},
		"bad reason": {rules(`{"type":"object","x-kubernetes-validations":[{"rule":"true","reason":"Nope"}]}`), p + `.reason: Unsupported value: "Nope"`},
		"optionalOldSelf without oldSelf": {rules(`{"type":"object","x-kubernetes-validations":[{"rule":"true","optionalOldSelf":true}]}`),
			p + `.optionalOldSelf: Forbidden: may not be set if rule does not use oldSelf`},
		"bad fieldPath": {rules(`{"type":"object","properties":{"a":{"type":"string"}},"x-kubernetes-validations":[{"rule":"true","fieldPath":".b"}]}`),
			p + `.fieldPath: Invalid value: ".b": fieldPath must be a valid path`},
		"per-expression cost": {rules(`{"type":"object","properties":{"l":{"type":"array","items":{"type":"string"}}},"x-kubernetes-validations":[{"rule":"self.l.all(a, self.l.all(b, a != b || a.matches('x+')))"}]}`),
			p + `.rule: Forbidden: estimated rule cost exceeds budget by factor of`},
		"transition rule in a set": {`{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string","x-kubernetes-validations":[{"rule":"self == oldSelf"}]}}}}`,
			`spec.versions[0].schema.openAPIV3Schema.properties[l].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema`},
	} {
		t.Run(name, func(t *testing.T) {
			_, errs := Compile(structural(t, tt.schema), schemaPath)
			if len(errs) == 0 || !strings.Contains(errs.ToAggregate().Error(), tt.want) {
				t.Errorf("got %v\nwant %s", errs, tt.want)
			}
		})
	}
}

// TestCRDCostLimit: rules cheap alone but repeated in unbounded lists go
// over the per-schema limit.
func TestCRDCostLimit(t *testing.T) {
	item := `{"type":"object","properties":{"s":{"type":"string","maxLength":1000}},"x-kubernetes-validations":[{"rule":"self.s.matches('^[a-z]+$')"}]}`
	_, errs := Compile(structural(t, `{"type":"object","properties":{"l":{"type":"array","items":{"type":"array","items":`+item+`}}}}`), schemaPath)
	want := `spec.versions[0].schema.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of`
	if len(errs) == 0 || !strings.Contains(errs.ToAggregate().Error(), want) {
		t.Errorf("got %v, want %s", errs, want)
	}
	// With maxItems the same rules fit.
	_, errs = Compile(structural(t, `{"type":"object","properties":{"l":{"type":"array","maxItems":10,"items":{"type":"array","maxItems":10,"items":`+item+`}}}}`), schemaPath)
	if len(errs) != 0 {
		t.Errorf("bounded: %v", errs)
	}
}

// TestRuntimeBudget: a runaway expression is stopped by the per-call
// limit, and rules together by the per-object budget.
func TestRuntimeBudget(t *testing.T) {
	// Estimated within the limit of one expression (the string and the
	// list are bounded: 40 x 1,000,000/10), but over the runtime limit of
	// one call (1,000,000) on a long string: each contains costs its
	// length / 10.
	v := compile(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{
	  "s":{"type":"string","maxLength":1000000},"l":{"type":"array","maxItems":40,"items":{"type":"string","maxLength":8}}},
	  "x-kubernetes-validations":[{"rule":"self.l.all(x, !self.s.contains(x))","message":"runaway"}]}}}`)
	words := make([]string, 40)
	for i := range words {
		words[i] = strconv.Quote("w" + strconv.Itoa(i))
	}
	long := strings.Repeat("a", 500000)
	errs := v.Validate(context.Background(), object(t, `{"spec":{"s":"`+long+`","l":[`+strings.Join(words, ",")+`]}}`), nil, nil)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "call cost exceeds limit for rule: runaway") {
		t.Errorf("per-call limit: %v", errs)
	}
	items := make([]string, 1000)
	for i := range items {
		items[i] = strconv.Itoa(i)
	}
	v = compile(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{"l":{"type":"array","maxItems":1000,"items":{"type":"integer"}}},
	  "x-kubernetes-validations":[{"rule":"self.l.all(a, a >= 0)"},{"rule":"self.l.all(a, a >= 0)"},{"rule":"true"}]}}}`)
	budget := &Budget{Remaining: 3000}
	errs = v.Validate(context.Background(), object(t, `{"spec":{"l":[`+strings.Join(items, ",")+`]}}`), nil, budget)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "validation failed due to running out of cost budget, no further validation rules will be run") {
		t.Errorf("budget: %v", errs)
	}
}

func TestEscapeName(t *testing.T) {
	for in, want := range map[string]string{
		"foo": "foo", "x-y": "x__dash__y", "a.b": "a__dot__b", "a/b": "a__slash__b", "a__b": "a__underscores__b",
		"namespace": "__namespace__", "if": "__if__", "_x1": "_x1",
	} {
		if got, ok := EscapeName(in); !ok || got != want {
			t.Errorf("EscapeName(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"1a", "a b", "a@b", ""} {
		if _, ok := EscapeName(in); ok {
			t.Errorf("EscapeName(%q) ok, want not escapable", in)
		}
	}
}

// TestMessageExpressionFallback: a messageExpression that fails, or
// gives an empty or multi-line string, leaves the rule's message.
func TestMessageExpressionFallback(t *testing.T) {
	v := compile(t, `{"type":"object","properties":{"spec":{"type":"object","properties":{"m":{"type":"object","additionalProperties":{"type":"string"}}},
	  "x-kubernetes-validations":[
	    {"rule":"false","message":"static one","messageExpression":"self.m['missing']"},
	    {"rule":"false","messageExpression":"''"},
	    {"rule":"false","message":"static three","messageExpression":"'a\\nb'","reason":"FieldValueRequired"}]}}}`)
	errs := v.Validate(context.Background(), object(t, `{"spec":{"m":{}}}`), nil, nil)
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	want := []string{`spec: Invalid value: "object": static one`, `spec: Invalid value: "object": failed rule: false`, `spec: Required value: static three`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
