package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"unicode/utf8"

	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// Validate checks a custom object (its decoded JSON map) against the
// version's schema. apiVersion, kind and metadata are the server's: only
// what the schema says of metadata.name and metadata.generateName is
// checked here.
func Validate(s *Structural, obj map[string]any) field.ErrorList {
	return validateObject(nil, s, obj, true)
}

// validateValue checks v against s and everything below it.
func validateValue(p *field.Path, s *Structural, v any) field.ErrorList {
	if v == nil {
		if s.Nullable || s.Type == "" && !s.IntOrString {
			return nil
		}
		want := s.Type
		if s.IntOrString {
			want = "integer or string"
		}
		return field.ErrorList{typeError(p, want, v)}
	}
	switch {
	case s.IntOrString:
		if !isInteger(v) {
			if _, ok := v.(string); !ok {
				return field.ErrorList{typeError(p, "integer or string", v)}
			}
		}
	case s.Type != "" && !hasType(v, s.Type):
		return field.ErrorList{typeError(p, s.Type, v)}
	}
	errs := checkValue(p, &s.ValueValidation, v)
	switch t := v.(type) {
	case map[string]any:
		errs = append(errs, validateObject(p, s, t, false)...)
	case []any:
		if s.Items != nil {
			for i, e := range t {
				errs = append(errs, validateValue(p.Index(i), s.Items, e)...)
			}
		}
		errs = append(errs, validateListType(p, s, t)...)
	}
	return errs
}

// validateListType checks the uniqueness x-kubernetes-list-type asks for:
// of the items of a set, of the keys of a map list's items.
func validateListType(p *field.Path, s *Structural, items []any) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, e := range items {
		var key any
		switch s.ListType {
		case "set":
			key = e
		case "map":
			m, ok := e.(map[string]any)
			if !ok {
				continue
			}
			keys := make(map[string]any, len(s.ListMapKeys))
			for _, k := range s.ListMapKeys {
				if v, set := m[k]; set {
					keys[k] = v
				}
			}
			key = keys
		default:
			return nil
		}
		enc, err := json.Marshal(key)
		if err != nil {
			continue
		}
		if seen[string(enc)] {
			errs = append(errs, field.Duplicate(p.Index(i), key))
			continue
		}
		seen[string(enc)] = true
	}
	return errs
}

// validateObject checks the fields of an object value.
func validateObject(p *field.Path, s *Structural, obj map[string]any, root bool) field.ErrorList {
	var errs field.ErrorList
	if root {
		errs = append(errs, checkValue(p, &s.ValueValidation, obj)...)
	}
	if s.EmbeddedResource {
		errs = append(errs, validateEmbedded(p, obj)...)
	}
	for _, name := range sortedKeys(obj) {
		v := obj[name]
		child := childPath(p, name)
		if root && (name == "apiVersion" || name == "kind") {
			continue
		}
		if root && name == "metadata" {
			errs = append(errs, validateRootMetadata(child, s.Properties[name], v)...)
			continue
		}
		switch ps, ok := s.Properties[name]; {
		case ok:
			errs = append(errs, validateValue(child, ps, v)...)
		case s.AdditionalProperties != nil:
			errs = append(errs, validateValue(child, s.AdditionalProperties, v)...)
		}
	}
	return errs
}

// validateRootMetadata checks what the schema says of metadata.name and
// metadata.generateName.
func validateRootMetadata(p *field.Path, s *Structural, v any) field.ErrorList {
	md, ok := v.(map[string]any)
	if s == nil || !ok {
		return nil
	}
	var errs field.ErrorList
	for _, name := range []string{"name", "generateName"} {
		if ps, ok := s.Properties[name]; ok {
			if value, set := md[name]; set {
				errs = append(errs, validateValue(p.Child(name), ps, value)...)
			}
		}
	}
	return errs
}

