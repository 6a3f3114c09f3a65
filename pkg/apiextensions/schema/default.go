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

// NeedsDefault reports whether Default would change obj: a field with a
// default is missing, or a field that is not nullable is null, at a level
// that exists. Readers of shared objects (the watch cache's) copy only
// those that do.
func NeedsDefault(obj map[string]any, s *Structural) bool {
	return needsDefault(obj, s)
}

func needsDefault(v any, s *Structural) bool {
	if s == nil {
		return false
	}
	switch t := v.(type) {
	case map[string]any:
		for k, ps := range s.Properties {
			value, ok := t[k]
			if ok && value == nil && !ps.Nullable {
				return true
			}
			if !ok && ps.Default != nil {
				return true
			}
		}
		for k, e := range t {
			if ps, ok := s.Properties[k]; ok {
				if needsDefault(e, ps) {
					return true
				}
			} else if s.AdditionalProperties != nil && needsDefault(e, s.AdditionalProperties) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if needsDefault(e, s.Items) {
				return true
			}
		}
	}
	return false
}

// HasDefaults reports whether the schema gives a default anywhere. Without
// one, Default only drops nulls that are not nullable, which no stored
// object has (writes are defaulted).
func HasDefaults(s *Structural) bool {
	if s == nil {
		return false
	}
	if s.Default != nil {
		return true
	}
	for _, ps := range s.Properties {
		if HasDefaults(ps) {
			return true
		}
	}
	return HasDefaults(s.AdditionalProperties) || HasDefaults(s.Items)
}
