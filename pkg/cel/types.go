package cel

import (
	"encoding/base64"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	apischema "kubecore.io/kubecore/pkg/apiextensions/schema"
)

// reservedWords are the CEL keywords a property name is escaped from
// (__<name>__) to be usable as a field.
var reservedWords = map[string]bool{
	"true": true, "false": true, "null": true, "in": true, "as": true, "break": true,
	"const": true, "continue": true, "else": true, "for": true, "function": true, "if": true,
	"import": true, "let": true, "loop": true, "package": true, "namespace": true,
	"return": true, "var": true, "void": true, "while": true,
}

// EscapeName returns the CEL field name of a property as Kubernetes
// escapes it: keywords become __<name>__, and "__", ".", "-" and "/"
// become __underscores__, __dot__, __dash__ and __slash__. ok is false
// for a name that cannot be a field (it starts with a digit or holds
// another character).
func EscapeName(name string) (string, bool) {
	if name == "" {
		return "", false
	}
	if reservedWords[name] {
		return "__" + name + "__", true
	}
	for i, c := range name {
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		other := c == '.' || c == '-' || c == '/'
		if !letter && !other && !(i > 0 && c >= '0' && c <= '9') {
			return "", false
		}
	}
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		switch {
		case strings.HasPrefix(name[i:], "__"):
			b.WriteString("__underscores__")
			i++
		case name[i] == '.':
			b.WriteString("__dot__")
		case name[i] == '-':
			b.WriteString("__dash__")
		case name[i] == '/':
			b.WriteString("__slash__")
		default:
			b.WriteByte(name[i])
		}
	}
	return b.String(), true
}

// objectType is the CEL object type of one object node of a schema.
type objectType struct {
	t *types.Type
	// fields maps escaped field names to their types and property names.
	fields map[string]*types.Type
	names  []string
}

// objectTypePrefix starts the names of object types, so that no name
// collides with a variable's field path ("self.spec") the checker would
// otherwise take for a type.
const objectTypePrefix = "kubecore.object."

// Provider is the type provider of one structural schema: every object
// node is an object type named by its path
// ("kubecore.object.self.spec.rules.@items").
// Unknown names go to the base provider.
type Provider struct {
	base    types.Provider
	objects map[string]*objectType
	// nodeTypes maps each schema node to its CEL type.
	nodeTypes map[*apischema.Structural]*types.Type
	// overrides give nodes a type no schema can say (a quantity).
	overrides map[*apischema.Structural]*types.Type
}

var _ types.Provider = (*Provider)(nil)

// rootMetadata is what rules see of the root's metadata.
var rootMetadata = &apischema.Structural{Type: "object", Properties: map[string]*apischema.Structural{
	"name": {Type: "string"}, "generateName": {Type: "string"},
}}

// embeddedMetadata is what rules see of an embedded resource's metadata.
var embeddedMetadata = &apischema.Structural{Type: "object", Properties: map[string]*apischema.Structural{
	"name": {Type: "string"}, "generateName": {Type: "string"}, "namespace": {Type: "string"},
	"labels":      {Type: "object", AdditionalProperties: &apischema.Structural{Type: "string"}},
	"annotations": {Type: "object", AdditionalProperties: &apischema.Structural{Type: "string"}},
}}

// NewProvider builds the types of a version's schema; root is its
// openAPIV3Schema.
func NewProvider(base types.Provider, root *apischema.Structural) *Provider {
	p := &Provider{base: base, objects: map[string]*objectType{}, nodeTypes: map[*apischema.Structural]*types.Type{}}
	p.typeOf(root, objectTypePrefix+"self", true)
	return p
}

// TypeOf returns the CEL type of a node of the schema.
func (p *Provider) TypeOf(s *apischema.Structural) *types.Type {
	if t, ok := p.nodeTypes[s]; ok {
		return t
	}
	return types.DynType
}

// isDyn reports whether a node's values are free-form.
func isDyn(s *apischema.Structural) bool {
	if s == nil || s.IntOrString {
		return true
	}
	if s.Type == "" {
		return true
	}
	return s.Type == "object" && s.PreserveUnknownFields && len(s.Properties) == 0 && s.AdditionalProperties == nil && !s.EmbeddedResource
}

