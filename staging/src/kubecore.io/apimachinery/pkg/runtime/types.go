package runtime

import (
	"encoding/json"
	"reflect"
)

// RawExtension holds an embedded object: the items of a metav1.List, the
// object of a watch event. On the wire it is the object's JSON itself.
type RawExtension struct {
	// Raw is the object's JSON.
	Raw []byte `json:"-"`
	// Object, when Raw is empty, is marshaled in its place, with the kind
	// its TypeMeta holds.
	Object Object `json:"-"`
}

// MarshalJSON writes Raw, else Object, else null.
func (re RawExtension) MarshalJSON() ([]byte, error) {
	if re.Raw != nil {
		return re.Raw, nil
	}
	if re.Object != nil {
		return json.Marshal(re.Object)
	}
	return []byte("null"), nil
}

// UnmarshalJSON keeps a copy of the JSON in Raw; null leaves Raw nil.
func (re *RawExtension) UnmarshalJSON(in []byte) error {
	if string(in) == "null" {
		re.Raw = nil
		return nil
	}
	re.Raw = append(re.Raw[:0:0], in...)
	return nil
}

// DeepCopyInto copies re into out without sharing memory.
func (re *RawExtension) DeepCopyInto(out *RawExtension) {
	*out = *re
	if re.Raw != nil {
		out.Raw = append([]byte(nil), re.Raw...)
	}
	if re.Object != nil {
		out.Object = re.Object.DeepCopyObject()
	}
}

// DeepCopy returns a copy of re, or nil.
func (re *RawExtension) DeepCopy() *RawExtension {
	if re == nil {
		return nil
	}
	out := new(RawExtension)
	re.DeepCopyInto(out)
	return out
}

// DeepCopyJSON copies a JSON object, see DeepCopyJSONValue.
func DeepCopyJSON(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	return DeepCopyJSONValue(m).(map[string]any)
}

// DeepCopyJSONValue copies a value of the kind JSON decoding produces
// (map[string]any, []any, strings, numbers, bools, nil) without sharing
// memory. Other values are copied through reflection: pointers, slices,
// maps and exported struct fields are copied deeply, runtime.Objects with
// DeepCopyObject; what reflection cannot reach (unexported fields,
// channels, functions) is shared.
func DeepCopyJSONValue(x any) any {
	switch x := x.(type) {
	case nil, string, bool, int64, float64, int, int32, float32, json.Number:
		return x
	case map[string]any:
		if x == nil {
			return x
		}
		out := make(map[string]any, len(x))
		for k, v := range x {
			out[k] = DeepCopyJSONValue(v)
		}
		return out
	case []any:
		if x == nil {
			return x
		}
		out := make([]any, len(x))
		for i, v := range x {
			out[i] = DeepCopyJSONValue(v)
		}
		return out
	case Object:
		return x.DeepCopyObject()
	}
	return deepCopyValue(reflect.ValueOf(x)).Interface()
}

// deepCopyValue copies v by reflection; the result is not addressable.
func deepCopyValue(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(deepCopyValue(v.Elem()))
		return out
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		if c := DeepCopyJSONValue(v.Elem().Interface()); c != nil {
			out.Set(reflect.ValueOf(c))
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(deepCopyValue(v.Index(i)))
		}
		return out
	case reflect.Array:
		out := reflect.New(v.Type()).Elem()
		for i := range v.Len() {
			out.Index(i).Set(deepCopyValue(v.Index(i)))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(it.Key(), deepCopyValue(it.Value()))
		}
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		for i := range v.NumField() {
			if out.Field(i).CanSet() {
				out.Field(i).Set(deepCopyValue(v.Field(i)))
			}
		}
		return out
	}
	return v
}
