package customresource

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	apiextensionsv1 "kubecore.io/api/apiextensions/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/client/util/jsonpath"

	"kubecore.io/kubecore/pkg/printers"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/storage"
)

// ageColumn is the column of a version that declares none.
var ageColumn = apiextensionsv1.CustomResourceColumnDefinition{
	Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp",
}

// tableConvertor renders custom objects with a version's
// additionalPrinterColumns after the name.
type tableConvertor struct {
	defs    []metav1.TableColumnDefinition
	columns []column
	now     func() time.Time
}

type column struct {
	typ  string
	path *jsonpath.JSONPath
}

var _ rest.TableConvertor = (*tableConvertor)(nil)

// newTableConvertor compiles the columns' JSONPaths (validation accepted
// them already).
func newTableConvertor(cols []apiextensionsv1.CustomResourceColumnDefinition, now func() time.Time) (*tableConvertor, error) {
	if len(cols) == 0 {
		cols = []apiextensionsv1.CustomResourceColumnDefinition{ageColumn}
	}
	tc := &tableConvertor{now: now, defs: []metav1.TableColumnDefinition{
		{Name: "Name", Type: "string", Format: "name", Description: "Name must be unique within a namespace."},
	}}
	for _, c := range cols {
		jp, err := CompileColumnPath(c.Name, c.JSONPath)
		if err != nil {
			return nil, err
		}
		tc.columns = append(tc.columns, column{typ: c.Type, path: jp})
		typ := c.Type
		if typ == "date" {
			typ = "string"
		}
		tc.defs = append(tc.defs, metav1.TableColumnDefinition{
			Name: c.Name, Type: typ, Format: c.Format, Description: c.Description, Priority: c.Priority,
		})
	}
	return tc, nil
}

// CompileColumnPath compiles the JSONPath of a printer column.
func CompileColumnPath(name, path string) (*jsonpath.JSONPath, error) {
	tmpl, err := jsonpath.RelaxedTemplate(path)
	if err != nil {
		return nil, err
	}
	jp, err := jsonpath.New(name, tmpl)
	if err != nil {
		return nil, err
	}
	return jp.AllowMissingKeys(true), nil
}

// ConvertToTable implements rest.TableConvertor.
func (tc *tableConvertor) ConvertToTable(_ context.Context, obj runtime.Object, opts *metav1.TableOptions) (*metav1.Table, error) {
	obj = storage.Unwrap(obj)
	table := &metav1.Table{}
	var items []*unstructured.Unstructured
	switch t := obj.(type) {
	case *unstructured.Unstructured:
		items = []*unstructured.Unstructured{t}
	case *unstructured.UnstructuredList:
		for i := range t.Items {
			items = append(items, &t.Items[i])
		}
		table.ResourceVersion = t.GetResourceVersion()
		table.Continue = t.GetContinue()
		table.RemainingItemCount = t.GetRemainingItemCount()
	default:
		return nil, apierrors.NewInternalError(fmt.Errorf("unexpected object of type %T", obj))
	}
	table.Rows = make([]metav1.TableRow, 0, len(items))
	for _, u := range items {
		cells := []any{u.GetName()}
		for _, c := range tc.columns {
			cells = append(cells, tc.cell(c, u.Object))
		}
		row := metav1.TableRow{Cells: cells}
		var err error
		if row.Object, err = generic.RowObject(u, opts); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		table.Rows = append(table.Rows, row)
	}
	if opts == nil || !opts.NoHeaders {
		table.ColumnDefinitions = tc.defs
	}
	return table, nil
}

// cell is the value of column c for obj: the first JSONPath result in the
// column's type, nil when there is none or it has another type.
func (tc *tableConvertor) cell(c column, obj map[string]any) any {
	results, err := c.path.FindResults(obj)
	if err != nil || len(results) == 0 || len(results[0]) == 0 {
		return nil
	}
	v := results[0][0]
	switch c.typ {
	case "integer":
		if n, ok := unstructured.Int64(v); ok {
			return n
		}
	case "number":
		if n, ok := unstructured.Int64(v); ok {
			return n
		}
		switch n := v.(type) {
		case float64:
			return n
		case json.Number:
			if f, err := n.Float64(); err == nil {
				return f
			}
		}
	case "boolean":
		if b, ok := v.(bool); ok {
			return b
		}
	case "date":
		s, ok := v.(string)
		if !ok {
			return nil
		}
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return "<invalid>"
		}
		return printers.HumanDuration(tc.now().Sub(t))
	default:
		if s, ok := v.(string); ok {
			return s
		}
		text, err := jsonpath.ValueText(v)
		if err != nil {
			return nil
		}
		return text
	}
	return nil
}
