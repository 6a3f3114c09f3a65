package yaml

import (
	"bufio"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

type doc struct {
	Kind string `json:"kind"`
	Name string `json:"name,omitempty"`
	N    int    `json:"num,omitempty"`
}

func decodeAll(t *testing.T, in string, bufferSize int) ([]doc, error) {
	t.Helper()
	d := NewYAMLOrJSONDecoder(strings.NewReader(in), bufferSize)
	var out []doc
	for {
		var v doc
		err := d.Decode(&v)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, v)
	}
}

func TestDecodeStreams(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []doc
	}{
		{"empty", "", nil},
		{"only space", "  \n\n \t", nil},
		{"single yaml", "kind: A\nname: a\n", []doc{{Kind: "A", Name: "a"}}},
		{"yaml without trailing newline", "kind: A", []doc{{Kind: "A"}}},
		{"indented first line", "  kind: A\n  num: 2\n", []doc{{Kind: "A", N: 2}}},
		{"multi yaml", "kind: A\n---\nkind: B\n---\nkind: C\n", []doc{{Kind: "A"}, {Kind: "B"}, {Kind: "C"}}},
		{"leading separator", "---\nkind: A\n", []doc{{Kind: "A"}}},
		{"separator with comment", "kind: A\n--- # next\nkind: B\n", []doc{{Kind: "A"}, {Kind: "B"}}},
		{"empty documents skipped", "---\n---\n# only a comment\n---\nkind: A\n---\n\n---\nkind: B\n---\n", []doc{{Kind: "A"}, {Kind: "B"}}},
		{"null document skipped", "null\n---\nkind: A\n", []doc{{Kind: "A"}}},
		{"crlf", "kind: A\r\n---\r\nkind: B\r\n", []doc{{Kind: "A"}, {Kind: "B"}}},
		{"dashes inside a block are not a separator", "kind: A\nname: |\n  ---x\n", []doc{{Kind: "A", Name: "---x\n"}}},
		{"single json", `{"kind":"A","num":1}`, []doc{{Kind: "A", N: 1}}},
		{"json stream", "{\"kind\":\"A\"}\n{\"kind\":\"B\"} {\"kind\":\"C\"}\n", []doc{{Kind: "A"}, {Kind: "B"}, {Kind: "C"}}},
		{"json with leading space", "\n\n   {\"kind\":\"A\"}", []doc{{Kind: "A"}}},
		{"json stream with null", "{\"kind\":\"A\"} null {\"kind\":\"B\"}", []doc{{Kind: "A"}, {Kind: "B"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, size := range []int{0, 1, 3, 4096} {
				got, err := decodeAll(t, tt.in, size)
				if err != nil {
					t.Fatalf("buffer %d: %v", size, err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("buffer %d: got %+v, want %+v", size, got, tt.want)
				}
			}
		})
	}
}

func TestDecodeOneByteReads(t *testing.T) {
	in := "{\"kind\":\"A\"}\n{\"kind\":\"B\"}"
	d := NewYAMLOrJSONDecoder(iotest.OneByteReader(strings.NewReader(in)), 16)
	var kinds []string
	for {
		var v doc
		err := d.Decode(&v)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, v.Kind)
	}
	if strings.Join(kinds, ",") != "A,B" {
		t.Fatalf("got %v", kinds)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		decoded  int
		document int
		line     int
		contains string
	}{
		{
			name:     "yaml syntax in second document",
			in:       "kind: A\n---\nkind: B\nname: x: y\n",
			decoded:  1,
			document: 2,
			line:     4,
			contains: "document 2: yaml: line 4: mapping values are not allowed",
		},
		{
			name:     "yaml type error",
			in:       "kind: A\n---\n\nkind: [1]\n",
			decoded:  1,
			document: 2,
			line:     3,
			contains: "document 2 (line 3): json: cannot unmarshal array",
		},
		{
			name:     "yaml list into a struct",
			in:       "[1]\n---\nkind: A\n",
			document: 1,
			line:     1,
			contains: "document 1 (line 1): json: cannot unmarshal array into Go value of type yaml.doc",
		},
		{
			name:     "json syntax error",
			in:       "{\"kind\":\"A\"}\n{\"kind\":\"B\",\n  \"num\" 3}",
			decoded:  1,
			document: 2,
			line:     3,
			contains: "invalid character '3' after object key at line 3, column 9",
		},
		{
			name:     "json syntax error on first line",
			in:       "  {\"kind\" 1}",
			document: 1,
			line:     1,
			contains: "at line 1, column 11",
		},
		{
			name:     "json truncated",
			in:       "{\"kind\":\"A\"}\n{\"kind\":",
			decoded:  1,
			document: 2,
			line:     2,
			contains: "unexpected end of JSON input at line 2",
		},
		{
			name:     "json type error",
			in:       "{\"kind\":\"A\"}\n\n{\"num\":\"x\"}",
			decoded:  1,
			document: 2,
			line:     3,
			contains: "json: cannot unmarshal string into Go struct field doc.num of type int",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeAll(t, tt.in, 0)
			if len(got) != tt.decoded {
				t.Errorf("decoded %d documents before the error, want %d", len(got), tt.decoded)
			}
			var de *DocumentError
			if !errors.As(err, &de) {
				t.Fatalf("got %v, want a *DocumentError", err)
			}
			if de.Document != tt.document || de.Line != tt.line {
				t.Errorf("document %d line %d, want document %d line %d (%v)", de.Document, de.Line, tt.document, tt.line, err)
			}
			if !strings.Contains(err.Error(), tt.contains) {
				t.Errorf("error %q does not contain %q", err, tt.contains)
			}
		})
	}
}

func TestYAMLReaderLines(t *testing.T) {
	r := NewYAMLReader(bufio.NewReader(strings.NewReader("a: 1\n---\n\nb: 2\n---\n---\nc: 3")))
	var lines []int
	var docs []string
	for {
		d, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(d))
		lines = append(lines, r.DocumentLine())
	}
	if want := []string{"a: 1\n", "\nb: 2\n", "c: 3"}; !reflect.DeepEqual(docs, want) {
		t.Fatalf("docs %q, want %q", docs, want)
	}
	if want := []int{1, 3, 7}; !reflect.DeepEqual(lines, want) {
		t.Fatalf("lines %v, want %v", lines, want)
	}
}

func TestToJSON(t *testing.T) {
	tests := []struct {
		in, want string
		wantErr  bool
	}{
		{in: `{"a":1}`, want: `{"a":1}`},
		{in: " [1,2]", want: " [1,2]"},
		{in: "a: 1\nb: [x, z]\n", want: `{"a":1,"b":["x","z"]}`},
		{in: "a: b: c", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ToJSON([]byte(tt.in))
		if (err != nil) != tt.wantErr {
			t.Fatalf("ToJSON(%q) error %v, wantErr %v", tt.in, err, tt.wantErr)
		}
		if err == nil && string(got) != tt.want {
			t.Fatalf("ToJSON(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestDecodeIntoRawMessage(t *testing.T) {
	d := NewYAMLOrJSONDecoder(strings.NewReader("kind: A\n---\nkind: B\n"), 0)
	var raws []string
	for {
		var m map[string]any
		err := d.Decode(&m)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		raws = append(raws, m["kind"].(string))
	}
	if strings.Join(raws, "") != "AB" {
		t.Fatalf("got %v", raws)
	}
}
