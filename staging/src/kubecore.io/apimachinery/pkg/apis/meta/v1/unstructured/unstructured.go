// Package unstructured holds API objects of any kind as the JSON maps they
// decode to: what the dynamic client reads and writes, and what the API
// server stores for custom resources.
package unstructured

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// Unstructured is an API object of any kind, held as the JSON map it
// decodes to (strings, float64 or json.Number, bool, nil, []any and
// map[string]any).
type Unstructured struct {
	Object map[string]any
}

var (
	_ runtime.Object            = (*Unstructured)(nil)
	_ metav1.ObjectMetaAccessor = (*Unstructured)(nil)
)

// GetObjectKind returns the object itself: its kind lives in Object.
func (u *Unstructured) GetObjectKind() schema.ObjectKind { return u }

// DeepCopyObject returns a deep copy.
func (u *Unstructured) DeepCopyObject() runtime.Object { return u.DeepCopy() }

// DeepCopy returns a deep copy.
func (u *Unstructured) DeepCopy() *Unstructured {
	if u == nil {
		return nil
	}
	c, _ := DeepCopyJSONValue(u.Object).(map[string]any)
	return &Unstructured{Object: c}
}

// DeepCopyJSONValue copies a value made of JSON maps, slices and scalars.
func DeepCopyJSONValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		if t == nil {
			return t
		}
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = DeepCopyJSONValue(e)
		}
		return out
	case []any:
		if t == nil {
			return t
		}
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = DeepCopyJSONValue(e)
		}
		return out
	default:
		return v
	}
}

// MarshalJSON encodes Object.
func (u *Unstructured) MarshalJSON() ([]byte, error) { return json.Marshal(u.Object) }

// UnmarshalJSON decodes a JSON object into Object, numbers as json.Number so
// that integers keep their precision.
func (u *Unstructured) UnmarshalJSON(b []byte) error {
	m, err := DecodeJSONObject(b)
	if err != nil {
		return err
	}
	u.Object = m
	return nil
}

// DecodeJSONObject decodes a JSON object with json.Number numbers.
func DecodeJSONObject(b []byte) (map[string]any, error) {
	var m map[string]any
	if err := decoder(b).Decode(&m); err != nil {
		return nil, fmt.Errorf("decode object: %w", err)
	}
	if m == nil {
		return nil, fmt.Errorf("decode object: not a JSON object")
	}
	return m, nil
}

// decoder reads JSON with json.Number numbers.
func decoder(b []byte) *json.Decoder {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec
}

// SetGroupVersionKind sets apiVersion and kind.
func (u *Unstructured) SetGroupVersionKind(gvk schema.GroupVersionKind) {
	u.ensure()
	u.Object["apiVersion"] = gvk.GroupVersion().String()
	u.Object["kind"] = gvk.Kind
}

// GroupVersionKind returns the kind named by apiVersion and kind.
func (u *Unstructured) GroupVersionKind() schema.GroupVersionKind {
	gv, err := schema.ParseGroupVersion(u.GetAPIVersion())
	if err != nil {
		return schema.GroupVersionKind{}
	}
	return gv.WithKind(u.GetKind())
}

func (u *Unstructured) ensure() {
	if u.Object == nil {
		u.Object = map[string]any{}
	}
}

// GetAPIVersion returns apiVersion.
func (u *Unstructured) GetAPIVersion() string { return NestedString(u.Object, "apiVersion") }

// GetKind returns kind.
func (u *Unstructured) GetKind() string { return NestedString(u.Object, "kind") }

// GetName returns metadata.name.
func (u *Unstructured) GetName() string { return NestedString(u.Object, "metadata", "name") }

// GetGenerateName returns metadata.generateName.
func (u *Unstructured) GetGenerateName() string {
	return NestedString(u.Object, "metadata", "generateName")
}

// GetNamespace returns metadata.namespace.
func (u *Unstructured) GetNamespace() string {
	return NestedString(u.Object, "metadata", "namespace")
}

