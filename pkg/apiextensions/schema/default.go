package schema

import "kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"

// Default sets, in obj, the default of every field the schema gives one
// that is missing, at every level that exists. A null field that is not
// nullable is removed first, and defaulted when it has a default.
func Default(obj map[string]any, s *Structural) {
	defaultValue(obj, s)
}

func defaultValue(v any, s *Structural) {
	if s == nil {
		return
	}
	switch t := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(s.Properties) {
			ps := s.Properties[k]
			if value, ok := t[k]; ok && value == nil && !ps.Nullable {
				delete(t, k)
			}
			if _, ok := t[k]; !ok && ps.Default != nil {
				t[k] = unstructured.DeepCopyJSONValue(ps.Default)
			}
		}
		for k, e := range t {
			if ps, ok := s.Properties[k]; ok {
				defaultValue(e, ps)
			} else if s.AdditionalProperties != nil {
				defaultValue(e, s.AdditionalProperties)
			}
		}
	case []any:
		for _, e := range t {
			defaultValue(e, s.Items)
		}
	}
}