// validateEmbedded checks that an embedded object names its apiVersion
// and kind.
func validateEmbedded(p *field.Path, obj map[string]any) field.ErrorList {
	var errs field.ErrorList
	for _, name := range []string{"apiVersion", "kind"} {
		s, _ := obj[name].(string)
		if s == "" {
			errs = append(errs, field.Required(childPath(p, name), "must not be empty"))
		}
	}
	if md, ok := obj["metadata"]; ok {
		if _, isMap := md.(map[string]any); !isMap {
			errs = append(errs, typeError(childPath(p, "metadata"), "object", md))
		}
	}
	return errs
}

// checkValue applies the value validations vv to v.
func checkValue(p *field.Path, vv *ValueValidation, v any) field.ErrorList {
	var errs field.ErrorList
	name := pathString(p)
	switch t := v.(type) {
	case string:
		n := int64(utf8.RuneCountInString(t))
		if vv.MaxLength != nil && n > *vv.MaxLength {
			errs = append(errs, field.TooLong(p, t, int(*vv.MaxLength)))
		}
		if vv.MinLength != nil && n < *vv.MinLength {
			errs = append(errs, field.Invalid(p, t, fmt.Sprintf("%s in body should be at least %d chars long", name, *vv.MinLength)))
		}
		if vv.Pattern != nil && !vv.Pattern.MatchString(t) {
			errs = append(errs, field.Invalid(p, t, fmt.Sprintf("%s in body should match '%s'", name, vv.Pattern.String())))
		}
	case []any:
		if vv.MaxItems != nil && int64(len(t)) > *vv.MaxItems {
			errs = append(errs, field.TooMany(p, len(t), int(*vv.MaxItems)))
		}
		if vv.MinItems != nil && int64(len(t)) < *vv.MinItems {
			errs = append(errs, field.Invalid(p, len(t), fmt.Sprintf("%s in body should have at least %d items", name, *vv.MinItems)))
		}
		if vv.Items != nil {
			for i, e := range t {
				errs = append(errs, checkValue(p.Index(i), vv.Items, e)...)
			}
		}
	case map[string]any:
		for _, r := range vv.Required {
			if _, ok := t[r]; !ok {
				errs = append(errs, field.Required(childPath(p, r), ""))
			}
		}
		if vv.MaxProperties != nil && int64(len(t)) > *vv.MaxProperties {
			errs = append(errs, field.Invalid(p, len(t), fmt.Sprintf("%s in body should have at most %d properties", name, *vv.MaxProperties)))
		}
		if vv.MinProperties != nil && int64(len(t)) < *vv.MinProperties {
			errs = append(errs, field.Invalid(p, len(t), fmt.Sprintf("%s in body should have at least %d properties", name, *vv.MinProperties)))
		}
		for _, k := range sortedKeys(vv.Properties) {
			if e, ok := t[k]; ok {
				sub := vv.Properties[k]
				errs = append(errs, checkValue(childPath(p, k), &sub, e)...)
			}
		}
	}
	if f, ok := toFloat(v); ok {
		errs = append(errs, checkNumber(p, vv, v, f)...)
	}
	if len(vv.Enum) > 0 && !inEnum(vv.Enum, v) {
		errs = append(errs, field.NotSupported(p, v, enumStrings(vv.Enum)))
	}
	for i := range vv.AllOf {
		errs = append(errs, checkValue(p, &vv.AllOf[i], v)...)
	}
	if len(vv.AnyOf) > 0 {
		matched := false
		for i := range vv.AnyOf {
			if len(checkValue(p, &vv.AnyOf[i], v)) == 0 {
				matched = true
				break
			}
		}
		if !matched {
			errs = append(errs, field.Invalid(p, v, fmt.Sprintf("%s in body must validate at least one schema (anyOf)", name)))
		}
	}
	if len(vv.OneOf) > 0 {
		matched := 0
		for i := range vv.OneOf {
			if len(checkValue(p, &vv.OneOf[i], v)) == 0 {
				matched++
			}
		}
		if matched != 1 {
			errs = append(errs, field.Invalid(p, v, fmt.Sprintf("%s in body must validate one and only one schema (oneOf)", name)))
		}
	}
	if vv.Not != nil && len(checkValue(p, vv.Not, v)) == 0 {
		errs = append(errs, field.Invalid(p, v, fmt.Sprintf("%s in body must not validate the schema (not)", name)))
	}
	return errs
}