// objectProperties returns the properties rules see of an object node.
func objectProperties(s *apischema.Structural, root bool) map[string]*apischema.Structural {
	props := s.Properties
	if !root && !s.EmbeddedResource {
		return props
	}
	out := make(map[string]*apischema.Structural, len(props)+3)
	for k, v := range props {
		out[k] = v
	}
	out["apiVersion"] = &apischema.Structural{Type: "string"}
	out["kind"] = &apischema.Structural{Type: "string"}
	if root {
		out["metadata"] = rootMetadata
	} else if _, ok := out["metadata"]; !ok {
		out["metadata"] = embeddedMetadata
	}
	return out
}

func (p *Provider) typeOf(s *apischema.Structural, path string, root bool) *types.Type {
	t := p.computeType(s, path, root)
	p.nodeTypes[s] = t
	return t
}

func (p *Provider) computeType(s *apischema.Structural, path string, root bool) *types.Type {
	if t, ok := p.overrides[s]; ok {
		return t
	}
	if isDyn(s) {
		return types.DynType
	}
	switch s.Type {
	case "object":
		if s.AdditionalProperties != nil && len(s.Properties) == 0 {
			return types.NewMapType(types.StringType, p.typeOf(s.AdditionalProperties, path+".@values", false))
		}
		ot := &objectType{t: types.NewObjectType(path), fields: map[string]*types.Type{}}
		p.objects[path] = ot
		props := objectProperties(s, root)
		names := make([]string, 0, len(props))
		for k := range props {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, name := range names {
			esc, ok := EscapeName(name)
			if !ok {
				continue
			}
			ot.fields[esc] = p.typeOf(props[name], path+"."+name, false)
			ot.names = append(ot.names, esc)
		}
		return ot.t
	case "array":
		if s.Items == nil {
			return types.NewListType(types.DynType)
		}
		return types.NewListType(p.typeOf(s.Items, path+".@items", false))
	case "string":
		switch s.Format {
		case "byte":
			return types.BytesType
		case "duration":
			return types.DurationType
		case "date", "date-time":
			return types.TimestampType
		}
		return types.StringType
	case "integer":
		return types.IntType
	case "number":
		return types.DoubleType
	case "boolean":
		return types.BoolType
	}
	return types.DynType
}

// EnumValue implements types.Provider.
func (p *Provider) EnumValue(name string) ref.Val { return p.base.EnumValue(name) }

// FindIdent implements types.Provider.
func (p *Provider) FindIdent(name string) (ref.Val, bool) { return p.base.FindIdent(name) }

// FindStructType implements types.Provider.
func (p *Provider) FindStructType(name string) (*types.Type, bool) {
	if ot, ok := p.objects[name]; ok {
		return types.NewTypeTypeWithParam(ot.t), true
	}
	return p.base.FindStructType(name)
}

// FindStructFieldNames implements types.Provider.
func (p *Provider) FindStructFieldNames(name string) ([]string, bool) {
	if ot, ok := p.objects[name]; ok {
		return ot.names, true
	}
	return p.base.FindStructFieldNames(name)
}

// FindStructFieldType implements types.Provider.
func (p *Provider) FindStructFieldType(name, fieldName string) (*types.FieldType, bool) {
	if ot, ok := p.objects[name]; ok {
		t, found := ot.fields[fieldName]
		if !found {
			return nil, false
		}
		return &types.FieldType{Type: t}, true
	}
	return p.base.FindStructFieldType(name, fieldName)
}

// NewValue implements types.Provider: objects of a schema cannot be built
// in an expression.
func (p *Provider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if _, ok := p.objects[name]; ok {
		return types.NewErr("object construction of %s is not supported", name)
	}
	return p.base.NewValue(name, fields)
}

// objectVal is an object of a schema: a map of its escaped fields whose
// type is the node's object type.
type objectVal struct {
	traits.Mapper
	typ *types.Type
}

func (o objectVal) Type() ref.Type { return o.typ }

// Value converts a JSON value (as decoded into unstructured content) to a
// CEL value typed by node s of the schema p was built from.
func (p *Provider) Value(s *apischema.Structural, v any) ref.Val {
	return p.value(s, v, false)
}

// RootValue converts a whole custom object.
func (p *Provider) RootValue(s *apischema.Structural, obj map[string]any) ref.Val {
	return p.value(s, obj, true)
}

func (p *Provider) value(s *apischema.Structural, v any, root bool) ref.Val {
	if v == nil {
		return types.NullValue
	}
	if isDyn(s) {
		return dynValue(v)
	}
	switch s.Type {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return types.NewErr("expected an object, got %T", v)
		}
		if s.AdditionalProperties != nil && len(s.Properties) == 0 {
			out := make(map[ref.Val]ref.Val, len(m))
			for k, e := range m {
				out[types.String(k)] = p.value(s.AdditionalProperties, e, false)
			}
			return types.NewRefValMap(types.DefaultTypeAdapter, out)
		}
		props := objectProperties(s, root)
		out := make(map[ref.Val]ref.Val, len(m))
		for k, e := range m {
			ps, ok := props[k]
			if !ok {
				continue
			}
			esc, ok := EscapeName(k)
			if !ok {
				continue
			}
			if ps == rootMetadata || ps == embeddedMetadata {
				e = filterMetadata(e, ps)
			}
			out[types.String(esc)] = p.value(ps, e, false)
		}
		t := p.nodeTypes[s]
		if t == nil {
			t = types.DynType
		}
		return objectVal{Mapper: types.NewRefValMap(types.DefaultTypeAdapter, out), typ: t}
	case "array":
		l, ok := v.([]any)
		if !ok {
			return types.NewErr("expected a list, got %T", v)
		}
		out := make([]ref.Val, len(l))
		for i, e := range l {
			out[i] = p.value(s.Items, e, false)
		}
		return types.NewRefValList(types.DefaultTypeAdapter, out)
	case "string":
		str, ok := v.(string)
		if !ok {
			return types.NewErr("expected a string, got %T", v)
		}
		switch s.Format {
		case "byte":
			b, err := base64.StdEncoding.DecodeString(str)
			if err != nil {
				return types.NewErr("base64 decoding failed: %v", err)
			}
			return types.Bytes(b)
		case "duration":
			d, err := time.ParseDuration(str)
			if err != nil {
				return types.NewErr("duration decoding failed: %v", err)
			}
			return types.Duration{Duration: d}
		case "date":
			t, err := time.Parse(time.DateOnly, str)
			if err != nil {
				return types.NewErr("date decoding failed: %v", err)
			}
			return types.Timestamp{Time: t}
		case "date-time":
			t, err := time.Parse(time.RFC3339Nano, str)
			if err != nil {
				return types.NewErr("date-time decoding failed: %v", err)
			}
			return types.Timestamp{Time: t}
		}
		return types.String(str)
	case "integer":
		if i, ok := toInt(v); ok {
			return types.Int(i)
		}
		return types.NewErr("expected an integer, got %v", v)
	case "number":
		if f, ok := toFloat(v); ok {
			return types.Double(f)
		}
		return types.NewErr("expected a number, got %v", v)
	case "boolean":
		if b, ok := v.(bool); ok {
			return types.Bool(b)
		}
		return types.NewErr("expected a boolean, got %T", v)
	}
	return dynValue(v)
}

