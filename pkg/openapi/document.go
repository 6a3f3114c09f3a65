package openapi

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/version"
)

// Resource is one served resource or subresource of a group version, as
// discovery lists it.
type Resource struct {
	// Path is the resource ("deployments") or subresource
	// ("deployments/status") name.
	Path string
	// Kind is the kind of the objects read and written there.
	Kind       schema.GroupVersionKind
	Namespaced bool
	// Verbs are discovery's verbs: get, list, watch, create, update, patch,
	// delete, deletecollection.
	Verbs []string
}

// GroupVersion is a served group version and its resources.
type GroupVersion struct {
	GroupVersion schema.GroupVersion
	Resources    []Resource
	// Custom holds, by kind name, the schemas of the kinds the scheme does
	// not know: those of custom resources, whose group versions take no
	// strategic merge patches.
	Custom map[string]*Schema
}

// Spec is what the documents describe: the Go types (from Scheme) and the
// served resources.
type Spec struct {
	Scheme *runtime.Scheme
	Groups []GroupVersion
}

// Document is one group version's OpenAPI document.
type Document struct {
	// JSON is the encoded document.
	JSON []byte
	// Hash is the upper-case hex SHA-512 of JSON.
	Hash string
}

// Documents are the index and every group version's document, keyed by the
// group version's path without its leading slash ("api/v1", "apis/apps/v1").
type Documents struct {
	Index         []byte
	GroupVersions map[string]Document
}

// indexDocument is the JSON of /openapi/v3.
type indexDocument struct {
	Paths map[string]indexEntry `json:"paths"`
}

type indexEntry struct {
	ServerRelativeURL string `json:"serverRelativeURL"`
}

// openAPI is an OpenAPI 3.0 document.
type openAPI struct {
	OpenAPI    string               `json:"openapi"`
	Info       info                 `json:"info"`
	Paths      map[string]*pathItem `json:"paths"`
	Components components           `json:"components"`
}

type info struct {
	Title   string `json:"title"`
	Version string `json:"version"`
}

type components struct {
	Schemas map[string]*Schema `json:"schemas"`
}

// groupPath is "api/v1" or "apis/<group>/<version>".
func groupPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "api/" + gv.Version
	}
	return "apis/" + gv.Group + "/" + gv.Version
}

// model is what every document is generated from: the component schemas
// of the Go types and each group version's paths, as OpenAPI 3.0 objects.
type model struct {
	schemas *schemaBuilder
	groups  []groupModel
}

// groupModel is one group version's paths and the component schemas they
// reference directly.
type groupModel struct {
	gv    schema.GroupVersion
	paths map[string]*pathItem
	refs  []string
}

// buildModel generates the schemas and paths of spec.
func buildModel(spec Spec) (*model, error) {
	if spec.Scheme == nil {
		return nil, fmt.Errorf("openapi: spec has no scheme")
	}
	gvks := map[reflect.Type][]GVK{}
	for gvk, t := range spec.Scheme.AllKnownTypes() {
		gvks[t] = append(gvks[t], gvkOf(gvk))
	}
	for _, list := range gvks {
		sort.Slice(list, func(i, j int) bool {
			a, b := list[i], list[j]
			if a.Group != b.Group {
				return a.Group < b.Group
			}
			if a.Version != b.Version {
				return a.Version < b.Version
			}
			return a.Kind < b.Kind
		})
	}
	b := newSchemaBuilder(gvks)
	b.schemas[patchSchemaName] = &Schema{
		Type:        "object",
		Description: "Patch is the body of a PATCH request: a JSON patch, a JSON merge patch, a strategic merge patch or an apply configuration.",
	}
	m := &model{schemas: b}
	for _, g := range spec.Groups {
		pb := &pathBuilder{scheme: spec.Scheme, schemas: b, gv: g.GroupVersion, custom: g.Custom}
		paths, err := pb.build(g.Resources)
		if err != nil {
			return nil, fmt.Errorf("openapi for %s: %w", g.GroupVersion, err)
		}
		m.groups = append(m.groups, groupModel{gv: g.GroupVersion, paths: paths, refs: pb.refs})
	}
	return m, nil
}

// documentInfo is the info object of every document.
func documentInfo() info {
	ver := version.Get().GitVersion
	if ver == "" {
		ver = "unversioned"
	}
	return info{Title: "kubecore", Version: ver}
}

// Build generates every document of spec.
func Build(spec Spec) (*Documents, error) {
	m, err := buildModel(spec)
	if err != nil {
		return nil, err
	}
	docs := &Documents{GroupVersions: map[string]Document{}}
	for _, g := range m.groups {
		d, err := m.document(g)
		if err != nil {
			return nil, err
		}
		docs.GroupVersions[groupPath(g.gv)] = d
	}
	data, err := indexJSON(docs.GroupVersions)
	if err != nil {
		return nil, err
	}
	docs.Index = data
	return docs, nil
}

// document encodes the document of one group version.
func (m *model) document(g groupModel) (Document, error) {
	doc := openAPI{
		OpenAPI:    "3.0.0",
		Info:       documentInfo(),
		Paths:      g.paths,
		Components: components{Schemas: m.schemas.closure(g.refs)},
	}
	data, err := json.Marshal(&doc)
	if err != nil {
		return Document{}, fmt.Errorf("encode openapi for %s: %w", g.gv, err)
	}
	return Document{JSON: data, Hash: hashOf(data)}, nil
}

// indexJSON is the index of the documents, keyed as Documents are.
func indexJSON(groups ...map[string]Document) ([]byte, error) {
	index := indexDocument{Paths: map[string]indexEntry{}}
	for _, docs := range groups {
		for key, d := range docs {
			index.Paths[key] = indexEntry{ServerRelativeURL: "/openapi/v3/" + key + "?hash=" + d.Hash}
		}
	}
	data, err := json.Marshal(&index)
	if err != nil {
		return nil, fmt.Errorf("encode openapi index: %w", err)
	}
	return data, nil
}

// BuildGroupVersion generates the document of one group version of spec's
// scheme, typically a custom one (GroupVersion.Custom).
func BuildGroupVersion(scheme *runtime.Scheme, g GroupVersion) (Document, error) {
	m, err := buildModel(Spec{Scheme: scheme, Groups: []GroupVersion{g}})
	if err != nil {
		return Document{}, err
	}
	return m.document(m.groups[0])
}

// hashOf is the upper-case hex SHA-512 of data.
func hashOf(data []byte) string { return fmt.Sprintf("%X", sha512.Sum512(data)) }

// operationPrefix is the group version part of operation IDs: CoreV1,
// AppsV1, CoordinationV1 (coordination.k8s.io).
func operationPrefix(gv schema.GroupVersion) string {
	group := gv.Group
	if group == "" {
		group = "core"
	}
	group, _, _ = strings.Cut(group, ".")
	return upperFirst(group) + upperFirst(gv.Version)
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
