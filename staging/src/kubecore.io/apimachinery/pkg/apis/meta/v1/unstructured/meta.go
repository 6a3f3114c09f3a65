package unstructured

import (
	"encoding/json"
	"strconv"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
)

// GetObjectMeta returns a metav1.Object that reads and writes the object's
// metadata map in place, so that code written for typed objects (a generic
// store, a cache) handles unstructured ones too.
func (u *Unstructured) GetObjectMeta() metav1.Object { return metadata{u} }

// metadata is the metav1.Object view of an Unstructured's metadata map.
type metadata struct{ u *Unstructured }

var _ metav1.Object = metadata{}

func (m metadata) str(key string) string { return NestedString(m.u.Object, "metadata", key) }

func (m metadata) GetNamespace() string          { return m.u.GetNamespace() }
func (m metadata) SetNamespace(ns string)        { m.u.SetNamespace(ns) }
func (m metadata) GetName() string               { return m.u.GetName() }
func (m metadata) SetName(name string)           { m.u.SetName(name) }
func (m metadata) GetGenerateName() string       { return m.u.GetGenerateName() }
func (m metadata) SetGenerateName(name string)   { m.u.setMeta("generateName", name) }
func (m metadata) GetUID() types.UID             { return types.UID(m.str("uid")) }
func (m metadata) SetUID(uid types.UID)          { m.u.setMeta("uid", string(uid)) }
func (m metadata) GetResourceVersion() string    { return m.u.GetResourceVersion() }
func (m metadata) SetResourceVersion(rv string)  { m.u.SetResourceVersion(rv) }
func (m metadata) GetSelfLink() string           { return m.str("selfLink") }
func (m metadata) SetSelfLink(link string)       { m.u.setMeta("selfLink", link) }
func (m metadata) GetLabels() map[string]string  { return m.u.GetLabels() }
func (m metadata) SetLabels(l map[string]string) { m.u.SetLabels(l) }
func (m metadata) GetAnnotations() map[string]string {
	return m.u.GetAnnotations()
}
func (m metadata) SetAnnotations(a map[string]string) { m.u.SetAnnotations(a) }

// GetGeneration returns metadata.generation, 0 when absent or not a
// number.
func (m metadata) GetGeneration() int64 {
	n, _ := Int64(NestedField(m.u.Object, "metadata", "generation"))
	return n
}

// SetGeneration sets metadata.generation (0 removes it).
func (m metadata) SetGeneration(g int64) {
	if g == 0 {
		m.u.removeMeta("generation")
		return
	}
	m.u.setMetaValue("generation", g)
}

func (m metadata) GetCreationTimestamp() metav1.Time {
	var t metav1.Time
	m.u.metaInto("creationTimestamp", &t)
	return t
}

func (m metadata) SetCreationTimestamp(t metav1.Time) {
	if t.IsZero() {
		m.u.removeMeta("creationTimestamp")
		return
	}
	m.u.setMetaJSON("creationTimestamp", t)
}

func (m metadata) GetDeletionTimestamp() *metav1.Time {
	if NestedField(m.u.Object, "metadata", "deletionTimestamp") == nil {
		return nil
	}
	t := &metav1.Time{}
	m.u.metaInto("deletionTimestamp", t)
	return t
}

func (m metadata) SetDeletionTimestamp(t *metav1.Time) {
	if t == nil {
		m.u.removeMeta("deletionTimestamp")
		return
	}
	m.u.setMetaJSON("deletionTimestamp", t)
}

func (m metadata) GetDeletionGracePeriodSeconds() *int64 {
	n, ok := Int64(NestedField(m.u.Object, "metadata", "deletionGracePeriodSeconds"))
	if !ok {
		return nil
	}
	return &n
}

func (m metadata) SetDeletionGracePeriodSeconds(s *int64) {
	if s == nil {
		m.u.removeMeta("deletionGracePeriodSeconds")
		return
	}
	m.u.setMetaValue("deletionGracePeriodSeconds", *s)
}

func (m metadata) GetFinalizers() []string {
	var out []string
	m.u.metaInto("finalizers", &out)
	return out
}

func (m metadata) SetFinalizers(f []string) {
	if len(f) == 0 {
		m.u.removeMeta("finalizers")
		return
	}
	m.u.setMetaJSON("finalizers", f)
}

func (m metadata) GetOwnerReferences() []metav1.OwnerReference {
	var out []metav1.OwnerReference
	m.u.metaInto("ownerReferences", &out)
	return out
}

func (m metadata) SetOwnerReferences(refs []metav1.OwnerReference) {
	if len(refs) == 0 {
		m.u.removeMeta("ownerReferences")
		return
	}
	m.u.setMetaJSON("ownerReferences", refs)
}

func (m metadata) GetManagedFields() []metav1.ManagedFieldsEntry {
	var out []metav1.ManagedFieldsEntry
	m.u.metaInto("managedFields", &out)
	return out
}

func (m metadata) SetManagedFields(f []metav1.ManagedFieldsEntry) {
	if len(f) == 0 {
		m.u.removeMeta("managedFields")
		return
	}
	m.u.setMetaJSON("managedFields", f)
}

// metaInto decodes metadata.<key> into out; a value of the wrong shape
// leaves out as it is (the object's validation reports it).
func (u *Unstructured) metaInto(key string, out any) {
	v := NestedField(u.Object, "metadata", key)
	if v == nil {
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	_ = json.Unmarshal(data, out)
}

// setMetaJSON sets metadata.<key> to v as its JSON value.
func (u *Unstructured) setMetaJSON(key string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	value, err := DecodeJSONValue(data)
	if err != nil {
		return
	}
	u.setMetaValue(key, value)
}

func (u *Unstructured) setMetaValue(key string, v any) {
	u.ensure()
	md, _ := u.Object["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		u.Object["metadata"] = md
	}
	md[key] = v
}

func (u *Unstructured) removeMeta(key string) {
	if md, _ := u.Object["metadata"].(map[string]any); md != nil {
		delete(md, key)
	}
}

// DecodeJSONValue decodes any JSON value, numbers as json.Number.
func DecodeJSONValue(data []byte) (any, error) {
	var v any
	if err := decoder(data).Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// Int64 returns a JSON integer held as json.Number, int64, int or float64
// (when integral).
func Int64(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := strconv.ParseInt(string(n), 10, 64)
		return i, err == nil
	case int64:
		return n, true
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case float64:
		if n == float64(int64(n)) {
			return int64(n), true
		}
	}
	return 0, false
}

// ObjectMetaOf returns m as an ObjectMeta, for code that needs the struct
// (metadata validation, PartialObjectMetadata): m itself when it is one, a
// copy of its fields otherwise.
func ObjectMetaOf(m metav1.Object) *metav1.ObjectMeta {
	if om, ok := m.(*metav1.ObjectMeta); ok {
		return om
	}
	return &metav1.ObjectMeta{
		Name: m.GetName(), GenerateName: m.GetGenerateName(), Namespace: m.GetNamespace(),
		SelfLink: m.GetSelfLink(), UID: m.GetUID(), ResourceVersion: m.GetResourceVersion(),
		Generation: m.GetGeneration(), CreationTimestamp: m.GetCreationTimestamp(),
		DeletionTimestamp: m.GetDeletionTimestamp(), DeletionGracePeriodSeconds: m.GetDeletionGracePeriodSeconds(),
		Labels: m.GetLabels(), Annotations: m.GetAnnotations(), OwnerReferences: m.GetOwnerReferences(),
		Finalizers: m.GetFinalizers(), ManagedFields: m.GetManagedFields(),
	}
}
