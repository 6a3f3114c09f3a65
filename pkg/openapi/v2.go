package openapi

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
)

// SwaggerDocument is the single Swagger 2.0 document of every group
// version, served at /openapi/v2 for clients that predate OpenAPI v3 or fall
// back to it (kubectl validates the items of a kind: List with it).
type SwaggerDocument struct {
	// JSON is the document as JSON.
	JSON []byte
	// Proto is the same document as a protobuf-encoded gnostic
	// openapi_v2.Document, the encoding client-go asks for.
	Proto []byte
	// JSONHash and ProtoHash are the upper-case hex SHA-512 of each
	// encoding, their ETags.
	JSONHash, ProtoHash string
}

// swagger is a Swagger 2.0 document.
type swagger struct {
	Swagger     string                 `json:"swagger"`
	Info        info                   `json:"info"`
	Paths       map[string]*v2PathItem `json:"paths"`
	Definitions map[string]*Schema     `json:"definitions"`
}

type v2PathItem struct {
	Get        *v2Operation   `json:"get,omitempty"`
	Put        *v2Operation   `json:"put,omitempty"`
	Post       *v2Operation   `json:"post,omitempty"`
	Delete     *v2Operation   `json:"delete,omitempty"`
	Patch      *v2Operation   `json:"patch,omitempty"`
	Parameters []*v2Parameter `json:"parameters,omitempty"`
}

type v2Operation struct {
	Description string                 `json:"description"`
	OperationID string                 `json:"operationId"`
	Tags        []string               `json:"tags,omitempty"`
	Consumes    []string               `json:"consumes,omitempty"`
	Produces    []string               `json:"produces,omitempty"`
	Schemes     []string               `json:"schemes,omitempty"`
	Parameters  []*v2Parameter         `json:"parameters,omitempty"`
	Responses   map[string]*v2Response `json:"responses"`
	Action      string                 `json:"x-kubernetes-action"`
	GVK         *GVK                   `json:"x-kubernetes-group-version-kind,omitempty"`
}

// v2Parameter is a body parameter (Schema set) or a path or query
// parameter (Type set).
type v2Parameter struct {
	Name        string  `json:"name"`
	In          string  `json:"in"`
	Description string  `json:"description,omitempty"`
	Required    bool    `json:"required,omitempty"`
	Type        string  `json:"type,omitempty"`
	UniqueItems bool    `json:"uniqueItems,omitempty"`
	Schema      *Schema `json:"schema,omitempty"`
}

type v2Response struct {
	Description string  `json:"description"`
	Schema      *Schema `json:"schema,omitempty"`
}

// definitionsPrefix starts every reference to a Swagger 2.0 definition.
const definitionsPrefix = "#/definitions/"

// The media types of the protobuf encoding of the Swagger document, the
// first the one client-go asks for.
const (
	mimeSwaggerProto       = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	mimeSwaggerProtoLegacy = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
)

// BuildV2 generates the Swagger 2.0 document of spec from the same model
// as the OpenAPI v3 documents: the same definition names (the Kubernetes
// ones, such as io.k8s.api.core.v1.Pod, with x-kubernetes-group-version-kind)
// and the same operations, in Swagger 2.0's shape.
func BuildV2(spec Spec) (*SwaggerDocument, error) {
	m, err := buildModel(spec)
	if err != nil {
		return nil, err
	}
	doc := swagger{
		Swagger:     "2.0",
		Info:        documentInfo(),
		Paths:       map[string]*v2PathItem{},
		Definitions: map[string]*Schema{},
	}
	var refs []string
	for _, g := range m.groups {
		refs = append(refs, g.refs...)
		for path, it := range g.paths {
			if _, dup := doc.Paths[path]; dup {
				return nil, fmt.Errorf("openapi v2: path %s is served twice", path)
			}
			doc.Paths[path] = v2Path(it)
		}
	}
	for name, s := range m.schemas.closure(refs) {
		doc.Definitions[name] = v2Schema(s)
	}
	for _, g := range spec.Groups {
		for kind, body := range g.Custom {
			name := customName(g.GroupVersion.WithKind(kind))
			if def, ok := doc.Definitions[name]; ok {
				doc.Definitions[name] = v2Custom(def, body)
			}
		}
	}
	data, err := json.Marshal(&doc)
	if err != nil {
		return nil, fmt.Errorf("encode openapi v2: %w", err)
	}
	parsed, err := openapiv2.ParseDocument(data)
	if err != nil {
		return nil, fmt.Errorf("openapi v2 is not a valid Swagger 2.0 document: %w", err)
	}
	pb, err := proto.Marshal(parsed)
	if err != nil {
		return nil, fmt.Errorf("encode openapi v2 as protobuf: %w", err)
	}
	return &SwaggerDocument{JSON: data, Proto: pb, JSONHash: hashOf(data), ProtoHash: hashOf(pb)}, nil
}

