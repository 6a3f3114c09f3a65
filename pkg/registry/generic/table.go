package generic

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/storage"
)

// DefaultTableConvertor renders any object or list as Kubernetes' default
// table: the columns Name and Created At.
type DefaultTableConvertor struct{}

var _ rest.TableConvertor = DefaultTableConvertor{}

var defaultColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: "Name of the object, unique in its namespace."},
	{Name: "Created At", Type: "date", Description: "When the server stored the object, in UTC (RFC 3339)."},
}

// ConvertToTable implements rest.TableConvertor.
func (DefaultTableConvertor) ConvertToTable(_ context.Context, obj runtime.Object, opts *metav1.TableOptions) (*metav1.Table, error) {
	obj = storage.Unwrap(obj)
	table := &metav1.Table{TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"}}
	objs := []runtime.Object{obj}
	if lm, err := listMeta(obj); err == nil {
		items, err := listItems(obj)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		objs = items
		table.ResourceVersion = lm.GetResourceVersion()
		table.Continue = lm.GetContinue()
		table.RemainingItemCount = lm.GetRemainingItemCount()
	}
	table.Rows = make([]metav1.TableRow, 0, len(objs))
	for _, o := range objs {
		m, err := objectMeta(o)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		created := m.GetCreationTimestamp()
		row := metav1.TableRow{Cells: []any{m.GetName(), created.UTC().Format(time.RFC3339)}}
		if row.Object, err = RowObject(o, opts); err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		table.Rows = append(table.Rows, row)
	}
	if opts == nil || !opts.NoHeaders {
		table.ColumnDefinitions = defaultColumns
	}
	return table, nil
}

// RowObject is the JSON a Table row carries for obj per opts.IncludeObject:
// its metadata as a PartialObjectMetadata (the default), the whole object,
// or nothing. Table convertors of every resource use it.
func RowObject(obj runtime.Object, opts *metav1.TableOptions) (json.RawMessage, error) {
	policy := metav1.IncludeMetadata
	if opts != nil && opts.IncludeObject != "" {
		policy = opts.IncludeObject
	}
	switch policy {
	case metav1.IncludeNone:
		return nil, nil
	case metav1.IncludeObject:
		if e, ok := obj.(*storage.EncodedObject); ok {
			return e.JSON()
		}
		return json.Marshal(obj)
	case metav1.IncludeMetadata:
		m, err := objectMeta(obj)
		if err != nil {
			return nil, err
		}
		partial := metav1.PartialObjectMetadata{
			TypeMeta:   metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"},
			ObjectMeta: *unstructured.ObjectMetaOf(m),
		}
		return json.Marshal(partial)
	}
	return nil, fmt.Errorf("unknown includeObject policy %q", policy)
}
