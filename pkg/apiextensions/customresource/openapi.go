package customresource

import (
	apiextensionsv1 "kubecore.io/api/apiextensions/v1"

	apischema "kubecore.io/kubecore/pkg/apiextensions/schema"
	"kubecore.io/kubecore/pkg/openapi"
)

// OpenAPISchema converts a version's openAPIV3Schema into the schema of
// its OpenAPI document: the shape, descriptions, defaults and simple value
// validations (allOf, anyOf, oneOf and not are left out, as Kubernetes
// leaves them out of the published schema).
func OpenAPISchema(s *apiextensionsv1.JSONSchemaProps) *openapi.Schema {
	if s == nil {
		return &openapi.Schema{Type: "object"}
	}
	out := &openapi.Schema{
		Description: s.Description, Type: s.Type, Format: s.Format, Required: s.Required,
		Nullable: s.Nullable, Pattern: s.Pattern, Minimum: s.Minimum, Maximum: s.Maximum,
		MinLength: s.MinLength, MaxLength: s.MaxLength, MinItems: s.MinItems, MaxItems: s.MaxItems,
		IntOrString:           s.XIntOrString,
		EmbeddedResource:      s.XEmbeddedResource,
		PreserveUnknownFields: s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields,
	}
	if s.Default != nil {
		if v, err := apischema.DecodeJSON(*s.Default); err == nil {
			out.Default = v
		}
	}
	for _, e := range s.Enum {
		if v, err := apischema.DecodeJSON(e); err == nil {
			out.Enum = append(out.Enum, v)
		}
	}
	if len(s.Properties) > 0 {
		out.Properties = map[string]*openapi.Schema{}
		for name, p := range s.Properties {
			out.Properties[name] = OpenAPISchema(&p)
		}
	}
	if s.Items != nil && s.Items.Schema != nil {
		out.Items = OpenAPISchema(s.Items.Schema)
	}
	if ap := s.AdditionalProperties; ap != nil {
		if ap.Schema != nil {
			out.AdditionalProperties = OpenAPISchema(ap.Schema)
		} else if ap.Allows {
			out.AdditionalProperties = &openapi.Schema{}
		}
	}
	return out
}
