package printers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/dynamic"
	"kubecore.io/client/util/jsonpath"
)

// NewTabWriter returns the column writer kubectl prints tables with: at
// least three spaces between columns.
func NewTabWriter(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 6, 4, 3, ' ', 0)
}

// DecodeTable decodes a Table response, numbers kept as json.Number.
func DecodeTable(body []byte) (*metav1.Table, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	t := &metav1.Table{}
	if err := dec.Decode(t); err != nil {
		return nil, fmt.Errorf("decode Table: %w", err)
	}
	if t.Kind != "Table" {
		return nil, fmt.Errorf("the server answered %q where a Table was asked for", t.Kind)
	}
	return t, nil
}

// TableOptions say how a Table prints.
type TableOptions struct {
	// Wide shows the columns of priority above 0 (-o wide).
	Wide bool
	// NoHeaders leaves out the header line.
	NoHeaders bool
	// WithNamespace adds a NAMESPACE column first (-A).
	WithNamespace bool
	// ShowLabels adds a LABELS column (--show-labels).
	ShowLabels bool
	// LabelColumns adds a column per label key (-L).
	LabelColumns []string
	// KindPrefix, when set, prints names as "<KindPrefix>/<name>".
	KindPrefix string
	// EventType, when set, adds an EVENT column first holding it (watch
	// with --output-watch-events).
	EventType string
	// ShowEventColumn adds the EVENT header.
	ShowEventColumn bool
}

// TablePrinter prints Tables; rows printed by one printer are aligned
// together when it flushes.
type TablePrinter struct {
	tw *tabwriter.Writer
}

// NewTablePrinter returns a printer writing to w.
func NewTablePrinter(w io.Writer) *TablePrinter { return &TablePrinter{tw: NewTabWriter(w)} }

// Flush writes out the aligned rows.
func (p *TablePrinter) Flush() error { return p.tw.Flush() }

// RowCount returns the rows of t.
func RowCount(t *metav1.Table) int { return len(t.Rows) }

// Headers returns the header cells the options make for t.
func Headers(t *metav1.Table, o TableOptions) []string {
	var hs []string
	if o.ShowEventColumn {
		hs = append(hs, "EVENT")
	}
	if o.WithNamespace {
		hs = append(hs, "NAMESPACE")
	}
	for _, c := range t.ColumnDefinitions {
		if c.Priority == 0 || o.Wide {
			hs = append(hs, strings.ToUpper(c.Name))
		}
	}
	for _, l := range o.LabelColumns {
		parts := strings.Split(l, "/")
		hs = append(hs, strings.ToUpper(parts[len(parts)-1]))
	}
	if o.ShowLabels {
		hs = append(hs, "LABELS")
	}
	return hs
}

// PrintTable prints t (its headers unless NoHeaders or t has no columns).
func (p *TablePrinter) PrintTable(t *metav1.Table, o TableOptions) error {
	for _, line := range Lines(t, o) {
		fmt.Fprintln(p.tw, strings.Join(line, "\t"))
	}
	return nil
}

// Lines returns the cells of each line t prints as: the headers unless
// NoHeaders or t has no columns, then a line per row.
func Lines(t *metav1.Table, o TableOptions) [][]string {
	var lines [][]string
	if !o.NoHeaders && len(t.ColumnDefinitions) > 0 {
		lines = append(lines, Headers(t, o))
	}
	nameCol := slices.IndexFunc(t.ColumnDefinitions, func(c metav1.TableColumnDefinition) bool { return c.Format == "name" })
	if nameCol < 0 {
		nameCol = 0
	}
	for _, row := range t.Rows {
		md := rowMetadata(row)
		var cells []string
		if o.ShowEventColumn {
			cells = append(cells, o.EventType)
		}
		if o.WithNamespace {
			cells = append(cells, dynamic.NestedString(md, "namespace"))
		}
		for i, c := range t.ColumnDefinitions {
			if c.Priority != 0 && !o.Wide {
				continue
			}
			var cell any
			if i < len(row.Cells) {
				cell = row.Cells[i]
			}
			text := CellText(cell)
			if i == nameCol && o.KindPrefix != "" {
				text = o.KindPrefix + "/" + text
			}
			cells = append(cells, text)
		}
		labels, _ := md["labels"].(map[string]any)
		for _, key := range o.LabelColumns {
			v, _ := labels[key].(string)
			cells = append(cells, v)
		}
		if o.ShowLabels {
			cells = append(cells, FormatLabels(labels))
		}
		lines = append(lines, cells)
	}
	return lines
}

// WatchPrinter prints the tables of a watch as they come, keeping each
// column as wide as the widest cell printed in it so far, as kubectl's
// watch output does.
type WatchPrinter struct {
	w      io.Writer
	widths []int
}

// NewWatchPrinter returns a printer writing to w.
func NewWatchPrinter(w io.Writer) *WatchPrinter { return &WatchPrinter{w: w} }

