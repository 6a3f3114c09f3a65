package customresource

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	apiextensionsv1 "kubecore.io/api/apiextensions/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/storage"
)

func decode(t *testing.T, js string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal([]byte(js), u); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestTableConvertor(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tc, err := newTableConvertor([]apiextensionsv1.CustomResourceColumnDefinition{
		{Name: "Spec", Type: "string", JSONPath: ".spec.cronSpec"},
		{Name: "Replicas", Type: "integer", JSONPath: ".spec.replicas"},
		{Name: "Ratio", Type: "number", JSONPath: ".spec.ratio", Priority: 1},
		{Name: "Ready", Type: "boolean", JSONPath: ".status.ready"},
		{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
		{Name: "Missing", Type: "string", JSONPath: ".spec.none"},
	}, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	u := decode(t, `{"metadata":{"name":"a","creationTimestamp":"2026-05-01T11:55:00Z"},"spec":{"cronSpec":"* * * * *","replicas":3,"ratio":0.5},"status":{"ready":true}}`)
	list := &unstructured.UnstructuredList{Items: []unstructured.Unstructured{*u}}
	list.SetResourceVersion("9")
	table, err := tc.ConvertToTable(context.Background(), storage.NewEncodedObject(list, func(runtime.Object) ([]byte, error) { return nil, nil }), &metav1.TableOptions{IncludeObject: metav1.IncludeNone})
	if err != nil {
		t.Fatal(err)
	}
	if len(table.ColumnDefinitions) != 7 || table.ColumnDefinitions[3].Priority != 1 || table.ColumnDefinitions[5].Type != "string" {
		t.Errorf("columns %+v", table.ColumnDefinitions)
	}
	want := []any{"a", "* * * * *", int64(3), 0.5, true, "5m", nil}
	if len(table.Rows) != 1 || len(table.Rows[0].Cells) != len(want) {
		t.Fatalf("rows %+v", table.Rows)
	}
	for i, w := range want {
		if table.Rows[0].Cells[i] != w {
			t.Errorf("cell %d = %#v, want %#v", i, table.Rows[0].Cells[i], w)
		}
	}
	if table.ResourceVersion != "9" || table.Rows[0].Object != nil {
		t.Errorf("table %+v", table)
	}
	// Without columns, Age.
	tc, err = newTableConvertor(nil, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	table, err = tc.ConvertToTable(context.Background(), u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(table.ColumnDefinitions) != 2 || table.ColumnDefinitions[1].Name != "Age" || table.Rows[0].Cells[1] != "5m" {
		t.Errorf("default table %+v", table)
	}
}

func TestConvert(t *testing.T) {
	u := decode(t, `{"apiVersion":"g/v1","kind":"K","metadata":{"name":"a"}}`)
	enc := storage.NewEncodedObject(u, func(runtime.Object) ([]byte, error) { return nil, nil })
	if got := setAPIVersion(enc, "g/v1"); got != runtime.Object(enc) {
		t.Error("an object already in the version was copied")
	}
	got := setAPIVersion(enc, "g/v2").(*unstructured.Unstructured)
	if got.GetAPIVersion() != "g/v2" || u.GetAPIVersion() != "g/v1" {
		t.Errorf("converted %v, original %v", got.Object, u.Object)
	}
	// An object written while g/v1 was the storage version is served in
	// g/v2 once g/v2 is the storage version.
	s := newVersionedStorage(getStorage{obj: u}, noneConverter{}, "g/v2", "g/v2")
	obj, err := s.Get(context.Background(), "k", storage.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v := obj.(*unstructured.Unstructured).GetAPIVersion(); v != "g/v2" {
		t.Errorf("the storage version serves an older object as %s, want g/v2", v)
	}
}

// getStorage answers Get with one object.
type getStorage struct {
	storage.Interface
	obj runtime.Object
}

func (g getStorage) Get(context.Context, string, storage.GetOptions) (runtime.Object, error) {
	return g.obj, nil
}
