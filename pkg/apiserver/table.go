package apiserver

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/storage"
)

// tableConvertor is what a Table response needs from a storage.
type tableConvertor interface {
	ConvertToTable(ctx context.Context, obj runtime.Object, opts *metav1.TableOptions) (*metav1.Table, error)
}

var tableTypeMeta = metav1.TypeMeta{Kind: "Table", APIVersion: metav1.SchemeGroupVersion.String()}

// toTable renders obj (one object or a list) with the storage's convertor,
// filling in each row's object as opts.IncludeObject asks when the
// convertor left it out.
func (s *Server) toTable(ctx context.Context, obj runtime.Object, tc tableConvertor, opts *metav1.TableOptions) (*metav1.Table, error) {
	if tc == nil {
		return nil, apierrors.NewNotAcceptable([]string{contentTypeJSON})
	}
	if opts == nil {
		opts = &metav1.TableOptions{}
	}
	obj = storage.Unwrap(obj)
	table, err := tc.ConvertToTable(ctx, obj, opts)
	if err != nil {
		return nil, err
	}
	table.TypeMeta = tableTypeMeta
	items := []runtime.Object{obj}
	if l, ok := obj.(metav1.ListInterface); ok {
		if table.ResourceVersion == "" {
			table.ResourceVersion = l.GetResourceVersion()
		}
		if table.Continue == "" {
			table.Continue = l.GetContinue()
		}
		if table.RemainingItemCount == nil {
			table.RemainingItemCount = l.GetRemainingItemCount()
		}
		items, err = listItems(obj)
		if err != nil {
			return nil, err
		}
	}
	if opts.IncludeObject == metav1.IncludeNone || len(items) != len(table.Rows) {
		return table, nil
	}
	for i := range table.Rows {
		if len(table.Rows[i].Object) > 0 {
			continue
		}
		var raw []byte
		if opts.IncludeObject == metav1.IncludeObject {
			raw, err = s.encode(items[i])
		} else {
			raw, err = partialMetadata(items[i])
		}
		if err != nil {
			return nil, err
		}
		table.Rows[i].Object = raw
	}
	return table, nil
}

// partialMetadata renders obj (or each item of a list) as
// PartialObjectMetadata.
func partialMetadata(obj runtime.Object) ([]byte, error) {
	if l, ok := obj.(metav1.ListInterface); ok {
		items, err := listItems(obj)
		if err != nil {
			return nil, err
		}
		out := metav1.PartialObjectMetadataList{
			TypeMeta: metav1.TypeMeta{Kind: "PartialObjectMetadataList", APIVersion: metav1.SchemeGroupVersion.String()},
			ListMeta: metav1.ListMeta{ResourceVersion: l.GetResourceVersion(), Continue: l.GetContinue(), RemainingItemCount: l.GetRemainingItemCount()},
			Items:    make([]metav1.PartialObjectMetadata, 0, len(items)),
		}
		for _, it := range items {
			m, err := objectMeta(it)
			if err != nil {
				return nil, err
			}
			out.Items = append(out.Items, metav1.PartialObjectMetadata{
				TypeMeta: metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: metav1.SchemeGroupVersion.String()}, ObjectMeta: *unstructured.ObjectMetaOf(m),
			})
		}
		return json.Marshal(&out)
	}
	m, err := objectMeta(obj)
	if err != nil {
		return nil, err
	}
	return json.Marshal(&metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: metav1.SchemeGroupVersion.String()},
		ObjectMeta: *unstructured.ObjectMetaOf(m),
	})
}

// objectMeta returns the metadata of an API object: the ObjectMeta a
// typed object embeds, or the view of an unstructured object's metadata.
func objectMeta(obj runtime.Object) (metav1.Object, error) {
	obj = storage.Unwrap(obj)
	if a, ok := obj.(metav1.ObjectMetaAccessor); ok {
		if m := a.GetObjectMeta(); m != nil {
			return m, nil
		}
	}
	return nil, fmt.Errorf("%T has no object metadata", obj)
}

// listItems returns pointers to the items of a list such as *PodList.
func listItems(list runtime.Object) ([]runtime.Object, error) {
	v := reflect.ValueOf(list)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("%T is not a pointer to a list struct", list)
	}
	items := v.Elem().FieldByName("Items")
	if !items.IsValid() || items.Kind() != reflect.Slice {
		return nil, fmt.Errorf("%T has no Items slice", list)
	}
	out := make([]runtime.Object, 0, items.Len())
	for i := range items.Len() {
		it := items.Index(i)
		if it.Kind() != reflect.Pointer && it.Kind() != reflect.Interface {
			it = it.Addr()
		}
		obj, ok := it.Interface().(runtime.Object)
		if !ok {
			return nil, fmt.Errorf("item %d of %T is not an object", i, list)
		}
		out = append(out, obj)
	}
	return out, nil
}