// filterMetadata keeps the metadata fields rules may see.
func filterMetadata(v any, s *apischema.Structural) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, e := range m {
		if _, ok := s.Properties[k]; ok {
			out[k] = e
		}
	}
	return out
}

// dynValue converts a free-form JSON value.
func dynValue(v any) ref.Val {
	switch t := v.(type) {
	case nil:
		return types.NullValue
	case map[string]any:
		out := make(map[ref.Val]ref.Val, len(t))
		for k, e := range t {
			out[types.String(k)] = dynValue(e)
		}
		return types.NewRefValMap(types.DefaultTypeAdapter, out)
	case []any:
		out := make([]ref.Val, len(t))
		for i, e := range t {
			out[i] = dynValue(e)
		}
		return types.NewRefValList(types.DefaultTypeAdapter, out)
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return types.Int(i)
		}
		f, err := t.Float64()
		if err != nil {
			return types.NewErr("invalid number %q", t)
		}
		return types.Double(f)
	case float64:
		return types.Double(t)
	}
	return types.DefaultTypeAdapter.NativeToValue(v)
}

func toInt(v any) (int64, bool) {
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

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// DynValue converts a free-form JSON value (numbers as json.Number or
// float64) to a CEL value without a schema: objects become maps, whole
// numbers ints. Admission policies see objects this way.
func DynValue(v any) ref.Val { return dynValue(v) }