// GetResourceVersion returns metadata.resourceVersion.
func (u *Unstructured) GetResourceVersion() string {
	return NestedString(u.Object, "metadata", "resourceVersion")
}

// GetUID returns metadata.uid.
func (u *Unstructured) GetUID() string { return NestedString(u.Object, "metadata", "uid") }

// SetNamespace sets metadata.namespace.
func (u *Unstructured) SetNamespace(ns string) { u.setMeta("namespace", ns) }

// SetName sets metadata.name.
func (u *Unstructured) SetName(name string) { u.setMeta("name", name) }

// SetResourceVersion sets metadata.resourceVersion ("" removes it).
func (u *Unstructured) SetResourceVersion(rv string) { u.setMeta("resourceVersion", rv) }

func (u *Unstructured) setMeta(key, value string) {
	u.ensure()
	md, _ := u.Object["metadata"].(map[string]any)
	if md == nil {
		if value == "" {
			return
		}
		md = map[string]any{}
		u.Object["metadata"] = md
	}
	if value == "" {
		delete(md, key)
		return
	}
	md[key] = value
}

// GetLabels returns metadata.labels.
func (u *Unstructured) GetLabels() map[string]string { return u.stringMap("labels") }

// GetAnnotations returns metadata.annotations.
func (u *Unstructured) GetAnnotations() map[string]string { return u.stringMap("annotations") }

// SetLabels replaces metadata.labels (nil or empty removes them).
func (u *Unstructured) SetLabels(m map[string]string) { u.setStringMap("labels", m) }

// SetAnnotations replaces metadata.annotations (nil or empty removes them).
func (u *Unstructured) SetAnnotations(m map[string]string) { u.setStringMap("annotations", m) }

func (u *Unstructured) stringMap(key string) map[string]string {
	raw, _ := NestedField(u.Object, "metadata", key).(map[string]any)
	if raw == nil {
		return nil
	}
	out := make(map[string]string, len(raw))
	for k, v := range raw {
		s, _ := v.(string)
		out[k] = s
	}
	return out
}

func (u *Unstructured) setStringMap(key string, m map[string]string) {
	u.ensure()
	md, _ := u.Object["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		u.Object["metadata"] = md
	}
	if len(m) == 0 {
		delete(md, key)
		return
	}
	out := make(map[string]any, len(m))
	for k, v := range maps.All(m) {
		out[k] = v
	}
	md[key] = out
}

// IsList reports whether the object is a list: it has an items array.
func (u *Unstructured) IsList() bool {
	_, ok := u.Object["items"].([]any)
	return ok
}

// Items returns the elements of a list object, each with the list's item
// kind filled in when it lacks one (kind minus "List").
func (u *Unstructured) Items() []*Unstructured {
	raw, _ := u.Object["items"].([]any)
	itemKind := strings.TrimSuffix(u.GetKind(), "List")
	out := make([]*Unstructured, 0, len(raw))
	for _, it := range raw {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		item := &Unstructured{Object: m}
		if item.GetKind() == "" && itemKind != "" && u.GetKind() != "List" {
			item.Object["kind"] = itemKind
			item.Object["apiVersion"] = u.GetAPIVersion()
		}
		out = append(out, item)
	}
	return out
}

// NestedField returns the value at the path of keys, or nil.
func NestedField(obj map[string]any, path ...string) any {
	var cur any = obj
	for _, k := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[k]
	}
	return cur
}

// NestedString returns the string at the path of keys, or "".
func NestedString(obj map[string]any, path ...string) string {
	s, _ := NestedField(obj, path...).(string)
	return s
}

// SetNestedField sets the value at the path of keys, making the maps on the
// way.
func SetNestedField(obj map[string]any, value any, path ...string) {
	cur := obj
	for _, k := range path[:len(path)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[k] = next
		}
		cur = next
	}
	cur[path[len(path)-1]] = value
}
