package openapi

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// patchSchemaName is the schema of PATCH request bodies.
const patchSchemaName = "io.k8s.apimachinery.pkg.apis.meta.v1.Patch"

// pathItem is an OpenAPI path item.
type pathItem struct {
	Get        *operation   `json:"get,omitempty"`
	Put        *operation   `json:"put,omitempty"`
	Post       *operation   `json:"post,omitempty"`
	Delete     *operation   `json:"delete,omitempty"`
	Patch      *operation   `json:"patch,omitempty"`
	Parameters []*parameter `json:"parameters,omitempty"`
}

type operation struct {
	Description string               `json:"description"`
	OperationID string               `json:"operationId"`
	Tags        []string             `json:"tags,omitempty"`
	Parameters  []*parameter         `json:"parameters,omitempty"`
	RequestBody *requestBody         `json:"requestBody,omitempty"`
	Responses   map[string]*response `json:"responses"`
	Action      string               `json:"x-kubernetes-action"`
	GVK         *GVK                 `json:"x-kubernetes-group-version-kind,omitempty"`
}

type parameter struct {
	Name        string  `json:"name"`
	In          string  `json:"in"`
	Description string  `json:"description,omitempty"`
	Required    bool    `json:"required,omitempty"`
	Schema      *Schema `json:"schema"`
}

type requestBody struct {
	Content  map[string]mediaType `json:"content"`
	Required bool                 `json:"required,omitempty"`
}

type mediaType struct {
	Schema *Schema `json:"schema"`
}

type response struct {
	Description string               `json:"description"`
	Content     map[string]mediaType `json:"content,omitempty"`
}

func query(name, typ, description string) *parameter {
	return &parameter{Name: name, In: "query", Description: description, Schema: &Schema{Type: typ, UniqueItems: true}}
}

func pathParam(name, description string) *parameter {
	return &parameter{Name: name, In: "path", Description: description, Required: true, Schema: &Schema{Type: "string", UniqueItems: true}}
}

// The query parameters of each kind of operation.
func listParams() []*parameter {
	return []*parameter{
		query("allowWatchBookmarks", "boolean", "With watch, ask for BOOKMARK events carrying the latest resourceVersion."),
		query("continue", "string", "The continue token of the previous page of a paginated list."),
		query("fieldSelector", "string", "Return only objects whose fields match this selector."),
		query("labelSelector", "string", "Return only objects whose labels match this selector."),
		query("limit", "integer", "Return at most this many objects, with a continue token for the rest."),
		query("resourceVersion", "string", "The resource version the list or watch starts from; see resourceVersionMatch."),
		query("resourceVersionMatch", "string", "How resourceVersion applies to a list: Exact or NotOlderThan."),
		query("sendInitialEvents", "boolean", "With watch, start with synthetic ADDED events for the current objects."),
		query("timeoutSeconds", "integer", "End the list or watch after this many seconds."),
		query("watch", "boolean", "Stream changes (ADDED, MODIFIED, DELETED) instead of returning a list."),
	}
}

func writeParams(patch bool) []*parameter {
	ps := []*parameter{
		query("dryRun", "string", "All: run every stage of the request but persist nothing."),
		query("fieldManager", "string", "Name of the actor making the change, recorded in managedFields."),
		query("fieldValidation", "string", "How the server treats unknown and duplicate fields in the body: Ignore, Warn or Strict."),
	}
	if patch {
		ps = append(ps, query("force", "boolean", "For apply patches: take over fields owned by other managers."))
	}
	return ps
}

func deleteParams() []*parameter {
	return []*parameter{
		query("dryRun", "string", "All: run every stage of the request but persist nothing."),
		query("gracePeriodSeconds", "integer", "Seconds before the object is deleted; 0 deletes at once."),
		query("propagationPolicy", "string", "How dependents are collected: Orphan, Background or Foreground."),
	}
}

// pathBuilder builds one group version's paths and remembers the component
// schemas they reference.
type pathBuilder struct {
	scheme  *runtime.Scheme
	schemas *schemaBuilder
	gv      schema.GroupVersion
	refs    []string
	types   map[schema.GroupVersionKind]reflect.Type
	// custom are the schemas of custom kinds (GroupVersion.Custom).
	custom map[string]*Schema
}

