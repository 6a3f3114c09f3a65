package openapi

import (
	"maps"
	"reflect"
	"slices"
	"strings"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// customName is Kubernetes' component name of a custom kind: the group
// reversed, the version and the kind ("com.example.stable.v1.CronTab").
func customName(kind schema.GroupVersionKind) string {
	parts := strings.Split(kind.Group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".") + "." + kind.Version + "." + kind.Kind
}

// customKindSchema references the component schema of a custom kind or of
// its list; ok is false for other kinds.
func (p *pathBuilder) customKindSchema(kind schema.GroupVersionKind) (s *Schema, ok bool, err error) {
	if p.custom == nil {
		return nil, false, nil
	}
	if body, found := p.custom[kind.Kind]; found {
		name, err := p.defineCustom(kind, body)
		if err != nil {
			return nil, true, err
		}
		return &Schema{Ref: refPrefix + name}, true, nil
	}
	item, isList := strings.CutSuffix(kind.Kind, "List")
	body, found := p.custom[item]
	if !isList || !found {
		return nil, false, nil
	}
	itemKind := kind.GroupVersion().WithKind(item)
	itemName, err := p.defineCustom(itemKind, body)
	if err != nil {
		return nil, true, err
	}
	name := customName(kind)
	if _, defined := p.schemas.schemas[name]; !defined {
		listMeta, err := p.ref(reflect.TypeFor[metav1.ListMeta]())
		if err != nil {
			return nil, true, err
		}
		p.schemas.schemas[name] = &Schema{
			Type:        "object",
			Description: kind.Kind + " is a list of " + item + ".",
			Required:    []string{"items"},
			Properties: map[string]*Schema{
				"apiVersion": apiVersionSchema(),
				"kind":       kindFieldSchema(),
				"metadata":   {AllOf: []*Schema{listMeta}, Description: "Standard list metadata."},
				"items": {
					Type: "array", Description: "The " + strings.ToLower(item) + " objects.",
					Items: &Schema{Ref: refPrefix + itemName},
				},
			},
			GroupVersionKind: []GVK{gvkOf(kind)},
		}
	}
	p.refs = append(p.refs, name)
	return &Schema{Ref: refPrefix + name}, true, nil
}

// defineCustom makes the component schema of a custom kind from its
// schema, with apiVersion, kind and the standard metadata.
func (p *pathBuilder) defineCustom(kind schema.GroupVersionKind, body *Schema) (string, error) {
	name := customName(kind)
	if _, defined := p.schemas.schemas[name]; !defined {
		meta, err := p.ref(reflect.TypeFor[metav1.ObjectMeta]())
		if err != nil {
			return "", err
		}
		s := *body
		s.Type = "object"
		s.Properties = maps.Clone(body.Properties)
		if s.Properties == nil {
			s.Properties = map[string]*Schema{}
		}
		s.Properties["apiVersion"] = apiVersionSchema()
		s.Properties["kind"] = kindFieldSchema()
		s.Properties["metadata"] = &Schema{AllOf: []*Schema{meta}, Description: "Standard object's metadata."}
		s.GroupVersionKind = []GVK{gvkOf(kind)}
		p.schemas.schemas[name] = &s
	}
	p.refs = append(p.refs, name)
	return name, nil
}

func apiVersionSchema() *Schema {
	return &Schema{Type: "string", Description: "APIVersion defines the versioned schema of this representation of an object."}
}

func kindFieldSchema() *Schema {
	return &Schema{Type: "string", Description: "Kind is a string value representing the REST resource this object represents."}
}
