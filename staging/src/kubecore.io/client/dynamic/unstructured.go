package dynamic

import (
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Unstructured is an API object of any kind held as its JSON map; the
// type lives in apimachinery, where the API server uses it too.
type Unstructured = unstructured.Unstructured

// DeepCopyJSONValue copies a value made of JSON maps, slices and scalars.
func DeepCopyJSONValue(v any) any { return unstructured.DeepCopyJSONValue(v) }

// DecodeJSONObject decodes a JSON object with json.Number numbers.
func DecodeJSONObject(b []byte) (map[string]any, error) { return unstructured.DecodeJSONObject(b) }

// NestedField returns the value at the path of keys, or nil.
func NestedField(obj map[string]any, path ...string) any {
	return unstructured.NestedField(obj, path...)
}

// NestedString returns the string at the path of keys, or "".
func NestedString(obj map[string]any, path ...string) string {
	return unstructured.NestedString(obj, path...)
}

// SetNestedField sets the value at the path of keys, making the maps on
// the way.
func SetNestedField(obj map[string]any, value any, path ...string) {
	unstructured.SetNestedField(obj, value, path...)
}
