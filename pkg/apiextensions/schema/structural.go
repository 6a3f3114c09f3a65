// Package schema turns a CustomResourceDefinition's openAPIV3Schema into a
// structural schema and uses it on custom objects: validation with field
// paths, pruning of unknown fields and defaulting.
package schema

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"sort"

	apiextensionsv1 "kubecore.io/api/apiextensions/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// Structural is a schema in which every node says its type and the value
// validations (allOf, anyOf, oneOf, not) only constrain values: what
// pruning and defaulting need to know the shape of an object.
type Structural struct {
	Type        string
	Format      string
	Description string
	Nullable    bool

	Properties map[string]*Structural
	// AdditionalProperties is the schema of the values of a map.
	AdditionalProperties *Structural
	Items                *Structural

	// Default is the decoded default value, nil when there is none.
	Default any

	PreserveUnknownFields bool
	EmbeddedResource      bool
	IntOrString           bool

	// ListType is x-kubernetes-list-type (atomic, set or map; "" is
	// atomic) and ListMapKeys the keys of a map list.
	ListType    string
	ListMapKeys []string
	// MapType is x-kubernetes-map-type (granular or atomic).
	MapType string
	// XValidations are the node's CEL rules (x-kubernetes-validations).
	XValidations apiextensionsv1.ValidationRules

	ValueValidation
}

// ValueValidation are the checks of a value that do not shape it.
type ValueValidation struct {
	Required         []string
	Enum             []any
	Pattern          *regexp.Regexp
	Minimum          *float64
	ExclusiveMinimum bool
	Maximum          *float64
	ExclusiveMaximum bool
	MultipleOf       *float64
	MinLength        *int64
	MaxLength        *int64
	MinItems         *int64
	MaxItems         *int64
	UniqueItems      bool
	MinProperties    *int64
	MaxProperties    *int64
	AllOf            []ValueValidation
	AnyOf            []ValueValidation
	OneOf            []ValueValidation
	Not              *ValueValidation
	// Properties and Items of a value validation constrain nested values.
	Properties map[string]ValueValidation
	Items      *ValueValidation
}

