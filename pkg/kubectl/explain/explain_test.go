package explain

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"kubecore.io/apimachinery/pkg/runtime/schema"
)

func TestWrap(t *testing.T) {
	for _, tc := range []struct {
		in    string
		limit int
		want  string
	}{
		{"short", 10, "short"},
		{"one two three four", 9, "one two\nthree\nfour"},
		{"one two three", 7, "one two\nthree"},
		{"a\nb c d", 3, "a\nb c\nd"},
		{"averyveryverylongword next", 5, "averyveryverylongword\nnext"},
		{"x averyveryverylongword", 5, "x\naveryveryverylongword"},
		{"trailing   ", 20, "trailing   "},
		{"trailing   ", 9, "trailing"},
		{"para one.\n\npara two.\n", 76, "para one.\n\npara two.\n"},
	} {
		if got := wrap(tc.in, tc.limit); got != tc.want {
			t.Errorf("wrap(%q, %d) = %q, want %q", tc.in, tc.limit, got, tc.want)
		}
	}
}

// testDoc is a document with a kind that refers to itself, an enum, a
// required field, a map, an array and external docs.
const testDoc = `{
 "paths": {"/apis/g.io/v1/namespaces/{namespace}/widgets": {"get": {"x-kubernetes-group-version-kind": {"group": "g.io", "kind": "Widget", "version": "v1"}}}},
 "components": {"schemas": {
  "io.g.v1.Widget": {"description": "Widget is a test kind.", "type": "object", "required": ["spec"],
   "x-kubernetes-group-version-kind": [{"group": "g.io", "kind": "Widget", "version": "v1"}],
   "properties": {
    "spec": {"description": "Spec of the widget.", "allOf": [{"$ref": "#/components/schemas/io.g.v1.Node"}]},
    "mode": {"description": "Mode of operation.", "type": "string", "enum": ["", "A", "B", "C", "D", "E"]},
    "tags": {"type": "object", "additionalProperties": {"type": "string"}},
    "list": {"type": "array", "items": {"allOf": [{"$ref": "#/components/schemas/io.g.v1.Node"}]}},
    "docs": {"type": "string", "externalDocs": {"description": "More.", "url": "https://example.com"}}
   }},
  "io.g.v1.Node": {"description": "Node holds a value and a child node.", "type": "object",
   "properties": {"value": {"type": "integer"}, "child": {"allOf": [{"$ref": "#/components/schemas/io.g.v1.Node"}]}}}
 }}
}`

func render(t *testing.T, path string, recursive bool) (string, error) {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal([]byte(testDoc), &doc); err != nil {
		t.Fatal(err)
	}
	var fields []string
	if path != "" {
		fields = strings.Split(path, ".")
	}
	var b strings.Builder
	err := Render(&b, doc, schema.GroupVersionResource{Group: "g.io", Version: "v1", Resource: "widgets"}, fields, recursive)
	return b.String(), err
}

func TestRender(t *testing.T) {
	got, err := render(t, "", false)
	if err != nil {
		t.Fatal(err)
	}
	want := "GROUP:      g.io\nKIND:       Widget\nVERSION:    v1\n\nDESCRIPTION:\n    Widget is a test kind.\n    \nFIELDS:\n" +
		"  docs\t<string>\n    <no description>\n    EXTERNAL DOCS:\n        More.\n        URL: https://example.com\n\n" +
		"  list\t<[]Node>\n    <no description>\n\n" +
		"  mode\t<string>\n  enum: \"\", A, B, C, ....\n    Mode of operation.\n\n" +
		"  spec\t<Node> -required-\n    Spec of the widget.\n\n" +
		"  tags\t<map[string]string>\n    <no description>\n\n\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}

	got, err = render(t, "mode", false)
	if err != nil || !strings.Contains(got, "FIELD: mode <string>\nENUM:\n    \"\"\n    A\n    B\n    C\n    D\n    E\n\nDESCRIPTION:\n    Mode of operation.\n") {
		t.Errorf("enum field: %v\n%s", err, got)
	}

	// A type that contains itself is listed once along each path.
	got, err = render(t, "spec", true)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(got, "FIELDS:\n  child\t<Node>\n  value\t<integer>\n\n") {
		t.Errorf("recursive cycle:\n%s", got)
	}
	got, err = render(t, "list.child.child.value", false)
	if err != nil || !strings.Contains(got, "FIELD: value <integer>\n") {
		t.Errorf("path through an array and refs: %v\n%s", err, got)
	}

	got, err = render(t, "spec.nope.value", false)
	var e Error
	if !errors.As(err, &e) || e.Error() != `error: field "value" does not exist` || got != "GROUP:      g.io\nKIND:       Widget\nVERSION:    v1\n\n" {
		t.Errorf("missing field: %v\n%s", err, got)
	}
}

func TestRenderUnknownResource(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal([]byte(testDoc), &doc); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	err := Render(&b, doc, schema.GroupVersionResource{Group: "g.io", Version: "v1", Resource: "gadgets"}, nil, false)
	if err == nil || err.Error() != "error: GVR (g.io/v1, Resource=gadgets) not found in OpenAPI schema" || b.Len() != 0 {
		t.Errorf("got %v, %q", err, b.String())
	}
}
