package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// object is a decoded API object, walked with field.
type object map[string]any

// field returns the value at a dotted path ("metadata.name"), or nil.
func (o object) field(path string) any {
	var cur any = map[string]any(o)
	for _, p := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[p]
	}
	return cur
}

// str returns the string at path, or "" when it is missing or no string.
func (o object) str(path string) string {
	s, _ := o.field(path).(string)
	return s
}

func decodeJSON(t *testing.T, s string) object {
	t.Helper()
	var o object
	if err := json.Unmarshal([]byte(s), &o); err != nil {
		t.Fatalf("decode JSON: %v\n%s", err, s)
	}
	return o
}

func decodeYAML(t *testing.T, s string) object {
	t.Helper()
	var o object
	if err := yaml.Unmarshal([]byte(s), &o); err != nil {
		t.Fatalf("decode YAML: %v\n%s", err, s)
	}
	return o
}

// writeFile writes content to a file in a temp dir of the test.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// table is kubectl's printed table: a header and rows of cells.
type table struct {
	header []string
	rows   [][]string
}

// parseTable splits kubectl's table output into cells by the columns of
// its header: kubectl aligns every cell under the start of its header, and
// a cell may be empty or hold single spaces.
func parseTable(t *testing.T, out string) table {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) == 0 || lines[0] == "" {
		t.Fatalf("no table in output %q", out)
	}
	var tb table
	var starts []int
	for _, loc := range columnHeader.FindAllStringIndex(lines[0], -1) {
		starts = append(starts, loc[0])
		tb.header = append(tb.header, lines[0][loc[0]:loc[1]])
	}
	for _, l := range lines[1:] {
		row := make([]string, len(starts))
		for i, start := range starts {
			end := len(l)
			if i+1 < len(starts) {
				end = min(starts[i+1], len(l))
			}
			if start < end {
				row[i] = strings.TrimSpace(l[start:end])
			}
		}
		tb.rows = append(tb.rows, row)
	}
	return tb
}

// columnHeader matches one header of a table: words joined by single
// spaces ("NOMINATED NODE").
var columnHeader = regexp.MustCompile(`\S+( \S+)*`)

// row returns the row whose first cell is name.
func (tb table) row(t *testing.T, name string) map[string]string {
	t.Helper()
	for _, r := range tb.rows {
		if len(r) > 0 && r[0] == name {
			m := map[string]string{}
			for i, h := range tb.header {
				m[h] = r[i]
			}
			return m
		}
	}
	t.Fatalf("no row %q in table %q", name, tb.rows)
	return nil
}

func expectHeader(t *testing.T, what string, tb table, want ...string) {
	t.Helper()
	if !reflect.DeepEqual(tb.header, want) {
		t.Errorf("%s: header %q, want %q", what, tb.header, want)
	}
}

func expectContains(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s: %q does not contain %q", what, s, sub)
		}
	}
}
