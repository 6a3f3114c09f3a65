package jsonpath

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

const podList = `{
  "kind": "List",
  "items": [
    {"metadata": {"name": "a", "labels": {"app": "web"}}, "spec": {"containers": [{"name": "c1", "image": "nginx"}, {"name": "c2", "image": "redis"}]}, "status": {"phase": "Running", "restarts": 2}},
    {"metadata": {"name": "b", "labels": {"app": "db"}}, "spec": {"containers": [{"name": "c3", "image": "postgres"}]}, "status": {"phase": "Pending", "restarts": 0}}
  ]
}`

func TestExecute(t *testing.T) {
	dec := json.NewDecoder(strings.NewReader(podList))
	dec.UseNumber()
	var data any
	if err := dec.Decode(&data); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, tmpl, want string
		wantErr          bool
		strict           bool
	}{
		{name: "field", tmpl: "{.kind}", want: "List"},
		{name: "text around", tmpl: "kind={.kind}!", want: "kind=List!"},
		{name: "wildcard", tmpl: "{.items[*].metadata.name}", want: "a b"},
		{name: "index", tmpl: "{.items[1].metadata.name}", want: "b"},
		{name: "negative index", tmpl: "{.items[-1].metadata.name}", want: "b"},
		{name: "slice", tmpl: "{.items[0:1].metadata.name}", want: "a"},
		{name: "quoted field", tmpl: "{.items[0].metadata.labels['app']}", want: "web"},
		{name: "range", tmpl: `{range .items[*]}{.metadata.name}{"\t"}{.status.phase}{"\n"}{end}`, want: "a\tRunning\nb\tPending\n"},
		{name: "nested range", tmpl: `{range .items[*]}{range .spec.containers[*]}{.name},{end}{end}`, want: "c1,c2,c3,"},
		{name: "filter string", tmpl: `{.items[?(@.metadata.name=="b")].status.phase}`, want: "Pending"},
		{name: "filter number", tmpl: `{.items[?(@.status.restarts>1)].metadata.name}`, want: "a"},
		{name: "filter exists", tmpl: `{.items[*].spec.containers[?(@.image)].name}`, want: "c1 c2 c3"},
		{name: "recursive", tmpl: "{..image}", want: "nginx redis postgres"},
		{name: "map printed as json", tmpl: "{.items[0].metadata.labels}", want: `{"app":"web"}`},
		{name: "number", tmpl: "{.items[0].status.restarts}", want: "2"},
		{name: "missing allowed", tmpl: "{.nope}", want: ""},
		{name: "missing strict", tmpl: "{.nope}", strict: true, wantErr: true},
		{name: "root", tmpl: "{range .items[*]}{$.kind}{end}", want: "ListList"},
		{name: "union", tmpl: "{.items[0].spec.containers[0,1].name}", want: "c1 c2"},
		{name: "out of bounds", tmpl: "{.items[5]}", wantErr: true},
		{name: "unclosed", tmpl: "{.items", wantErr: true},
		{name: "unclosed range", tmpl: "{range .items[*]}{.a}", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j, err := New("t", tt.tmpl)
			if err == nil {
				j.AllowMissingKeys(!tt.strict)
				var buf bytes.Buffer
				err = j.Execute(&buf, data)
				if err == nil && buf.String() != tt.want {
					t.Errorf("got %q, want %q", buf.String(), tt.want)
				}
			}
			if (err != nil) != tt.wantErr {
				t.Errorf("err = %v, wantErr %v", err, tt.wantErr)
			}
		})
	}
}

func TestRelaxedTemplate(t *testing.T) {
	for in, want := range map[string]string{
		"metadata.name":    "{.metadata.name}",
		".metadata.name":   "{.metadata.name}",
		"{.metadata.name}": "{.metadata.name}",
		"{metadata.name}":  "{.metadata.name}",
	} {
		if got, err := RelaxedTemplate(in); err != nil || got != want {
			t.Errorf("RelaxedTemplate(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := RelaxedTemplate("{.a"); err == nil {
		t.Error("want an error for an unclosed brace")
	}
}
