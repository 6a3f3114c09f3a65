package openapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
	protomodels "k8s.io/kube-openapi/pkg/util/proto"
	protovalidation "k8s.io/kube-openapi/pkg/util/proto/validation"

	"kubecore.io/apimachinery/pkg/runtime/schema"
)

func buildV2(t *testing.T) (*SwaggerDocument, decoded) {
	t.Helper()
	doc, err := BuildV2(testSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	var m decoded
	if err := json.Unmarshal(doc.JSON, &m); err != nil {
		t.Fatal(err)
	}
	return doc, m
}

func TestV2Document(t *testing.T) {
	doc, m := buildV2(t)
	if m.at(t, "swagger") != "2.0" {
		t.Errorf("swagger = %v", m.at(t, "swagger"))
	}
	if strings.Contains(string(doc.JSON), "#/components/") || strings.Contains(string(doc.JSON), `"allOf"`) {
		t.Errorf("the document keeps OpenAPI 3.0 references or allOf wrappers")
	}
	gvk := m.at(t, "definitions", "io.k8s.api.apps.v1.Deployment", "x-kubernetes-group-version-kind").([]any)
	if len(gvk) != 1 || gvk[0].(map[string]any)["kind"] != "Deployment" || gvk[0].(map[string]any)["group"] != "apps" {
		t.Errorf("Deployment's group-version-kind = %v", gvk)
	}
	meta := m.at(t, "definitions", "io.k8s.api.core.v1.Pod", "properties", "metadata").(map[string]any)
	if meta["$ref"] != "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" || meta["description"] == "" || meta["default"] != nil {
		t.Errorf("Pod.metadata = %v, want a described reference to ObjectMeta", meta)
	}
	containers := m.at(t, "definitions", "io.k8s.api.core.v1.PodSpec", "properties", "containers").(map[string]any)
	if containers["x-kubernetes-patch-merge-key"] != "name" || containers["items"].(map[string]any)["$ref"] != "#/definitions/io.k8s.api.core.v1.Container" {
		t.Errorf("PodSpec.containers = %v", containers)
	}
	// Every reference resolves to a definition.
	defs := m.at(t, "definitions").(map[string]any)
	for _, ref := range strings.Split(string(doc.JSON), `"$ref":"`)[1:] {
		name := strings.TrimPrefix(ref[:strings.Index(ref, `"`)], "#/definitions/")
		if defs[name] == nil {
			t.Errorf("reference to %s has no definition", name)
		}
	}

	patch := m.at(t, "paths", "/apis/apps/v1/namespaces/{namespace}/deployments/{name}", "patch").(map[string]any)
	if patch["operationId"] != "patchAppsV1NamespacedDeployment" || patch["x-kubernetes-action"] != "patch" {
		t.Errorf("deployment PATCH = %v", patch)
	}
	if c := patch["consumes"].([]any); len(c) != 4 || c[1] != "application/json-patch+json" {
		t.Errorf("PATCH consumes %v", c)
	}
	params := map[string]map[string]any{}
	for _, p := range patch["parameters"].([]any) {
		params[p.(map[string]any)["name"].(string)] = p.(map[string]any)
	}
	if p := params["fieldValidation"]; p == nil || p["in"] != "query" || p["type"] != "string" {
		t.Errorf("PATCH fieldValidation parameter = %v", p)
	}
	if p := params["body"]; p == nil || p["in"] != "body" || p["schema"].(map[string]any)["$ref"] != "#/definitions/"+patchSchemaName {
		t.Errorf("PATCH body parameter = %v", p)
	}
	ok := m.at(t, "paths", "/api/v1/namespaces/{namespace}/pods/{name}", "get", "responses", "200").(map[string]any)
	if ok["schema"].(map[string]any)["$ref"] != "#/definitions/io.k8s.api.core.v1.Pod" {
		t.Errorf("pod GET 200 = %v", ok)
	}
	name := m.at(t, "paths", "/api/v1/namespaces/{namespace}/pods/{name}", "parameters").([]any)[0].(map[string]any)
	if name["name"] != "name" || name["in"] != "path" || name["required"] != true || name["type"] != "string" {
		t.Errorf("pod path parameter = %v", name)
	}
}

// TestV2ProtobufValidatesAsKubectl decodes the protobuf encoding as
// client-go does and validates objects with the same models kubectl
// builds from it.
func TestV2ProtobufValidatesAsKubectl(t *testing.T) {
	doc, _ := buildV2(t)
	var pb openapiv2.Document
	if err := proto.Unmarshal(doc.Proto, &pb); err != nil {
		t.Fatal(err)
	}
	models, err := protomodels.NewOpenAPIData(&pb)
	if err != nil {
		t.Fatalf("kubectl's parser rejects the document: %v", err)
	}
	for _, tc := range []struct {
		name, kind string
		gvk        schema.GroupVersionKind
		obj        string
		wantErr    string
	}{
		{
			name: "valid pod", gvk: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
			obj: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","labels":{"a":"b"},"creationTimestamp":null},
				"spec":{"containers":[{"name":"c","image":"x","ports":[{"containerPort":80}],"resources":{"limits":{"cpu":1}}}]}}`,
		},
		{
			name: "valid deployment", gvk: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			obj: `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":2,
				"selector":{"matchLabels":{"a":"b"}},"strategy":{"rollingUpdate":{"maxSurge":"25%","maxUnavailable":1}},
				"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"x"}]}}}}`,
		},
		{
			name: "unknown field", gvk: schema.GroupVersionKind{Version: "v1", Kind: "Pod"},
			obj:     `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"x","bogus":1}]}}`,
			wantErr: `unknown field "bogus" in io.k8s.api.core.v1.Container`,
		},
		{
			name: "wrong type", gvk: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
			obj:     `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":"two"}}`,
			wantErr: "replicas",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			model := lookupResource(models, tc.gvk)
			if model == nil {
				t.Fatalf("no model for %v", tc.gvk)
			}
			var obj any
			if err := json.Unmarshal([]byte(tc.obj), &obj); err != nil {
				t.Fatal(err)
			}
			errs := protovalidation.ValidateModel(obj, model, tc.gvk.Kind)
			var msgs []string
			for _, e := range errs {
				msgs = append(msgs, e.Error())
			}
			got := strings.Join(msgs, "; ")
			switch {
			case tc.wantErr == "" && got != "":
				t.Errorf("valid object rejected: %s", got)
			case tc.wantErr != "" && !strings.Contains(got, tc.wantErr):
				t.Errorf("errors %q, want one containing %q", got, tc.wantErr)
			}
		})
	}
}