// NewStructural checks that s is structural and converts it; the errors
// carry field paths under fldPath (spec.versions[i].schema.openAPIV3Schema).
func NewStructural(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path) (*Structural, field.ErrorList) {
	if s == nil {
		return nil, field.ErrorList{field.Required(fldPath, "must be specified")}
	}
	out, errs := convert(s, fldPath, true)
	if len(errs) > 0 {
		return nil, errs
	}
	if out.Type != "object" {
		errs = append(errs, field.Invalid(fldPath.Child("type"), s.Type, "must be object at the root"))
	}
	errs = append(errs, checkRootFields(out, fldPath)...)
	if len(errs) > 0 {
		return nil, errs
	}
	errs = append(errs, checkDefaults(out, fldPath, true)...)
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// checkRootFields restricts what the root may say of apiVersion, kind and
// metadata: the server owns their shape.
func checkRootFields(s *Structural, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	props := fldPath.Child("properties")
	for _, name := range []string{"apiVersion", "kind"} {
		if p, ok := s.Properties[name]; ok && p.Type != "string" {
			errs = append(errs, field.Invalid(props.Key(name).Child("type"), p.Type, "must be string"))
		}
	}
	if md, ok := s.Properties["metadata"]; ok {
		p := props.Key("metadata")
		if md.Type != "object" {
			errs = append(errs, field.Invalid(p.Child("type"), md.Type, "must be object"))
		}
		for name, sub := range md.Properties {
			if name != "name" && name != "generateName" {
				errs = append(errs, field.Forbidden(p.Child("properties").Key(name), "must not be specified: only metadata.name and metadata.generateName may be"))
				continue
			}
			if sub.Type != "string" {
				errs = append(errs, field.Invalid(p.Child("properties").Key(name).Child("type"), sub.Type, "must be string"))
			}
		}
		if md.Default != nil {
			errs = append(errs, field.Forbidden(p.Child("default"), "must not be specified for metadata"))
		}
	}
	return errs
}

var validTypes = []string{"array", "boolean", "integer", "number", "object", "string"}

// convert converts one node that shapes values (not inside a value
// validation); root is true for the schema's root.
func convert(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path, root bool) (*Structural, field.ErrorList) {
	var errs field.ErrorList
	errs = append(errs, forbiddenKeywords(s, fldPath)...)
	out := &Structural{
		Type: s.Type, Format: s.Format, Description: s.Description, Nullable: s.Nullable,
		EmbeddedResource: s.XEmbeddedResource, IntOrString: s.XIntOrString,
		PreserveUnknownFields: s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields,
		ListMapKeys:           s.XListMapKeys, XValidations: s.XValidations,
	}
	if s.XListType != nil {
		out.ListType = *s.XListType
	}
	if s.XMapType != nil {
		out.MapType = *s.XMapType
	}
	if s.XPreserveUnknownFields != nil && !*s.XPreserveUnknownFields {
		errs = append(errs, field.Invalid(fldPath.Child("x-kubernetes-preserve-unknown-fields"), false, "must be true or undefined"))
	}
	switch {
	case s.Type == "" && out.IntOrString:
	case s.Type == "" && out.PreserveUnknownFields:
	case s.Type == "":
		errs = append(errs, field.Required(fldPath.Child("type"), "must not be empty for specified object fields"))
	case !slices.Contains(validTypes, s.Type):
		errs = append(errs, field.NotSupported(fldPath.Child("type"), s.Type, validTypes))
	}
	if out.IntOrString && s.Type != "" {
		errs = append(errs, field.Invalid(fldPath.Child("type"), s.Type, "must be empty if x-kubernetes-int-or-string is true"))
	}
	if out.EmbeddedResource && s.Type != "object" {
		errs = append(errs, field.Invalid(fldPath.Child("type"), s.Type, "must be object if x-kubernetes-embedded-resource is true"))
	}
	if len(s.Properties) > 0 && s.AdditionalProperties != nil && (s.AdditionalProperties.Schema != nil || s.AdditionalProperties.Allows) {
		errs = append(errs, field.Forbidden(fldPath.Child("additionalProperties"), "additionalProperties and properties are mutually exclusive"))
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema == nil && !s.AdditionalProperties.Allows {
		errs = append(errs, field.Forbidden(fldPath.Child("additionalProperties"), "must not be false: unknown fields are pruned"))
	}
	if s.Type == "array" && (s.Items == nil || s.Items.Schema == nil && len(s.Items.JSONSchemas) == 0) {
		errs = append(errs, field.Required(fldPath.Child("items"), "must be specified"))
	}
	if s.Items != nil && len(s.Items.JSONSchemas) > 0 {
		errs = append(errs, field.Forbidden(fldPath.Child("items"), "items must be a schema object and not an array"))
	}
	if s.Default != nil {
		if root {
			errs = append(errs, field.Forbidden(fldPath.Child("default"), "must not be specified at the root"))
		}
		v, err := DecodeJSON(*s.Default)
		if err != nil {
			errs = append(errs, field.Invalid(fldPath.Child("default"), string(s.Default.Raw), err.Error()))
		}
		out.Default = v
	}
	vv, vErrs := valueValidation(s, fldPath, false)
	errs = append(errs, vErrs...)
	out.ValueValidation = vv
	errs = append(errs, listAndMapTypes(s, fldPath)...)
	if len(s.Properties) > 0 {
		out.Properties = map[string]*Structural{}
		for _, name := range sortedKeys(s.Properties) {
			p := s.Properties[name]
			child, cErrs := convert(&p, fldPath.Child("properties").Key(name), false)
			errs = append(errs, cErrs...)
			out.Properties[name] = child
		}
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Schema != nil {
		child, cErrs := convert(ap.Schema, fldPath.Child("additionalProperties"), false)
		errs = append(errs, cErrs...)
		out.AdditionalProperties = child
	} else if ap != nil && ap.Allows {
		// additionalProperties: true keeps any value, unvalidated.
		out.AdditionalProperties = &Structural{PreserveUnknownFields: true}
	}
	if s.Items != nil && s.Items.Schema != nil {
		child, cErrs := convert(s.Items.Schema, fldPath.Child("items"), false)
		errs = append(errs, cErrs...)
		out.Items = child
	}
	return out, errs
}

// forbiddenKeywords rejects what a structural schema may not use.
func forbiddenKeywords(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.Ref != nil {
		errs = append(errs, field.Forbidden(fldPath.Child("$ref"), "$ref is not supported"))
	}
	if len(s.PatternProperties) > 0 {
		errs = append(errs, field.Forbidden(fldPath.Child("patternProperties"), "patternProperties is not supported"))
	}
	if s.UniqueItems {
		errs = append(errs, field.Forbidden(fldPath.Child("uniqueItems"), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"))
	}
	return errs
}

// valueValidation converts the value checks of s. Inside allOf, anyOf,
// oneOf and not (nested true), nothing may shape values: no type,
// description, default, nullable or x-kubernetes extension.
func valueValidation(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path, nested bool) (ValueValidation, field.ErrorList) {
	var errs field.ErrorList
	if nested {
		forbid := func(set bool, name string) {
			if set {
				errs = append(errs, field.Forbidden(fldPath.Child(name), "must not be specified in a value validation (allOf, anyOf, oneOf, not)"))
			}
		}
		forbid(s.Type != "", "type")
		forbid(s.Description != "", "description")
		forbid(s.Default != nil, "default")
		forbid(s.Nullable, "nullable")
		forbid(s.XPreserveUnknownFields != nil, "x-kubernetes-preserve-unknown-fields")
		forbid(s.XEmbeddedResource, "x-kubernetes-embedded-resource")
		forbid(s.XIntOrString, "x-kubernetes-int-or-string")
		forbid(s.AdditionalProperties != nil, "additionalProperties")
		forbid(s.XListType != nil, "x-kubernetes-list-type")
		forbid(len(s.XListMapKeys) > 0, "x-kubernetes-list-map-keys")
		forbid(s.XMapType != nil, "x-kubernetes-map-type")
		forbid(len(s.XValidations) > 0, "x-kubernetes-validations")
		errs = append(errs, forbiddenKeywords(s, fldPath)...)
	}
	vv := ValueValidation{
		Required: s.Required, Minimum: s.Minimum, ExclusiveMinimum: s.ExclusiveMinimum,
		Maximum: s.Maximum, ExclusiveMaximum: s.ExclusiveMaximum, MultipleOf: s.MultipleOf,
		MinLength: s.MinLength, MaxLength: s.MaxLength, MinItems: s.MinItems, MaxItems: s.MaxItems,
		MinProperties: s.MinProperties, MaxProperties: s.MaxProperties,
	}
	if s.Pattern != "" {
		re, err := regexp.Compile(s.Pattern)
		if err != nil {
			errs = append(errs, field.Invalid(fldPath.Child("pattern"), s.Pattern, fmt.Sprintf("must be a valid regular expression: %v", err)))
		}
		vv.Pattern = re
	}
	for i, e := range s.Enum {
		v, err := DecodeJSON(e)
		if err != nil {
			errs = append(errs, field.Invalid(fldPath.Child("enum").Index(i), string(e.Raw), err.Error()))
			continue
		}
		vv.Enum = append(vv.Enum, v)
	}
	list := func(name string, in []apiextensionsv1.JSONSchemaProps) []ValueValidation {
		var out []ValueValidation
		for i := range in {
			v, vErrs := valueValidation(&in[i], fldPath.Child(name).Index(i), true)
			errs = append(errs, vErrs...)
			out = append(out, v)
		}
		return out
	}
	vv.AllOf = list("allOf", s.AllOf)
	vv.AnyOf = list("anyOf", s.AnyOf)
	vv.OneOf = list("oneOf", s.OneOf)
	if s.Not != nil {
		v, vErrs := valueValidation(s.Not, fldPath.Child("not"), true)
		errs = append(errs, vErrs...)
		vv.Not = &v
	}
	if nested {
		for _, name := range sortedKeys(s.Properties) {
			p := s.Properties[name]
			v, vErrs := valueValidation(&p, fldPath.Child("properties").Key(name), true)
			errs = append(errs, vErrs...)
			if vv.Properties == nil {
				vv.Properties = map[string]ValueValidation{}
			}
			vv.Properties[name] = v
		}
		if s.Items != nil && s.Items.Schema != nil {
			v, vErrs := valueValidation(s.Items.Schema, fldPath.Child("items"), true)
			errs = append(errs, vErrs...)
			vv.Items = &v
		}
	}
	return vv, errs
}

// checkDefaults checks that every default validates against its schema and
// is unchanged by pruning.
func checkDefaults(s *Structural, fldPath *field.Path, root bool) field.ErrorList {
	var errs field.ErrorList
	if s.Default != nil && !root {
		p := fldPath.Child("default")
		errs = append(errs, validateValue(p, s, s.Default)...)
		pruned := unstructured.DeepCopyJSONValue(s.Default)
		if removed := pruneValue(pruned, s, nil, false); len(removed) > 0 {
			errs = append(errs, field.Invalid(p, string(mustJSON(s.Default)), fmt.Sprintf("must not have unknown fields: %v", removed)))
		} else if !bytes.Equal(mustJSON(pruned), mustJSON(s.Default)) {
			errs = append(errs, field.Invalid(p, string(mustJSON(s.Default)), "must not change when pruned"))
		}
	}
	for _, name := range sortedKeys(s.Properties) {
		errs = append(errs, checkDefaults(s.Properties[name], fldPath.Child("properties").Key(name), false)...)
	}
	if s.AdditionalProperties != nil {
		errs = append(errs, checkDefaults(s.AdditionalProperties, fldPath.Child("additionalProperties"), false)...)
	}
	if s.Items != nil {
		errs = append(errs, checkDefaults(s.Items, fldPath.Child("items"), false)...)
	}
	return errs
}

// DecodeJSON decodes a schema's JSON value (a default, an enum member);
// a null is kept as no bytes and decodes to nil.
func DecodeJSON(j apiextensionsv1.JSON) (any, error) {
	if len(j.Raw) == 0 {
		return nil, nil
	}
	return unstructured.DecodeJSONValue(j.Raw)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

var (
	listTypes = []string{"atomic", "set", "map"}
	mapTypes  = []string{"atomic", "granular"}
)

// listAndMapTypes checks x-kubernetes-list-type, -list-map-keys and
// -map-type as Kubernetes does: a set holds scalars or atomic values, a
// map list holds objects whose keys are scalar fields that are required
// or defaulted.
func listAndMapTypes(s *apiextensionsv1.JSONSchemaProps, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if s.XMapType != nil {
		if s.Type != "object" {
			errs = append(errs, field.Invalid(fldPath.Child("type"), s.Type, "must be object if x-kubernetes-map-type is specified"))
		} else if !slices.Contains(mapTypes, *s.XMapType) {
			errs = append(errs, field.NotSupported(fldPath.Child("x-kubernetes-map-type"), *s.XMapType, mapTypes))
		}
	}
	if s.XListType == nil {
		if len(s.XListMapKeys) > 0 {
			errs = append(errs, field.Required(fldPath.Child("x-kubernetes-list-type"), "must be map if x-kubernetes-list-map-keys is non-empty"))
		}
		return errs
	}
	lt := *s.XListType
	if s.Type != "array" {
		return append(errs, field.Invalid(fldPath.Child("type"), s.Type, "must be array if x-kubernetes-list-type is specified"))
	}
	if !slices.Contains(listTypes, lt) {
		return append(errs, field.NotSupported(fldPath.Child("x-kubernetes-list-type"), lt, listTypes))
	}
	var items *apiextensionsv1.JSONSchemaProps
	if s.Items != nil {
		items = s.Items.Schema
	}
	switch lt {
	case "set":
		if items != nil && items.Type == "object" && (items.XMapType == nil || *items.XMapType != "atomic") {
			errs = append(errs, field.Invalid(fldPath.Child("items", "x-kubernetes-map-type"), items.XMapType, "must be atomic as item of a list with x-kubernetes-list-type=set"))
		}
		if items != nil && items.Type == "array" && (items.XListType == nil || *items.XListType != "atomic") {
			errs = append(errs, field.Invalid(fldPath.Child("items", "x-kubernetes-list-type"), items.XListType, "must be atomic as item of a list with x-kubernetes-list-type=set"))
		}
		if len(s.XListMapKeys) > 0 {
			errs = append(errs, field.Forbidden(fldPath.Child("x-kubernetes-list-map-keys"), "must be empty if x-kubernetes-list-type is not map"))
		}
	case "map":
		if len(s.XListMapKeys) == 0 {
			errs = append(errs, field.Required(fldPath.Child("x-kubernetes-list-map-keys"), "must not be empty if x-kubernetes-list-type is map"))
		}
		if items == nil || items.Type != "object" {
			errs = append(errs, field.Invalid(fldPath.Child("items", "type"), itemsType(items), "must be object if parent array's x-kubernetes-list-type is map"))
			break
		}
		if items.XMapType != nil && *items.XMapType != "granular" {
			errs = append(errs, field.Invalid(fldPath.Child("items", "x-kubernetes-map-type"), *items.XMapType, "must be granular as item of a list with x-kubernetes-list-type=map"))
		}
		seen := map[string]bool{}
		for i, k := range s.XListMapKeys {
			kp := fldPath.Child("x-kubernetes-list-map-keys").Index(i)
			if seen[k] {
				errs = append(errs, field.Duplicate(kp, k))
				continue
			}
			seen[k] = true
			ks, ok := items.Properties[k]
			if !ok {
				errs = append(errs, field.Invalid(kp, k, "entries must all be names of item properties"))
				continue
			}
			if ks.Type == "" || ks.Type == "object" || ks.Type == "array" {
				errs = append(errs, field.Invalid(fldPath.Child("items", "properties").Key(k).Child("type"), ks.Type, "must be a scalar type if parent array's x-kubernetes-list-type is map"))
			}
			if ks.Default == nil && !slices.Contains(items.Required, k) {
				errs = append(errs, field.Required(fldPath.Child("items", "properties").Key(k), "all map keys must be required or have a default value"))
			}
		}
	default:
		if len(s.XListMapKeys) > 0 {
			errs = append(errs, field.Forbidden(fldPath.Child("x-kubernetes-list-map-keys"), "must be empty if x-kubernetes-list-type is not map"))
		}
	}
	return errs
}

func itemsType(items *apiextensionsv1.JSONSchemaProps) string {
	if items == nil {
		return ""
	}
	return items.Type
}
