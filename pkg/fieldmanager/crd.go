package fieldmanager

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	apiextv1 "kubecore.io/api/apiextensions/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// crdRootName names the root type of a custom kind inside its schema.
const crdRootName = "__custom_resource_"

// NewCRDTypeConverter builds the type of one version of a custom kind from
// its structural schema: x-kubernetes-list-type, -list-map-keys and
// -map-type as written (lists are atomic and objects granular when
// unmarked), x-kubernetes-preserve-unknown-fields as fields merged by what
// they hold, int-or-string as a scalar of either kind, and
// x-kubernetes-embedded-resource objects with their apiVersion, kind and
// metadata. metadata is typed as the built-in ObjectMeta, taken from
// builtin; a nil schema (or one preserving unknown fields at the root) is
// all deduced, as Kubernetes treats CRDs without one.
func NewCRDTypeConverter(builtin *TypeConverter, kind schema.GroupVersionKind, props *apiextv1.JSONSchemaProps) (*TypeConverter, error) {
	c := &converter{}
	root := c.crdAtom("", props, true)
	if len(c.errs) > 0 {
		return nil, fmt.Errorf("schema of %s to merge schema: %s", kind, strings.Join(c.errs, "; "))
	}
	var types []smdschema.TypeDef
	if builtin != nil {
		types = append(types, builtin.parser.Schema.Types...)
	} else {
		c.addFreeForm()
	}
	types = append(types, c.types...)
	types = append(types, smdschema.TypeDef{Name: crdRootName, Atom: root})
	hasMeta := false
	for _, t := range types {
		if t.Name == objectMetaModel {
			hasMeta = true
		}
	}
	if !hasMeta {
		types = append(types, smdschema.TypeDef{Name: objectMetaModel, Atom: smdschema.Atom{Map: &smdschema.Map{ElementType: named(untypedDeduced)}}})
	}
	tc := &TypeConverter{
		parser: &typed.Parser{Schema: smdschema.Schema{Types: types}},
		kinds:  map[schema.GroupVersionKind]typed.ParseableType{},
	}
	tc.kinds[kind] = tc.parser.Type(crdRootName)
	return tc, nil
}

// crdAtom is the type of a structural schema; resource is true for the
// root and for embedded resources, which get apiVersion, kind and metadata.
func (c *converter) crdAtom(where string, s *apiextv1.JSONSchemaProps, resource bool) smdschema.Atom {
	if s == nil {
		s = &apiextv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr(true)}
	}
	preserve := s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields
	if s.XIntOrString {
		return smdschema.Atom{Scalar: ptr(smdschema.Untyped)}
	}
	switch s.Type {
	case "object":
		return smdschema.Atom{Map: c.crdObject(where, s, preserve, resource || s.XEmbeddedResource)}
	case "array":
		return smdschema.Atom{List: c.crdList(where, s)}
	case "string", "integer", "number", "boolean":
		return smdschema.Atom{Scalar: ptr(scalar(s.Type, s.Format))}
	case "":
		if preserve {
			return smdschema.Atom{
				Scalar: ptr(smdschema.Untyped),
				List:   &smdschema.List{ElementType: named(untypedAtomic), ElementRelationship: smdschema.Atomic},
				Map:    c.crdObject(where, s, true, resource || s.XEmbeddedResource),
			}
		}
		return untypedAtomicAtom()
	}
	c.errorf(orRoot(where), "unknown type %q", s.Type)
	return smdschema.Atom{Scalar: ptr(smdschema.Untyped)}
}

func (c *converter) crdObject(where string, s *apiextv1.JSONSchemaProps, preserve, resource bool) *smdschema.Map {
	m := &smdschema.Map{}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	seen := map[string]bool{}
	for _, name := range names {
		p := s.Properties[name]
		if resource && name == "metadata" {
			continue
		}
		field := smdschema.StructField{Name: name, Type: c.crdRef(where+"."+name, &p)}
		if p.Default != nil && len(p.Default.Raw) > 0 {
			if err := json.Unmarshal(p.Default.Raw, &field.Default); err != nil {
				c.errorf(where+"."+name, "default: %v", err)
			}
		}
		m.Fields = append(m.Fields, field)
		seen[name] = true
	}
	if resource {
		for _, name := range []string{"apiVersion", "kind"} {
			if !seen[name] {
				m.Fields = append(m.Fields, smdschema.StructField{Name: name, Type: smdschema.TypeRef{Inlined: smdschema.Atom{Scalar: ptr(smdschema.String)}}})
			}
		}
		m.Fields = append(m.Fields, smdschema.StructField{Name: "metadata", Type: named(objectMetaModel)})
	}
	switch {
	case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
		m.ElementType = c.crdRef(where+"[*]", s.AdditionalProperties.Schema)
	case s.AdditionalProperties != nil && s.AdditionalProperties.Allows, preserve:
		m.ElementType = named(untypedDeduced)
	}
	if s.XMapType != nil {
		m.ElementRelationship = c.mapRelationship(orRoot(where), *s.XMapType)
	}
	return m
}

func (c *converter) crdList(where string, s *apiextv1.JSONSchemaProps) *smdschema.List {
	l := &smdschema.List{ElementRelationship: smdschema.Atomic, ElementType: named(untypedAtomic)}
	if s.Items != nil && s.Items.Schema != nil {
		l.ElementType = c.crdRef(where+"[]", s.Items.Schema)
	}
	if s.XListType != nil {
		switch *s.XListType {
		case "atomic":
		case "set":
			l.ElementRelationship = smdschema.Associative
		case "map":
			l.ElementRelationship, l.Keys = smdschema.Associative, s.XListMapKeys
			if len(l.Keys) == 0 {
				c.errorf(orRoot(where), "x-kubernetes-list-type map needs x-kubernetes-list-map-keys")
			}
		default:
			c.errorf(orRoot(where), "unknown x-kubernetes-list-type %q", *s.XListType)
		}
	}
	return l
}

// crdRef inlines the type of a property, item or map value.
func (c *converter) crdRef(where string, s *apiextv1.JSONSchemaProps) smdschema.TypeRef {
	return smdschema.TypeRef{Inlined: c.crdAtom(where, s, false)}
}

func orRoot(where string) string {
	if where == "" {
		return "<root>"
	}
	return where
}
