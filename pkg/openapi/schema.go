package openapi

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// Schema is the subset of an OpenAPI 3.0 schema object the documents use,
// with Kubernetes' extensions.
type Schema struct {
	Ref                  string             `json:"$ref,omitempty"`
	AllOf                []*Schema          `json:"allOf,omitempty"`
	Description          string             `json:"description,omitempty"`
	Type                 string             `json:"type,omitempty"`
	Format               string             `json:"format,omitempty"`
	Items                *Schema            `json:"items,omitempty"`
	Properties           map[string]*Schema `json:"properties,omitempty"`
	AdditionalProperties *Schema            `json:"additionalProperties,omitempty"`
	Required             []string           `json:"required,omitempty"`
	Default              any                `json:"default,omitempty"`
	UniqueItems          bool               `json:"uniqueItems,omitempty"`

	// The value validations of custom resource schemas.
	Nullable  bool     `json:"nullable,omitempty"`
	Enum      []any    `json:"enum,omitempty"`
	Pattern   string   `json:"pattern,omitempty"`
	Minimum   *float64 `json:"minimum,omitempty"`
	Maximum   *float64 `json:"maximum,omitempty"`
	MinLength *int64   `json:"minLength,omitempty"`
	MaxLength *int64   `json:"maxLength,omitempty"`
	MinItems  *int64   `json:"minItems,omitempty"`
	MaxItems  *int64   `json:"maxItems,omitempty"`

	GroupVersionKind      []GVK  `json:"x-kubernetes-group-version-kind,omitempty"`
	PatchStrategy         string `json:"x-kubernetes-patch-strategy,omitempty"`
	PatchMergeKey         string `json:"x-kubernetes-patch-merge-key,omitempty"`
	IntOrString           bool   `json:"x-kubernetes-int-or-string,omitempty"`
	PreserveUnknownFields bool   `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
	EmbeddedResource      bool   `json:"x-kubernetes-embedded-resource,omitempty"`

	// How server-side apply merges the value, from the Go types'
	// +listType, +listMapKey, +mapType and +structType markers.
	ListType    string   `json:"x-kubernetes-list-type,omitempty"`
	ListMapKeys []string `json:"x-kubernetes-list-map-keys,omitempty"`
	MapType     string   `json:"x-kubernetes-map-type,omitempty"`
}

// GVK is the value of x-kubernetes-group-version-kind.
type GVK struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

func gvkOf(k schema.GroupVersionKind) GVK {
	return GVK{Group: k.Group, Kind: k.Kind, Version: k.Version}
}

// refPrefix starts every reference to a component schema.
const refPrefix = "#/components/schemas/"

// special are the types with a custom JSON encoding, keyed by
// "<import path>.<name>". A named entry becomes a component schema; an
// unnamed one is inlined.
type special struct {
	named  bool
	schema Schema
}

func specialTypes() map[string]special {
	return map[string]special{
		"kubecore.io/apimachinery/pkg/apis/meta/v1.Time":      {true, Schema{Type: "string", Format: "date-time"}},
		"kubecore.io/apimachinery/pkg/apis/meta/v1.MicroTime": {true, Schema{Type: "string", Format: "date-time"}},
		"kubecore.io/apimachinery/pkg/apis/meta/v1.Duration":  {true, Schema{Type: "string"}},
		"kubecore.io/apimachinery/pkg/apis/meta/v1.FieldsV1":  {true, Schema{Type: "object"}},
		"kubecore.io/apimachinery/pkg/api/resource.Quantity":  {true, Schema{Type: "string"}},
		"kubecore.io/apimachinery/pkg/util/intstr.IntOrString": {true, Schema{
			Type: "string", Format: "int-or-string", IntOrString: true,
		}},
		"kubecore.io/apimachinery/pkg/runtime.RawExtension": {true, Schema{Type: "object"}},
		// The free-form values of a CustomResourceDefinition's schema.
		"kubecore.io/api/apiextensions/v1.JSON":                   {true, Schema{PreserveUnknownFields: true}},
		"kubecore.io/api/apiextensions/v1.JSONSchemaPropsOrArray": {true, Schema{PreserveUnknownFields: true}},
		"kubecore.io/api/apiextensions/v1.JSONSchemaPropsOrBool":  {true, Schema{PreserveUnknownFields: true}},
		"encoding/json.RawMessage":                                {false, Schema{Type: "object"}},
	}
}

var (
	marshalerType = reflect.TypeFor[json.Marshaler]()
	byteType      = reflect.TypeFor[byte]()
)

// schemaBuilder turns Go types into component schemas by reflection.
type schemaBuilder struct {
	docs     map[string]string
	markers  map[string][]string
	special  map[string]special
	gvks     map[reflect.Type][]GVK
	names    map[reflect.Type]string
	schemas  map[string]*Schema
	building map[reflect.Type]bool
}

func newSchemaBuilder(gvks map[reflect.Type][]GVK) *schemaBuilder {
	return &schemaBuilder{
		docs:     typeDocs(),
		markers:  typeMarkers(),
		special:  specialTypes(),
		gvks:     gvks,
		names:    map[reflect.Type]string{},
		schemas:  map[string]*Schema{},
		building: map[reflect.Type]bool{},
	}
}

func typeKey(t reflect.Type) string { return t.PkgPath() + "." + t.Name() }

// componentName is the Kubernetes name of a kubecore type:
// kubecore.io/api/apps/v1.Deployment is io.k8s.api.apps.v1.Deployment.
func componentName(t reflect.Type) (string, error) {
	rest, ok := strings.CutPrefix(t.PkgPath(), "kubecore.io/")
	if !ok || t.Name() == "" || strings.ContainsAny(t.Name(), "[]") {
		return "", fmt.Errorf("type %s has no OpenAPI name", t)
	}
	return "io.k8s." + strings.ReplaceAll(rest, "/", ".") + "." + t.Name(), nil
}

// define makes sure the component schema of the named type t exists and
// returns its name.
func (b *schemaBuilder) define(t reflect.Type) (string, error) {
	if name, ok := b.names[t]; ok {
		return name, nil
	}
	name, err := componentName(t)
	if err != nil {
		return "", err
	}
	b.names[t] = name
	s := &Schema{Description: b.docs[typeKey(t)], GroupVersionKind: b.gvks[t]}
	if sp, ok := b.special[typeKey(t)]; ok {
		d, g := s.Description, s.GroupVersionKind
		*s = sp.schema
		s.Description, s.GroupVersionKind = d, g
		b.schemas[name] = s
		return name, nil
	}
	if t.Kind() != reflect.Struct {
		return "", fmt.Errorf("type %s: only structs become component schemas", t)
	}
	if reflect.PointerTo(t).Implements(marshalerType) {
		return "", fmt.Errorf("type %s encodes itself to JSON and has no OpenAPI schema", t)
	}
	b.schemas[name] = s
	s.Type = "object"
	s.Properties = map[string]*Schema{}
	if err := applyMarkers(s, b.markers[typeKey(t)]); err != nil {
		return "", fmt.Errorf("type %s: %w", t, err)
	}
	if err := b.addFields(s, t); err != nil {
		delete(b.schemas, name)
		delete(b.names, t)
		return "", err
	}
	sort.Strings(s.Required)
	return name, nil
}

// addFields adds the JSON fields of struct t (inlined embeds included) to s.
func (b *schemaBuilder) addFields(s *Schema, t reflect.Type) error {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, hasTag := f.Tag.Lookup("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" && opts == "" {
			continue
		}
		if !f.IsExported() && !f.Anonymous {
			continue
		}
		if f.Anonymous && (name == "" || !hasTag) {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				if err := b.addFields(s, ft); err != nil {
					return err
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fs, err := b.fieldSchema(f.Type, b.docs[typeKey(t)+"."+f.Name])
		if err != nil {
			return fmt.Errorf("%s.%s: %w", t, f.Name, err)
		}
		fs.PatchStrategy = f.Tag.Get("patchStrategy")
		fs.PatchMergeKey = f.Tag.Get("patchMergeKey")
		if err := applyMarkers(fs, b.markers[typeKey(t)+"."+f.Name]); err != nil {
			return fmt.Errorf("%s.%s: %w", t, f.Name, err)
		}
		s.Properties[name] = fs
		if !strings.Contains(","+opts+",", ",omitempty,") && !strings.Contains(","+opts+",", ",omitzero,") {
			s.Required = append(s.Required, name)
		}
	}
	return nil
}

// fieldSchema is the schema of a value of type t described by description.
func (b *schemaBuilder) fieldSchema(t reflect.Type, description string) (*Schema, error) {
	pointer := false
	for t.Kind() == reflect.Pointer {
		t, pointer = t.Elem(), true
	}
	if sp, ok := b.special[typeKey(t)]; ok && !sp.named {
		s := sp.schema
		s.Description = description
		return &s, nil
	}
	if t.Kind() == reflect.Struct || b.isNamedSpecial(t) {
		name, err := b.define(t)
		if err != nil {
			return nil, err
		}
		s := &Schema{AllOf: []*Schema{{Ref: refPrefix + name}}, Description: description}
		if !pointer && t.Kind() == reflect.Struct && !b.isNamedSpecial(t) {
			s.Default = map[string]any{}
		}
		return s, nil
	}
	s := &Schema{Description: description}
	switch t.Kind() {
	case reflect.String:
		s.Type = "string"
	case reflect.Bool:
		s.Type = "boolean"
	case reflect.Int32, reflect.Uint32, reflect.Int16, reflect.Uint16, reflect.Int8, reflect.Uint8:
		s.Type, s.Format = "integer", "int32"
	case reflect.Int64, reflect.Uint64, reflect.Int, reflect.Uint:
		s.Type, s.Format = "integer", "int64"
	case reflect.Float32, reflect.Float64:
		s.Type, s.Format = "number", "double"
	case reflect.Slice, reflect.Array:
		if t.Elem() == byteType {
			s.Type, s.Format = "string", "byte"
			break
		}
		items, err := b.fieldSchema(t.Elem(), "")
		if err != nil {
			return nil, err
		}
		s.Type, s.Items = "array", items
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, fmt.Errorf("map key %s is not a string", t.Key())
		}
		values, err := b.fieldSchema(t.Elem(), "")
		if err != nil {
			return nil, err
		}
		s.Type, s.AdditionalProperties = "object", values
	default:
		return nil, fmt.Errorf("type %s has no OpenAPI schema", t)
	}
	if t.Name() != "" && t.Kind() != reflect.Slice && t.Kind() != reflect.Map && reflect.PointerTo(t).Implements(marshalerType) {
		return nil, fmt.Errorf("type %s encodes itself to JSON and has no OpenAPI schema", t)
	}
	return s, nil
}

// applyMarkers sets the list, map and struct types the markers of a type or
// field declare: +listType (atomic, set, map) and its +listMapKey on arrays,
// +mapType and +structType (atomic, granular) on objects and references,
// and a +default value (JSON).
func applyMarkers(s *Schema, markers []string) error {
	for _, m := range markers {
		name, value, _ := strings.Cut(m, "=")
		switch name {
		case "listType":
			if s.Type != "array" {
				return fmt.Errorf("+listType on a %q schema", s.Type)
			}
			switch value {
			case "atomic", "set", "map":
				s.ListType = value
			default:
				return fmt.Errorf("unknown +listType %q", value)
			}
		case "listMapKey":
			s.ListMapKeys = append(s.ListMapKeys, value)
		case "default":
			if err := json.Unmarshal([]byte(value), &s.Default); err != nil {
				return fmt.Errorf("+default=%s: %w", value, err)
			}
		case "mapType", "structType":
			switch value {
			case "atomic", "granular":
				s.MapType = value
			default:
				return fmt.Errorf("unknown +%s %q", name, value)
			}
		}
	}
	if (s.ListType == "map") != (len(s.ListMapKeys) > 0) {
		return fmt.Errorf("+listMapKey goes with +listType=map and it needs one (listType %q, keys %q)", s.ListType, s.ListMapKeys)
	}
	return nil
}

func (b *schemaBuilder) isNamedSpecial(t reflect.Type) bool {
	sp, ok := b.special[typeKey(t)]
	return ok && sp.named
}

// closure returns the component schemas reachable from roots, by name.
func (b *schemaBuilder) closure(roots []string) map[string]*Schema {
	out := map[string]*Schema{}
	var visit func(s *Schema)
	add := func(name string) {
		if _, ok := out[name]; ok {
			return
		}
		s, ok := b.schemas[name]
		if !ok {
			return
		}
		out[name] = s
		visit(s)
	}
	visit = func(s *Schema) {
		if s == nil {
			return
		}
		if name, ok := strings.CutPrefix(s.Ref, refPrefix); ok {
			if _, seen := out[name]; !seen && b.schemas[name] != nil {
				out[name] = b.schemas[name]
				visit(b.schemas[name])
			}
		}
		for _, a := range s.AllOf {
			visit(a)
		}
		visit(s.Items)
		visit(s.AdditionalProperties)
		for _, p := range s.Properties {
			visit(p)
		}
	}
	for _, r := range roots {
		add(r)
	}
	return out
}
