package fieldmanager

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/kubecore/pkg/openapi"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// Names of the two free-form types every schema carries, as Kubernetes
// names them: an atomic value of any shape, and a value whose maps are
// merged key by key (x-kubernetes-preserve-unknown-fields).
const (
	untypedAtomic  = "__untyped_atomic_"
	untypedDeduced = "__untyped_deduced_"
)

// Component names whose JSON form is a scalar (or anything) whatever their
// OpenAPI type says: a quantity may be written as a number, a raw extension
// holds any object.
const (
	quantityModel     = "io.k8s.apimachinery.pkg.api.resource.Quantity"
	rawExtensionModel = "io.k8s.apimachinery.pkg.runtime.RawExtension"
	objectMetaModel   = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
)

const refPrefix = "#/components/schemas/"

// TypeConverter knows the structured-merge-diff type of each kind it serves.
// It is immutable and safe for concurrent use.
type TypeConverter struct {
	parser *typed.Parser
	kinds  map[schema.GroupVersionKind]typed.ParseableType
}

// Type is the parseable type of kind, if the converter knows it.
func (c *TypeConverter) Type(kind schema.GroupVersionKind) (typed.ParseableType, bool) {
	t, ok := c.kinds[kind]
	return t, ok
}

// ModelsFromDocuments collects the component schemas of every group
// version's OpenAPI v3 document (as pkg/openapi.Build returns them), by name.
func ModelsFromDocuments(docs *openapi.Documents) (map[string]*openapi.Schema, error) {
	models := map[string]*openapi.Schema{}
	keys := make([]string, 0, len(docs.GroupVersions))
	for k := range docs.GroupVersions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var doc struct {
			Components struct {
				Schemas map[string]*openapi.Schema `json:"schemas"`
			} `json:"components"`
		}
		if err := json.Unmarshal(docs.GroupVersions[k].JSON, &doc); err != nil {
			return nil, fmt.Errorf("decode openapi document %s: %w", k, err)
		}
		for name, s := range doc.Components.Schemas {
			models[name] = s
		}
	}
	return models, nil
}

// NewTypeConverter builds the types of the OpenAPI component schemas models
// (kubecore's built-in kinds), indexed by their
// x-kubernetes-group-version-kind.
func NewTypeConverter(models map[string]*openapi.Schema) (*TypeConverter, error) {
	c := &converter{}
	names := make([]string, 0, len(models))
	for name := range models {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c.define(name, models[name])
	}
	if len(c.errs) > 0 {
		return nil, fmt.Errorf("openapi models to merge schema: %s", strings.Join(c.errs, "; "))
	}
	c.addFreeForm()
	tc := &TypeConverter{
		parser: &typed.Parser{Schema: smdschema.Schema{Types: c.types}},
		kinds:  map[schema.GroupVersionKind]typed.ParseableType{},
	}
	for _, name := range names {
		for _, gvk := range models[name].GroupVersionKind {
			tc.kinds[schema.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}] = tc.parser.Type(name)
		}
	}
	return tc, nil
}

// converter turns schemas into structured-merge-diff type definitions.
type converter struct {
	types []smdschema.TypeDef
	errs  []string
}

func (c *converter) errorf(where, format string, args ...any) {
	c.errs = append(c.errs, where+": "+fmt.Sprintf(format, args...))
}

func (c *converter) define(name string, s *openapi.Schema) {
	var atom smdschema.Atom
	switch name {
	case quantityModel:
		atom = smdschema.Atom{Scalar: ptr(smdschema.Untyped)}
	case rawExtensionModel:
		atom = untypedAtomicAtom()
	default:
		atom = c.atom(name, s)
	}
	if atom == (smdschema.Atom{}) {
		return
	}
	c.types = append(c.types, smdschema.TypeDef{Name: name, Atom: atom})
}

// addFreeForm adds the two free-form types the others refer to.
func (c *converter) addFreeForm() {
	c.types = append(c.types,
		smdschema.TypeDef{Name: untypedAtomic, Atom: untypedAtomicAtom()},
		smdschema.TypeDef{Name: untypedDeduced, Atom: smdschema.Atom{
			Scalar: ptr(smdschema.Untyped),
			List:   &smdschema.List{ElementType: named(untypedAtomic), ElementRelationship: smdschema.Atomic},
			Map:    &smdschema.Map{ElementType: named(untypedDeduced), ElementRelationship: smdschema.Separable},
		}},
	)
}