// ref returns a reference to the component schema of t.
func (p *pathBuilder) ref(t reflect.Type) (*Schema, error) {
	name, err := p.schemas.define(t)
	if err != nil {
		return nil, err
	}
	p.refs = append(p.refs, name)
	return &Schema{Ref: refPrefix + name}, nil
}

// kindSchema references the schema of kind, or is a plain object for a
// kind the scheme does not know.
func (p *pathBuilder) kindSchema(kind schema.GroupVersionKind) (*Schema, error) {
	if s, ok, err := p.customKindSchema(kind); ok || err != nil {
		return s, err
	}
	t, ok := p.types[kind]
	if !ok {
		return &Schema{Type: "object"}, nil
	}
	return p.ref(t)
}

func jsonContent(s *Schema) map[string]mediaType {
	return map[string]mediaType{"application/json": {Schema: s}, "application/yaml": {Schema: s}}
}

func responses(s *Schema, codes ...string) map[string]*response {
	out := map[string]*response{}
	for _, c := range codes {
		desc := map[string]string{"200": "OK", "201": "Created", "202": "Accepted"}[c]
		out[c] = &response{Description: desc, Content: jsonContent(s)}
	}
	out["401"] = &response{Description: "Unauthorized"}
	return out
}

func (p *pathBuilder) build(resources []Resource) (map[string]*pathItem, error) {
	if p.types == nil {
		p.types = p.scheme.AllKnownTypes()
	}
	kinds := map[string]schema.GroupVersionKind{}
	for _, r := range resources {
		if !strings.Contains(r.Path, "/") {
			kinds[r.Path] = r.Kind
		}
	}
	status, err := p.ref(reflect.TypeFor[metav1.Status]())
	if err != nil {
		return nil, err
	}
	deleteOptions, err := p.ref(reflect.TypeFor[metav1.DeleteOptions]())
	if err != nil {
		return nil, err
	}
	p.refs = append(p.refs, patchSchemaName)
	patchBody := &requestBody{Required: true, Content: map[string]mediaType{}}
	for _, ct := range []string{"application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json"} {
		if p.custom != nil && ct == "application/strategic-merge-patch+json" {
			// Custom resources answer strategic merge patches with 415.
			continue
		}
		patchBody.Content[ct] = mediaType{Schema: &Schema{Ref: refPrefix + patchSchemaName}}
	}

	paths := map[string]*pathItem{}
	item := func(path string, params ...*parameter) *pathItem {
		if it, ok := paths[path]; ok {
			return it
		}
		it := &pathItem{Parameters: append(params, query("pretty", "string", "If 'true', indent the output."))}
		paths[path] = it
		return it
	}
	prefix := operationPrefix(p.gv)
	group, _, _ := strings.Cut(p.gv.Group, ".")
	if group == "" {
		group = "core"
	}
	tag := group + "_" + p.gv.Version
	for _, r := range resources {
		resource, sub, _ := strings.Cut(r.Path, "/")
		parentKind, ok := kinds[resource]
		if !ok {
			return nil, fmt.Errorf("subresource %s has no parent resource", r.Path)
		}
		gvk := gvkOf(r.Kind)
		body, err := p.kindSchema(r.Kind)
		if err != nil {
			return nil, fmt.Errorf("resource %s: %w", r.Path, err)
		}
		root := "/" + groupPath(p.gv)
		scope, nsParams := "", []*parameter{}
		collection := root + "/" + resource
		if r.Namespaced {
			scope = "Namespaced"
			nsParams = []*parameter{pathParam("namespace", "Object name and auth scope, such as for teams and projects.")}
			collection = root + "/namespaces/{namespace}/" + resource
		}
		objectPath := collection + "/{name}"
		nameParam := pathParam("name", "Name of the "+parentKind.Kind+".")
		opName := scope + parentKind.Kind + upperFirst(sub)
		op := func(verb, action, desc string) *operation {
			return &operation{
				Description: desc, OperationID: verb + prefix + opName, Tags: []string{tag},
				Action: action, GVK: &gvk,
			}
		}
		has := func(v string) bool { return slices.Contains(r.Verbs, v) }
		what := strings.ToLower(parentKind.Kind)
		if sub != "" {
			what = sub + " of the " + what
		}
		if sub != "" {
			it := item(objectPath+"/"+sub, append([]*parameter{nameParam}, nsParams...)...)
			if has("get") {
				it.Get = op("read", "get", "Read the "+what+".")
				it.Get.Responses = responses(body, "200")
			}
			if has("update") {
				it.Put = op("replace", "put", "Replace the "+what+".")
				it.Put.Parameters = writeParams(false)
				it.Put.RequestBody = &requestBody{Required: true, Content: jsonContent(body)}
				it.Put.Responses = responses(body, "200", "201")
			}
			if has("patch") {
				it.Patch = op("patch", "patch", "Partially update the "+what+".")
				it.Patch.Parameters = writeParams(true)
				it.Patch.RequestBody = patchBody
				it.Patch.Responses = responses(body, "200", "201")
			}
			if has("create") {
				it.Post = op("create", "post", "Create the "+what+".")
				it.Post.Parameters = writeParams(false)
				it.Post.RequestBody = &requestBody{Required: true, Content: jsonContent(body)}
				it.Post.Responses = responses(body, "200", "201", "202")
			}
			continue
		}
		listKind := r.Kind.GroupVersion().WithKind(r.Kind.Kind + "List")
		list, err := p.kindSchema(listKind)
		if err != nil {
			return nil, fmt.Errorf("resource %s: %w", r.Path, err)
		}
		if has("list") || has("create") || has("deletecollection") {
			it := item(collection, nsParams...)
			if has("list") {
				it.Get = op("list", "list", "List or watch "+resource+".")
				it.Get.Parameters = listParams()
				it.Get.Responses = responses(list, "200")
			}
			if has("create") {
				it.Post = op("create", "post", "Create a "+what+".")
				it.Post.Parameters = writeParams(false)
				it.Post.RequestBody = &requestBody{Required: true, Content: jsonContent(body)}
				it.Post.Responses = responses(body, "200", "201", "202")
			}
			if has("deletecollection") {
				it.Delete = op("deleteCollection", "deletecollection", "Delete a collection of "+resource+".")
				it.Delete.Parameters = append(deleteParams(), listParams()...)
				it.Delete.RequestBody = &requestBody{Content: jsonContent(deleteOptions)}
				it.Delete.Responses = responses(status, "200")
			}
		}
		if has("list") && r.Namespaced {
			it := item(root + "/" + resource)
			it.Get = op("list", "list", "List or watch "+resource+" of every namespace.")
			it.Get.OperationID = "list" + prefix + parentKind.Kind + "ForAllNamespaces"
			it.Get.Parameters = listParams()
			it.Get.Responses = responses(list, "200")
		}
		if !has("get") && !has("update") && !has("patch") && !has("delete") {
			continue
		}
		it := item(objectPath, append([]*parameter{nameParam}, nsParams...)...)
		if has("get") {
			it.Get = op("read", "get", "Read the "+what+".")
			it.Get.Responses = responses(body, "200")
		}
		if has("update") {
			it.Put = op("replace", "put", "Replace the "+what+".")
			it.Put.Parameters = writeParams(false)
			it.Put.RequestBody = &requestBody{Required: true, Content: jsonContent(body)}
			it.Put.Responses = responses(body, "200", "201")
		}
		if has("patch") {
			it.Patch = op("patch", "patch", "Partially update the "+what+".")
			it.Patch.Parameters = writeParams(true)
			it.Patch.RequestBody = patchBody
			it.Patch.Responses = responses(body, "200", "201")
		}
		if has("delete") {
			it.Delete = op("delete", "delete", "Delete a "+what+".")
			it.Delete.Parameters = deleteParams()
			it.Delete.RequestBody = &requestBody{Content: jsonContent(deleteOptions)}
			it.Delete.Responses = responses(status, "200", "202")
		}
	}
	return paths, nil
}