// checkNumber applies the numeric validations.
func checkNumber(p *field.Path, vv *ValueValidation, v any, f float64) field.ErrorList {
	var errs field.ErrorList
	name := pathString(p)
	value := numberValue(v)
	if m := vv.Minimum; m != nil {
		if vv.ExclusiveMinimum && f <= *m {
			errs = append(errs, field.Invalid(p, value, fmt.Sprintf("%s in body should be greater than %v", name, *m)))
		} else if !vv.ExclusiveMinimum && f < *m {
			errs = append(errs, field.Invalid(p, value, fmt.Sprintf("%s in body should be greater than or equal to %v", name, *m)))
		}
	}
	if m := vv.Maximum; m != nil {
		if vv.ExclusiveMaximum && f >= *m {
			errs = append(errs, field.Invalid(p, value, fmt.Sprintf("%s in body should be less than %v", name, *m)))
		} else if !vv.ExclusiveMaximum && f > *m {
			errs = append(errs, field.Invalid(p, value, fmt.Sprintf("%s in body should be less than or equal to %v", name, *m)))
		}
	}
	if m := vv.MultipleOf; m != nil && *m != 0 {
		if q := f / *m; q != math.Trunc(q) {
			errs = append(errs, field.Invalid(p, value, fmt.Sprintf("%s in body should be a multiple of %v", name, *m)))
		}
	}
	return errs
}

// typeError is Kubernetes' message for a value of the wrong type.
func typeError(p *field.Path, want string, v any) *field.Error {
	got := typeName(v)
	return field.Invalid(p, got, fmt.Sprintf("%s in body must be of type %s: %q", pathString(p), want, got))
}

func pathString(p *field.Path) string {
	if p == nil {
		return "<root>"
	}
	return p.String()
}

func childPath(p *field.Path, name string) *field.Path {
	if p == nil {
		return field.NewPath(name)
	}
	return p.Child(name)
}

// typeName is the JSON type of v.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	}
	if isInteger(v) {
		return "integer"
	}
	if _, ok := toFloat(v); ok {
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// hasType reports whether v is of the OpenAPI type t.
func hasType(v any, t string) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "integer":
		return isInteger(v)
	case "number":
		_, ok := toFloat(v)
		return ok
	}
	return false
}

func isInteger(v any) bool {
	switch n := v.(type) {
	case json.Number:
		_, err := strconv.ParseInt(string(n), 10, 64)
		return err == nil
	case int, int32, int64:
		return true
	case float64:
		return n == math.Trunc(n)
	}
	return false
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// numberValue is v as a number for an error message.
func numberValue(v any) any {
	if n, ok := v.(json.Number); ok {
		if i, err := n.Int64(); err == nil {
			return i
		}
		if f, err := n.Float64(); err == nil {
			return f
		}
	}
	return v
}

func inEnum(enum []any, v any) bool {
	for _, e := range enum {
		if jsonEqual(e, v) {
			return true
		}
	}
	return false
}

// jsonEqual compares two JSON values, numbers by value.
func jsonEqual(a, b any) bool {
	fa, aNum := toFloat(a)
	fb, bNum := toFloat(b)
	if aNum || bNum {
		return aNum && bNum && fa == fb
	}
	return reflect.DeepEqual(a, b)
}

func enumStrings(enum []any) []string {
	out := make([]string, len(enum))
	for i, e := range enum {
		if s, ok := e.(string); ok {
			out[i] = s
			continue
		}
		out[i] = string(mustJSON(e))
	}
	return out
}

func mustJSON(v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		return []byte(fmt.Sprint(v))
	}
	return data
}