// PrintTable prints the lines of t at once.
func (p *WatchPrinter) PrintTable(t *metav1.Table, o TableOptions) error {
	lines := Lines(t, o)
	if o.ShowEventColumn && len(p.widths) == 0 {
		// The EVENT column is as wide as its longest value from the start.
		p.widths = append(p.widths, len("MODIFIED"))
	}
	for _, cells := range lines {
		for i, c := range cells {
			if i >= len(p.widths) {
				p.widths = append(p.widths, 0)
			}
			p.widths[i] = max(p.widths[i], len(c))
		}
	}
	var b strings.Builder
	for _, cells := range lines {
		for i, c := range cells {
			b.WriteString(c)
			if i < len(cells)-1 {
				b.WriteString(strings.Repeat(" ", p.widths[i]-len(c)+3))
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(p.w, b.String())
	return err
}

// rowMetadata returns the metadata of the row's object.
func rowMetadata(row metav1.TableRow) map[string]any {
	if len(row.Object) == 0 {
		return nil
	}
	obj, err := dynamic.DecodeJSONObject(row.Object)
	if err != nil {
		return nil
	}
	md, _ := obj["metadata"].(map[string]any)
	return md
}

// CellText prints one cell: strings up to their first line break (marked
// with "..."), everything else as Go prints it; nil prints nothing.
func CellText(cell any) string {
	switch v := cell.(type) {
	case nil:
		return ""
	case string:
		if i := strings.IndexAny(v, "\n\r\f"); i >= 0 {
			return v[:i] + "..."
		}
		return v
	case json.Number:
		return v.String()
	}
	return fmt.Sprint(cell)
}

// FormatLabels prints labels as "k=v,k=v" sorted by key, or "<none>".
func FormatLabels(labels map[string]any) string {
	if len(labels) == 0 {
		return "<none>"
	}
	keys := make([]string, 0, len(labels))
	for k := range labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		v, _ := labels[k].(string)
		parts = append(parts, k+"="+v)
	}
	return strings.Join(parts, ",")
}

// SortRows sorts the rows of t by the value at the JSONPath path in each
// row's object (the Table must include whole objects).
func SortRows(t *metav1.Table, path string) error {
	tmpl, err := jsonpath.RelaxedTemplate(path)
	if err != nil {
		return err
	}
	jp, err := jsonpath.New("sort", tmpl)
	if err != nil {
		return err
	}
	jp.AllowMissingKeys(true)
	keys := make([]any, len(t.Rows))
	found := false
	for i, row := range t.Rows {
		obj, err := dynamic.DecodeJSONObject(row.Object)
		if err != nil {
			return fmt.Errorf("sort by %s: row %d has no object", path, i)
		}
		res, err := jp.FindResults(obj)
		if err != nil {
			return err
		}
		if len(res) > 0 && len(res[0]) > 0 {
			keys[i], found = res[0][0], true
		}
	}
	if !found && len(t.Rows) > 0 {
		return fmt.Errorf("couldn't find any field with path %q in the list of objects", tmpl)
	}
	idx := make([]int, len(t.Rows))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return Less(keys[idx[a]], keys[idx[b]]) })
	rows := make([]metav1.TableRow, len(t.Rows))
	for i, j := range idx {
		rows[i] = t.Rows[j]
	}
	t.Rows = rows
	return nil
}

// SortObjects sorts objects by the value at path, as --sort-by does for
// non-table output.
func SortObjects(objs []*dynamic.Unstructured, path string) error {
	tmpl, err := jsonpath.RelaxedTemplate(path)
	if err != nil {
		return err
	}
	jp, err := jsonpath.New("sort", tmpl)
	if err != nil {
		return err
	}
	jp.AllowMissingKeys(true)
	keys := map[*dynamic.Unstructured]any{}
	for _, o := range objs {
		res, err := jp.FindResults(o.Object)
		if err != nil {
			return err
		}
		if len(res) > 0 && len(res[0]) > 0 {
			keys[o] = res[0][0]
		}
	}
	sort.SliceStable(objs, func(a, b int) bool { return Less(keys[objs[a]], keys[objs[b]]) })
	return nil
}

// Less orders two JSON values: missing first, numbers by value, anything
// else by its text.
func Less(a, b any) bool {
	switch {
	case a == nil:
		return b != nil
	case b == nil:
		return false
	}
	af, aok := number(a)
	bf, bok := number(b)
	if aok && bok {
		return af < bf
	}
	as, _ := jsonpath.ValueText(a)
	bs, _ := jsonpath.ValueText(b)
	return as < bs
}

func number(v any) (float64, bool) {
	switch t := v.(type) {
	case json.Number:
		f, err := t.Float64()
		return f, err == nil
	case float64:
		return t, true
	}
	return 0, false
}
