package v1

import (
	"encoding/json"
	"maps"
	"slices"
)

// Deep copies the generator cannot derive from the struct fields: time
// wrappers (whose time.Location pointer is shared on purpose), raw JSON, and
// table cells holding arbitrary JSON values. The generated
// zz_generated.deepcopy.go calls these.

// DeepCopyInto copies t into out.
func (t *Time) DeepCopyInto(out *Time) { *out = *t }

// DeepCopy returns a copy of t, or nil.
func (t *Time) DeepCopy() *Time {
	if t == nil {
		return nil
	}
	out := *t
	return &out
}

// DeepCopyInto copies t into out.
func (t *MicroTime) DeepCopyInto(out *MicroTime) { *out = *t }

// DeepCopy returns a copy of t, or nil.
func (t *MicroTime) DeepCopy() *MicroTime {
	if t == nil {
		return nil
	}
	out := *t
	return &out
}

// DeepCopyInto copies d into out.
func (d *Duration) DeepCopyInto(out *Duration) { *out = *d }

// DeepCopy returns a copy of d, or nil.
func (d *Duration) DeepCopy() *Duration {
	if d == nil {
		return nil
	}
	out := *d
	return &out
}

// DeepCopyInto copies f into out without sharing the raw bytes.
func (f *FieldsV1) DeepCopyInto(out *FieldsV1) {
	out.Raw = slices.Clone(f.Raw)
}

// DeepCopy returns a copy of f, or nil.
func (f *FieldsV1) DeepCopy() *FieldsV1 {
	if f == nil {
		return nil
	}
	out := new(FieldsV1)
	f.DeepCopyInto(out)
	return out
}

// DeepCopyInto copies r into out, cells included.
func (r *TableRow) DeepCopyInto(out *TableRow) {
	*out = *r
	if r.Cells != nil {
		out.Cells = make([]any, len(r.Cells))
		for i, c := range r.Cells {
			out.Cells[i] = deepCopyJSONValue(c)
		}
	}
	out.Conditions = slices.Clone(r.Conditions)
	out.Object = slices.Clone(r.Object)
}

// DeepCopy returns a copy of r, or nil.
func (r *TableRow) DeepCopy() *TableRow {
	if r == nil {
		return nil
	}
	out := new(TableRow)
	r.DeepCopyInto(out)
	return out
}

// deepCopyJSONValue copies the maps and slices of a decoded JSON value.
// Scalars are immutable and returned as they are, as are values of other
// types, which a Table cell should not hold.
func deepCopyJSONValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if v == nil {
			return v
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = deepCopyJSONValue(e)
		}
		return out
	case []any:
		if v == nil {
			return v
		}
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = deepCopyJSONValue(e)
		}
		return out
	case map[string]string:
		return maps.Clone(v)
	case []string:
		return slices.Clone(v)
	case json.RawMessage:
		return slices.Clone(v)
	default:
		return v
	}
}
