package printers

import (
	"fmt"
	"io"
	"os"
	"strings"

	"kubecore.io/client/dynamic"
	"kubecore.io/client/util/jsonpath"
)

// Column is one custom column: a header and the path of its value.
type Column struct {
	Header string
	Path   *jsonpath.JSONPath
}

// CustomColumnsPrinter prints chosen fields as aligned columns.
type CustomColumnsPrinter struct {
	Columns   []Column
	NoHeaders bool
}

// ParseCustomColumns reads "HEADER:path,HEADER:path".
func ParseCustomColumns(spec string, noHeaders bool) (*CustomColumnsPrinter, error) {
	if spec == "" {
		return nil, fmt.Errorf("custom-columns format specified but no custom columns given")
	}
	p := &CustomColumnsPrinter{NoHeaders: noHeaders}
	for _, part := range strings.Split(spec, ",") {
		header, path, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("unexpected custom-columns spec: %s, expected <header>:<json-path-expr>", part)
		}
		tmpl, err := jsonpath.RelaxedTemplate(path)
		if err != nil {
			return nil, err
		}
		jp, err := jsonpath.New(header, tmpl)
		if err != nil {
			return nil, err
		}
		p.Columns = append(p.Columns, Column{Header: header, Path: jp.AllowMissingKeys(true)})
	}
	return p, nil
}

// ParseCustomColumnsFile reads a file whose first line holds the headers
// and second line the paths, separated by white space.
func ParseCustomColumnsFile(file string, noHeaders bool) (*CustomColumnsPrinter, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("error reading template %s, %w", file, err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 {
		return nil, fmt.Errorf("unexpected custom-columns file %s: want a line of headers and a line of paths", file)
	}
	headers, paths := strings.Fields(lines[0]), strings.Fields(lines[1])
	if len(headers) != len(paths) {
		return nil, fmt.Errorf("number of headers (%d) does not match number of paths (%d)", len(headers), len(paths))
	}
	var specs []string
	for i := range headers {
		specs = append(specs, headers[i]+":"+paths[i])
	}
	return ParseCustomColumns(strings.Join(specs, ","), noHeaders)
}

// PrintObj prints obj, or each item of a list, one row each.
func (p *CustomColumnsPrinter) PrintObj(obj *dynamic.Unstructured, w io.Writer) error {
	tw := NewTabWriter(w)
	if !p.NoHeaders {
		var hs []string
		for _, c := range p.Columns {
			hs = append(hs, c.Header)
		}
		fmt.Fprintln(tw, strings.Join(hs, "\t"))
	}
	items := []*dynamic.Unstructured{obj}
	if obj.IsList() {
		items = obj.Items()
	}
	for _, it := range items {
		var cells []string
		for _, c := range p.Columns {
			results, err := c.Path.FindResults(it.Object)
			if err != nil {
				return err
			}
			var vals []string
			for _, r := range results {
				for _, v := range r {
					vals = append(vals, fmt.Sprintf("%v", v))
				}
			}
			cell := strings.Join(vals, ",")
			if len(vals) == 0 {
				cell = "<none>"
			}
			cells = append(cells, cell)
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}