// lookupResource finds the model of gvk by its x-kubernetes-group-version-kind
// extension, as kubectl does.
func lookupResource(models protomodels.Models, gvk schema.GroupVersionKind) protomodels.Schema {
	for _, name := range models.ListModels() {
		model := models.LookupModel(name)
		list, _ := model.GetExtensions()["x-kubernetes-group-version-kind"].([]any)
		for _, e := range list {
			var g, v, k any
			switch m := e.(type) {
			case map[string]any:
				g, v, k = m["group"], m["version"], m["kind"]
			case map[any]any:
				g, v, k = m["group"], m["version"], m["kind"]
			}
			if g == gvk.Group && v == gvk.Version && k == gvk.Kind {
				return model
			}
		}
	}
	return nil
}

func TestNegotiateV2(t *testing.T) {
	for _, tc := range []struct {
		accept, want string
		ok           bool
	}{
		{"", "application/json", true},
		{"application/json", "application/json", true},
		{"application/json, */*", "application/json", true},
		{"*/*", "application/json", true},
		{mimeSwaggerProto, mimeSwaggerProto, true},
		{mimeSwaggerProtoLegacy, mimeSwaggerProtoLegacy, true},
		{"application/json;q=0.5, " + mimeSwaggerProto, mimeSwaggerProto, true},
		{mimeSwaggerProto + ";q=0, application/json", "application/json", true},
		{"application/vnd.kubernetes.protobuf", "", false},
		{"text/html, application/yaml", "", false},
	} {
		got, ok := negotiateV2(tc.accept)
		if got != tc.want || ok != tc.ok {
			t.Errorf("negotiateV2(%q) = %q, %v; want %q, %v", tc.accept, got, ok, tc.want, tc.ok)
		}
	}
}

func TestV2Handler(t *testing.T) {
	h := NewHandler(testSpec(t))
	doc, err := h.SwaggerDocument()
	if err != nil {
		t.Fatal(err)
	}
	get := func(accept, ifNoneMatch string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/openapi/v2", nil)
		if accept != "" {
			r.Header.Set("Accept", accept)
		}
		if ifNoneMatch != "" {
			r.Header.Set("If-None-Match", ifNoneMatch)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	w := get("", "")
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/json" || w.Body.String() != string(doc.JSON) {
		t.Errorf("JSON: %d %s", w.Code, w.Header().Get("Content-Type"))
	}
	etag := w.Header().Get("ETag")
	if w := get("application/json", etag); w.Code != http.StatusNotModified {
		t.Errorf("JSON with its ETag: %d, want 304", w.Code)
	}
	w = get(mimeSwaggerProto, etag)
	if w.Code != http.StatusOK || w.Header().Get("Content-Type") != "application/octet-stream" || w.Body.String() != string(doc.Proto) {
		t.Errorf("protobuf (with the JSON ETag): %d %s", w.Code, w.Header().Get("Content-Type"))
	}
	if w.Header().Get("ETag") == etag || w.Header().Get("Vary") != "Accept" {
		t.Errorf("protobuf ETag %s (JSON's %s), Vary %q", w.Header().Get("ETag"), etag, w.Header().Get("Vary"))
	}
	w = get("application/vnd.kubernetes.protobuf", "")
	var st map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &st); err != nil || w.Code != http.StatusNotAcceptable || st["reason"] != "NotAcceptable" || st["code"] != 406.0 {
		t.Errorf("unserved media type: %d %s", w.Code, w.Body)
	}
	r := httptest.NewRequest(http.MethodPost, "/openapi/v2", nil)
	w = httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d, want 405", w.Code)
	}
}