// v2Custom is the Swagger 2.0 definition of a custom kind, as Kubernetes
// publishes it there for kubectl's client-side validation: a kind whose
// root keeps unknown fields is a bare object (listing fields would make
// kubectl refuse the others); elsewhere a nullable field or one keeping
// unknown fields loses its items and properties, and its type when that
// type is object, or an array that lost its items. def is the definition
// built from the OpenAPI v3 schema body.
func v2Custom(def, body *Schema) *Schema {
	if body.PreserveUnknownFields {
		return &Schema{Type: "object", GroupVersionKind: def.GroupVersionKind}
	}
	out := *def
	out.Properties = make(map[string]*Schema, len(def.Properties))
	for name, p := range def.Properties {
		if _, ours := body.Properties[name]; ours {
			p = v2Structural(p)
		}
		out.Properties[name] = p
	}
	return &out
}

// v2Structural drops from s, recursively, what Swagger 2.0 clients cannot
// read (see v2Custom).
func v2Structural(s *Schema) *Schema {
	if s == nil {
		return nil
	}
	out := *s
	if out.Nullable {
		out.Type, out.Nullable, out.Items, out.Properties = "", false, nil, nil
	}
	if out.PreserveUnknownFields {
		out.Items, out.Properties = nil, nil
		if out.Type == "object" {
			out.Type = ""
		}
	}
	if out.Items == nil && out.Type == "array" {
		out.Type = ""
	}
	out.Items = v2Structural(out.Items)
	out.AdditionalProperties = v2Structural(out.AdditionalProperties)
	if out.Properties != nil {
		props := make(map[string]*Schema, len(out.Properties))
		for name, p := range out.Properties {
			props[name] = v2Structural(p)
		}
		out.Properties = props
	}
	return &out
}

// v2Schema is s with its references pointing at definitions and the
// allOf wrappers of described references (OpenAPI 3.0's way to describe a
// reference) turned into plain references with a description, as Swagger
// 2.0 clients expect them.
func v2Schema(s *Schema) *Schema {
	if s == nil {
		return nil
	}
	out := *s
	if name, ok := strings.CutPrefix(out.Ref, refPrefix); ok {
		out.Ref = definitionsPrefix + name
	}
	if len(out.AllOf) == 1 && out.AllOf[0].Ref != "" && out.Type == "" && len(out.Properties) == 0 {
		out.Ref = v2Schema(out.AllOf[0]).Ref
		out.AllOf, out.Default = nil, nil
	} else if out.AllOf != nil {
		out.AllOf = make([]*Schema, len(s.AllOf))
		for i, a := range s.AllOf {
			out.AllOf[i] = v2Schema(a)
		}
	}
	out.Items = v2Schema(s.Items)
	out.AdditionalProperties = v2Schema(s.AdditionalProperties)
	if s.Properties != nil {
		out.Properties = make(map[string]*Schema, len(s.Properties))
		for name, p := range s.Properties {
			out.Properties[name] = v2Schema(p)
		}
	}
	return &out
}

// v2Path converts an OpenAPI 3.0 path item.
func v2Path(it *pathItem) *v2PathItem {
	return &v2PathItem{
		Get:        v2Op(it.Get),
		Put:        v2Op(it.Put),
		Post:       v2Op(it.Post),
		Delete:     v2Op(it.Delete),
		Patch:      v2Op(it.Patch),
		Parameters: v2Params(it.Parameters),
	}
}

// v2Op converts an operation: its request body becomes a body parameter
// and the media types move to consumes and produces.
func v2Op(op *operation) *v2Operation {
	if op == nil {
		return nil
	}
	out := &v2Operation{
		Description: op.Description,
		OperationID: op.OperationID,
		Tags:        op.Tags,
		Schemes:     []string{"https"},
		Parameters:  v2Params(op.Parameters),
		Responses:   map[string]*v2Response{},
		Action:      op.Action,
		GVK:         op.GVK,
	}
	if op.RequestBody != nil {
		out.Consumes = sortedKeys(op.RequestBody.Content)
		body := &v2Parameter{Name: "body", In: "body", Required: op.RequestBody.Required}
		if len(out.Consumes) > 0 {
			body.Schema = v2Schema(op.RequestBody.Content[out.Consumes[0]].Schema)
		}
		out.Parameters = append(out.Parameters, body)
	} else {
		out.Consumes = []string{"*/*"}
	}
	produces := map[string]bool{}
	for code, r := range op.Responses {
		resp := &v2Response{Description: r.Description}
		for ct, mt := range r.Content {
			produces[ct] = true
			resp.Schema = v2Schema(mt.Schema)
		}
		out.Responses[code] = resp
	}
	out.Produces = sortedKeys(produces)
	return out
}

// v2Params converts path and query parameters, whose schema is a plain
// type in Swagger 2.0.
func v2Params(ps []*parameter) []*v2Parameter {
	var out []*v2Parameter
	for _, p := range ps {
		v := &v2Parameter{Name: p.Name, In: p.In, Description: p.Description, Required: p.Required}
		if p.Schema != nil {
			v.Type, v.UniqueItems = p.Schema.Type, p.Schema.UniqueItems
		}
		out = append(out, v)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