func untypedAtomicAtom() smdschema.Atom {
	return smdschema.Atom{
		Scalar: ptr(smdschema.Untyped),
		List:   &smdschema.List{ElementType: named(untypedAtomic), ElementRelationship: smdschema.Atomic},
		Map:    &smdschema.Map{ElementType: named(untypedAtomic), ElementRelationship: smdschema.Atomic},
	}
}

// atom is the type of schema s found at where.
func (c *converter) atom(where string, s *openapi.Schema) smdschema.Atom {
	switch s.Type {
	case "object":
		return smdschema.Atom{Map: c.object(where, s)}
	case "array":
		return smdschema.Atom{List: c.list(where, s)}
	case "string", "integer", "number", "boolean":
		return smdschema.Atom{Scalar: ptr(scalar(s.Type, s.Format))}
	case "":
		if s.PreserveUnknownFields {
			return smdschema.Atom{Scalar: ptr(smdschema.Untyped), List: &smdschema.List{ElementType: named(untypedAtomic), ElementRelationship: smdschema.Atomic}, Map: &smdschema.Map{ElementType: named(untypedDeduced), ElementRelationship: smdschema.Separable}}
		}
		return smdschema.Atom{Scalar: ptr(smdschema.Untyped), List: c.list(where, s), Map: c.object(where, s)}
	}
	c.errorf(where, "unknown type %q", s.Type)
	return smdschema.Atom{Scalar: ptr(smdschema.Untyped)}
}

// scalar is the scalar type of an OpenAPI primitive. Strings of a format
// (date-time, int-or-string) may take other JSON forms, so they are
// untyped, as in Kubernetes.
func scalar(typ, format string) smdschema.Scalar {
	switch typ {
	case "integer", "number":
		return smdschema.Numeric
	case "boolean":
		return smdschema.Boolean
	case "string":
		if format == "" || format == "byte" {
			return smdschema.String
		}
	}
	return smdschema.Untyped
}

func (c *converter) object(where string, s *openapi.Schema) *smdschema.Map {
	m := &smdschema.Map{}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		p := s.Properties[name]
		m.Fields = append(m.Fields, smdschema.StructField{Name: name, Type: c.ref(where+"."+name, p), Default: p.Default})
	}
	switch {
	case s.AdditionalProperties != nil:
		m.ElementType = c.ref(where+"[*]", s.AdditionalProperties)
	case s.PreserveUnknownFields || len(s.Properties) == 0:
		m.ElementType = named(untypedDeduced)
	}
	m.ElementRelationship = c.mapRelationship(where, s.MapType)
	return m
}

func (c *converter) list(where string, s *openapi.Schema) *smdschema.List {
	l := &smdschema.List{ElementRelationship: smdschema.Atomic}
	if s.Items != nil {
		l.ElementType = c.ref(where+"[]", s.Items)
	} else {
		l.ElementType = named(untypedAtomic)
	}
	switch s.ListType {
	case "atomic":
	case "set":
		l.ElementRelationship = smdschema.Associative
	case "map":
		l.ElementRelationship, l.Keys = smdschema.Associative, s.ListMapKeys
	case "":
		// Without a list type, a merge patch strategy makes the list
		// associative, keyed by the merge key if there is one (Kubernetes'
		// rule for models that predate list types).
		strategy := s.PatchStrategy
		if strategy == "merge" || strategy == "merge,retainKeys" {
			l.ElementRelationship = smdschema.Associative
			if s.PatchMergeKey != "" {
				l.Keys = []string{s.PatchMergeKey}
			}
		}
	default:
		c.errorf(where, "unknown x-kubernetes-list-type %q", s.ListType)
	}
	return l
}

func (c *converter) mapRelationship(where, mapType string) smdschema.ElementRelationship {
	switch mapType {
	case "":
		return ""
	case "atomic":
		return smdschema.Atomic
	case "granular":
		return smdschema.Separable
	}
	c.errorf(where, "unknown x-kubernetes-map-type %q", mapType)
	return ""
}

// ref is the type reference of a property, item or map value: a named
// component (through $ref or a one-element allOf, which carries the
// property's description) or an inline type.
func (c *converter) ref(where string, s *openapi.Schema) smdschema.TypeRef {
	target := s.Ref
	if target == "" && len(s.AllOf) == 1 {
		target = s.AllOf[0].Ref
	}
	if name, ok := strings.CutPrefix(target, refPrefix); ok && target != "" {
		tr := named(name)
		if rel := c.mapRelationship(where, s.MapType); rel != "" {
			tr.ElementRelationship = &rel
		}
		return tr
	}
	return smdschema.TypeRef{Inlined: c.atom(where, s)}
}

func named(name string) smdschema.TypeRef { return smdschema.TypeRef{NamedType: &name} }

func ptr[T any](v T) *T { return &v }
