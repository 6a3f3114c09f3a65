package unstructured

import (
	"encoding/json"
	"maps"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// UnstructuredList is a list of unstructured objects: Object holds the
// list's apiVersion, kind and metadata, Items the elements. It encodes as
// one JSON object with an items array.
type UnstructuredList struct {
	Object map[string]any
	Items  []Unstructured
}

var (
	_ runtime.Object       = (*UnstructuredList)(nil)
	_ metav1.ListInterface = (*UnstructuredList)(nil)
)

// GetObjectKind returns the list itself: its kind lives in Object.
func (l *UnstructuredList) GetObjectKind() schema.ObjectKind { return l }

// SetGroupVersionKind sets apiVersion and kind.
func (l *UnstructuredList) SetGroupVersionKind(gvk schema.GroupVersionKind) {
	l.ensure()
	l.Object["apiVersion"] = gvk.GroupVersion().String()
	l.Object["kind"] = gvk.Kind
}

// GroupVersionKind returns the kind named by apiVersion and kind.
func (l *UnstructuredList) GroupVersionKind() schema.GroupVersionKind {
	gv, err := schema.ParseGroupVersion(NestedString(l.Object, "apiVersion"))
	if err != nil {
		return schema.GroupVersionKind{}
	}
	return gv.WithKind(NestedString(l.Object, "kind"))
}

func (l *UnstructuredList) ensure() {
	if l.Object == nil {
		l.Object = map[string]any{}
	}
}

// DeepCopyObject returns a deep copy.
func (l *UnstructuredList) DeepCopyObject() runtime.Object {
	out := &UnstructuredList{}
	out.Object, _ = DeepCopyJSONValue(l.Object).(map[string]any)
	out.Items = make([]Unstructured, len(l.Items))
	for i := range l.Items {
		out.Items[i] = *l.Items[i].DeepCopy()
	}
	return out
}

// MarshalJSON encodes Object with the items array.
func (l *UnstructuredList) MarshalJSON() ([]byte, error) {
	out := make(map[string]any, len(l.Object)+1)
	maps.Copy(out, l.Object)
	items := make([]map[string]any, len(l.Items))
	for i := range l.Items {
		items[i] = l.Items[i].Object
	}
	out["items"] = items
	return json.Marshal(out)
}

// UnmarshalJSON decodes a list object.
func (l *UnstructuredList) UnmarshalJSON(b []byte) error {
	m, err := DecodeJSONObject(b)
	if err != nil {
		return err
	}
	u := &Unstructured{Object: m}
	l.Items = nil
	for _, it := range u.Items() {
		l.Items = append(l.Items, *it)
	}
	delete(m, "items")
	l.Object = m
	return nil
}

func (l *UnstructuredList) listString(key string) string {
	return NestedString(l.Object, "metadata", key)
}

func (l *UnstructuredList) setListValue(key string, v any) {
	l.ensure()
	md, _ := l.Object["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		l.Object["metadata"] = md
	}
	if v == nil || v == "" {
		delete(md, key)
		return
	}
	md[key] = v
}

// GetResourceVersion returns metadata.resourceVersion.
func (l *UnstructuredList) GetResourceVersion() string { return l.listString("resourceVersion") }

// SetResourceVersion sets metadata.resourceVersion.
func (l *UnstructuredList) SetResourceVersion(v string) { l.setListValue("resourceVersion", v) }

// GetSelfLink returns metadata.selfLink.
func (l *UnstructuredList) GetSelfLink() string { return l.listString("selfLink") }

// SetSelfLink sets metadata.selfLink.
func (l *UnstructuredList) SetSelfLink(v string) { l.setListValue("selfLink", v) }

// GetContinue returns metadata.continue.
func (l *UnstructuredList) GetContinue() string { return l.listString("continue") }

// SetContinue sets metadata.continue.
func (l *UnstructuredList) SetContinue(v string) { l.setListValue("continue", v) }

// GetRemainingItemCount returns metadata.remainingItemCount.
func (l *UnstructuredList) GetRemainingItemCount() *int64 {
	n, ok := Int64(NestedField(l.Object, "metadata", "remainingItemCount"))
	if !ok {
		return nil
	}
	return &n
}

// SetRemainingItemCount sets metadata.remainingItemCount (nil removes it).
func (l *UnstructuredList) SetRemainingItemCount(c *int64) {
	if c == nil {
		l.setListValue("remainingItemCount", nil)
		return
	}
	l.setListValue("remainingItemCount", *c)
}