func BenchmarkBuildV2(b *testing.B) {
	spec := testSpec(b)
	for b.Loop() {
		if _, err := BuildV2(spec); err != nil {
			b.Fatal(err)
		}
	}
}

// Custom group versions join the Swagger document while they are served,
// as Kubernetes publishes custom resources there.
func TestV2HoldsCustomGroupVersions(t *testing.T) {
	h := NewHandler(testSpec(t))
	gv := schema.GroupVersion{Group: "example.com", Version: "v1"}
	widget := GroupVersion{
		GroupVersion: gv,
		Resources:    []Resource{{Path: "widgets", Kind: gv.WithKind("Widget"), Namespaced: true, Verbs: []string{"get", "list", "create"}}},
		Custom:       map[string]*Schema{"Widget": {Type: "object", Description: "a widget"}},
	}
	definitions := func() map[string]any {
		t.Helper()
		doc, err := h.SwaggerDocument()
		if err != nil {
			t.Fatal(err)
		}
		var d struct {
			Definitions map[string]any `json:"definitions"`
		}
		if err := json.Unmarshal(doc.JSON, &d); err != nil {
			t.Fatal(err)
		}
		return d.Definitions
	}
	if _, ok := definitions()["com.example.v1.Widget"]; ok {
		t.Fatal("a custom kind is in the document before it is served")
	}
	if err := h.SetGroupVersion(widget); err != nil {
		t.Fatal(err)
	}
	if _, ok := definitions()["com.example.v1.Widget"]; !ok {
		t.Fatal("a served custom kind is missing from /openapi/v2")
	}
	h.RemoveGroupVersion(gv)
	if _, ok := definitions()["com.example.v1.Widget"]; ok {
		t.Fatal("a custom kind is still in the document after it stopped being served")
	}
}

// Swagger 2.0 gets custom kinds in the shape kubectl's client-side
// validation copes with: a root keeping unknown fields is a bare object,
// nullable fields and fields keeping unknown ones lose their inner shape.
func TestV2CustomKindShapes(t *testing.T) {
	gv := schema.GroupVersion{Group: "example.com", Version: "v1"}
	free := &Schema{Type: "object", PreserveUnknownFields: true}
	shaped := &Schema{Type: "object", Properties: map[string]*Schema{
		"spec": {Type: "object", Properties: map[string]*Schema{
			"maybe": {Type: "object", Nullable: true, Properties: map[string]*Schema{"a": {Type: "string"}}},
			"any":   {Type: "object", PreserveUnknownFields: true, Properties: map[string]*Schema{"b": {Type: "string"}}},
			"list":  {Type: "array", PreserveUnknownFields: true, Items: &Schema{Type: "string"}},
			"name":  {Type: "string"},
		}},
	}}
	spec := testSpec(t)
	spec.Groups = append(spec.Groups, GroupVersion{
		GroupVersion: gv,
		Resources: []Resource{
			{Path: "frees", Kind: gv.WithKind("Free"), Namespaced: true, Verbs: []string{"get"}},
			{Path: "shapeds", Kind: gv.WithKind("Shaped"), Namespaced: true, Verbs: []string{"get"}},
		},
		Custom: map[string]*Schema{"Free": free, "Shaped": shaped},
	})
	doc, err := BuildV2(spec)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Definitions map[string]map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal(doc.JSON, &d); err != nil {
		t.Fatal(err)
	}
	if got := d.Definitions["com.example.v1.Free"]; got["type"] != "object" || got["properties"] != nil || got["x-kubernetes-preserve-unknown-fields"] != nil || got["x-kubernetes-group-version-kind"] == nil {
		t.Errorf("a root keeping unknown fields: %v", got)
	}
	props := d.Definitions["com.example.v1.Shaped"]["properties"].(map[string]any)
	if props["metadata"] == nil || props["apiVersion"] == nil {
		t.Errorf("the standard fields are missing: %v", props)
	}
	inner := props["spec"].(map[string]any)["properties"].(map[string]any)
	for field, want := range map[string]string{"maybe": "", "any": "", "list": "", "name": "string"} {
		f := inner[field].(map[string]any)
		if typ, _ := f["type"].(string); typ != want || (want == "" && (f["properties"] != nil || f["items"] != nil)) {
			t.Errorf("spec.%s: %v, want type %q and no inner shape", field, f, want)
		}
	}
}
