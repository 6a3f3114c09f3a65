package printers

import (
	"bytes"
	"strings"
	"testing"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/dynamic"
)

func list(t *testing.T, js string) *dynamic.Unstructured {
	t.Helper()
	m, err := dynamic.DecodeJSONObject([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	return &dynamic.Unstructured{Object: m}
}

const twoConfigMaps = `{"apiVersion":"v1","kind":"List","items":[
 {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"alpha","labels":{"app":"web","tier":"front"}},"data":{"a":"1","b":"2"}},
 {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"beta-long-name"},"data":{"c":"3"}}]}`

func TestCustomColumns(t *testing.T) {
	tests := []struct {
		name      string
		spec      string
		noHeaders bool
		want      string
		wantErr   string
	}{
		{name: "paths", spec: "NAME:.metadata.name,APP:.metadata.labels.app",
			want: "NAME             APP\nalpha            web\nbeta-long-name   <none>\n"},
		{name: "braces and no dot", spec: "N:{.metadata.name},D:data.a", noHeaders: true,
			want: "alpha            1\nbeta-long-name   <none>\n"},
		{name: "several values joined", spec: "NAME:.metadata.name,DATA:.data.*",
			want: "NAME             DATA\nalpha            1,2\nbeta-long-name   3\n"},
		{name: "map printed as Go prints it", spec: "L:.metadata.labels",
			want: "L\nmap[app:web tier:front]\n<none>\n"},
		{name: "no colon", spec: "NAME", wantErr: "unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>"},
		{name: "empty", spec: "", wantErr: "custom-columns format specified but no custom columns given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ParseCustomColumns(tt.spec, tt.noHeaders)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Errorf("err = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := p.PrintObj(list(t, twoConfigMaps), &buf); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", buf.String(), tt.want)
			}
		})
	}
}

func TestTable(t *testing.T) {
	body := `{"kind":"Table","apiVersion":"meta.k8s.io/v1","columnDefinitions":[
	  {"name":"Name","type":"string","format":"name","priority":0},
	  {"name":"Data","type":"integer","format":"","priority":0},
	  {"name":"Extra","type":"string","format":"","priority":1}],
	 "rows":[
	  {"cells":["alpha",2,"x\ny"],"object":{"metadata":{"name":"alpha","namespace":"ns1","labels":{"app":"web","example.com/tier":"front"}}}},
	  {"cells":["beta",12345678901,null],"object":{"metadata":{"name":"beta","namespace":"ns2"}}}]}`
	table, err := DecodeTable([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		opts TableOptions
		want string
	}{
		{name: "default", want: "NAME    DATA\nalpha   2\nbeta    12345678901\n"},
		{name: "wide", opts: TableOptions{Wide: true}, want: "NAME    DATA          EXTRA\nalpha   2             x...\nbeta    12345678901   \n"},
		{name: "all namespaces, kind, no headers", opts: TableOptions{WithNamespace: true, KindPrefix: "configmap", NoHeaders: true},
			want: "ns1   configmap/alpha   2\nns2   configmap/beta    12345678901\n"},
		{name: "labels", opts: TableOptions{ShowLabels: true, LabelColumns: []string{"app", "example.com/tier"}},
			want: "NAME    DATA          APP   TIER    LABELS\nalpha   2             web   front   app=web,example.com/tier=front\nbeta    12345678901                 <none>\n"},
		{name: "watch events", opts: TableOptions{ShowEventColumn: true, EventType: "ADDED"},
			want: "EVENT   NAME    DATA\nADDED   alpha   2\nADDED   beta    12345678901\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			p := NewTablePrinter(&buf)
			if err := p.PrintTable(table, tt.opts); err != nil {
				t.Fatal(err)
			}
			if err := p.Flush(); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tt.want {
				t.Errorf("got\n%q\nwant\n%q", buf.String(), tt.want)
			}
		})
	}
}

func TestSortRows(t *testing.T) {
	table := &metav1.Table{Rows: []metav1.TableRow{
		{Cells: []any{"b"}, Object: []byte(`{"metadata":{"name":"b"},"spec":{"n":10}}`)},
		{Cells: []any{"a"}, Object: []byte(`{"metadata":{"name":"a"},"spec":{"n":9}}`)},
		{Cells: []any{"c"}, Object: []byte(`{"metadata":{"name":"c"}}`)},
	}}
	if err := SortRows(table, ".spec.n"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range table.Rows {
		got = append(got, r.Cells[0].(string))
	}
	if strings.Join(got, ",") != "c,a,b" {
		t.Errorf("sorted by number: %v, want missing first then 9, 10", got)
	}
	if err := SortRows(table, "{.metadata.name}"); err != nil {
		t.Fatal(err)
	}
	if table.Rows[0].Cells[0] != "a" {
		t.Errorf("sorted by name: %v", table.Rows)
	}
	if err := SortRows(table, ".nope"); err == nil {
		t.Error("a path found in no object must fail")
	}
}

func TestOutputFormats(t *testing.T) {
	obj := list(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","managedFields":[{"manager":"x"}]},"spec":{"replicas":2}}`)
	tests := []struct {
		format, want string
		op           string
	}{
		{format: "", op: "created", want: "deployment.apps/web created\n"},
		{format: "name", op: "created", want: "deployment.apps/web\n"},
		{format: "yaml", want: "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n"},
		{format: "json", want: "{\n    \"apiVersion\": \"apps/v1\",\n    \"kind\": \"Deployment\",\n    \"metadata\": {\n        \"name\": \"web\"\n    },\n    \"spec\": {\n        \"replicas\": 2\n    }\n}\n"},
		{format: "jsonpath={.spec.replicas}", want: "2"},
		{format: "go-template={{.metadata.name}}", want: "web"},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			pf := NewPrintFlags(tt.op)
			pf.OutputFormat = tt.format
			p, err := pf.ToPrinter()
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := p.PrintObj(obj, &buf); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tt.want {
				t.Errorf("got %q, want %q", buf.String(), tt.want)
			}
		})
	}
	pf := NewPrintFlags("")
	pf.OutputFormat = "bogus"
	if _, err := pf.ToPrinter(); err == nil || !strings.Contains(err.Error(), `unable to match a printer suitable for the output format "bogus"`) {
		t.Errorf("err = %v", err)
	}
}
