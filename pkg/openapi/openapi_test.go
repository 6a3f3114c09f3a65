package openapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

var rw = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

func testSpec(t testing.TB) Spec {
	t.Helper()
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, autoscalingv1.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	apps := schema.GroupVersion{Group: "apps", Version: "v1"}
	core := schema.GroupVersion{Version: "v1"}
	return Spec{Scheme: s, Groups: []GroupVersion{
		{GroupVersion: core, Resources: []Resource{
			{Path: "namespaces", Kind: core.WithKind("Namespace"), Verbs: rw},
			{Path: "pods", Kind: core.WithKind("Pod"), Namespaced: true, Verbs: rw},
			{Path: "pods/status", Kind: core.WithKind("Pod"), Namespaced: true, Verbs: []string{"get", "patch", "update"}},
		}},
		{GroupVersion: apps, Resources: []Resource{
			{Path: "deployments", Kind: apps.WithKind("Deployment"), Namespaced: true, Verbs: rw},
			{Path: "deployments/scale", Kind: autoscalingv1.SchemeGroupVersion.WithKind("Scale"), Namespaced: true, Verbs: []string{"get", "patch", "update"}},
		}},
	}}
}

// decoded is a document decoded generically, for path lookups.
type decoded map[string]any

func (d decoded) at(t *testing.T, path ...string) any {
	t.Helper()
	var cur any = map[string]any(d)
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("%s: not an object at %q", strings.Join(path, "/"), p)
		}
		if cur, ok = m[p]; !ok {
			t.Fatalf("%s: no %q", strings.Join(path, "/"), p)
		}
	}
	return cur
}

func build(t *testing.T) (*Documents, map[string]decoded) {
	t.Helper()
	docs, err := Build(testSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]decoded{}
	for k, d := range docs.GroupVersions {
		var m decoded
		if err := json.Unmarshal(d.JSON, &m); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		out[k] = m
	}
	return docs, out
}

func TestIndex(t *testing.T) {
	docs, _ := build(t)
	var idx indexDocument
	if err := json.Unmarshal(docs.Index, &idx); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"api/v1", "apis/apps/v1"} {
		want := "/openapi/v3/" + key + "?hash=" + docs.GroupVersions[key].Hash
		if got := idx.Paths[key].ServerRelativeURL; got != want || len(docs.GroupVersions[key].Hash) != 128 {
			t.Errorf("index %s: %q, want %q", key, got, want)
		}
	}
	if len(idx.Paths) != 2 {
		t.Errorf("index has %d paths, want 2", len(idx.Paths))
	}
}

func TestDeploymentSchema(t *testing.T) {
	_, docs := build(t)
	apps := docs["apis/apps/v1"]
	if v := apps.at(t, "openapi"); v != "3.0.0" {
		t.Errorf("openapi = %v", v)
	}
	schemas := []string{"components", "schemas"}
	dep := append(schemas, "io.k8s.api.apps.v1.Deployment")
	gvk := apps.at(t, append(dep, "x-kubernetes-group-version-kind")...)
	if want := []any{map[string]any{"group": "apps", "kind": "Deployment", "version": "v1"}}; !reflect.DeepEqual(gvk, want) {
		t.Errorf("Deployment gvk = %v", gvk)
	}
	spec := append(schemas, "io.k8s.api.apps.v1.DeploymentSpec", "properties")
	cases := []struct {
		path []string
		want any
	}{
		{append(spec, "strategy", "description"), "How existing pods are replaced by new ones."},
		{append(spec, "strategy", "allOf"), []any{map[string]any{"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy"}}},
		{append(spec, "strategy", "x-kubernetes-patch-strategy"), "retainKeys"},
		{append(spec, "replicas", "format"), "int32"},
		{append(schemas, "io.k8s.api.apps.v1.DeploymentSpec", "required"), []any{"selector", "template"}},
		{append(schemas, "io.k8s.api.apps.v1.DeploymentStrategy", "properties", "type", "type"), "string"},
		{append(schemas, "io.k8s.api.apps.v1.RollingUpdateDeployment", "properties", "maxSurge", "allOf"), []any{map[string]any{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString"}}},
		{append(schemas, "io.k8s.apimachinery.pkg.util.intstr.IntOrString", "x-kubernetes-int-or-string"), true},
		{append(schemas, "io.k8s.apimachinery.pkg.apis.meta.v1.Time", "format"), "date-time"},
		{append(schemas, "io.k8s.apimachinery.pkg.api.resource.Quantity", "type"), "string"},
		{append(schemas, "io.k8s.api.core.v1.PodSpec", "properties", "containers", "x-kubernetes-patch-merge-key"), "name"},
		{append(schemas, "io.k8s.api.core.v1.PodSpec", "properties", "containers", "items", "allOf"), []any{map[string]any{"$ref": "#/components/schemas/io.k8s.api.core.v1.Container"}}},
		{append(schemas, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "properties", "labels", "additionalProperties", "type"), "string"},
		{append(schemas, "io.k8s.api.apps.v1.Deployment", "properties", "metadata", "allOf"), []any{map[string]any{"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}}},
		{append(schemas, "io.k8s.api.apps.v1.Deployment", "properties", "apiVersion", "type"), "string"},
		// Server-side apply's merge keys, from the +listType markers.
		{append(schemas, "io.k8s.api.core.v1.PodSpec", "properties", "containers", "x-kubernetes-list-type"), "map"},
		{append(schemas, "io.k8s.api.core.v1.PodSpec", "properties", "containers", "x-kubernetes-list-map-keys"), []any{"name"}},
		{append(schemas, "io.k8s.api.core.v1.Container", "properties", "ports", "x-kubernetes-list-map-keys"), []any{"containerPort", "protocol"}},
		{append(schemas, "io.k8s.api.core.v1.PodSpec", "properties", "tolerations", "x-kubernetes-list-type"), "atomic"},
		{append(schemas, "io.k8s.api.core.v1.ContainerPort", "properties", "protocol", "default"), "TCP"},
		{append(schemas, "io.k8s.api.core.v1.PodSpec", "properties", "nodeSelector", "x-kubernetes-map-type"), "atomic"},
		{append(schemas, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "properties", "finalizers", "x-kubernetes-list-type"), "set"},
		{append(schemas, "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "properties", "ownerReferences", "x-kubernetes-list-map-keys"), []any{"uid"}},
		{append(schemas, "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector", "x-kubernetes-map-type"), "atomic"},
	}
	for _, c := range cases {
		if got := apps.at(t, c.path...); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s = %v, want %v", strings.Join(c.path[2:], "/"), got, c.want)
		}
	}
	// Every reference resolves within the document.
	var check func(v any)
	all := apps.at(t, schemas...).(map[string]any)
	check = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				if _, ok := all[strings.TrimPrefix(ref, refPrefix)]; !ok {
					t.Errorf("dangling $ref %s", ref)
				}
			}
			for _, x := range v {
				check(x)
			}
		case []any:
			for _, x := range v {
				check(x)
			}
		}
	}
	check(map[string]any(apps))
	if _, ok := all["io.k8s.api.core.v1.Namespace"]; ok {
		t.Error("apps/v1 document carries core/v1 Namespace, which none of its paths reference")
	}
}

func TestOperations(t *testing.T) {
	_, docs := build(t)
	cases := []struct {
		doc, path, method, opID, action, kind string
		params                                []string
	}{
		{"apis/apps/v1", "/apis/apps/v1/namespaces/{namespace}/deployments/{name}", "patch", "patchAppsV1NamespacedDeployment", "patch", "Deployment", []string{"dryRun", "fieldManager", "fieldValidation", "force"}},
		{"apis/apps/v1", "/apis/apps/v1/namespaces/{namespace}/deployments", "post", "createAppsV1NamespacedDeployment", "post", "Deployment", []string{"dryRun", "fieldManager", "fieldValidation"}},
		{"apis/apps/v1", "/apis/apps/v1/namespaces/{namespace}/deployments", "get", "listAppsV1NamespacedDeployment", "list", "Deployment", []string{"allowWatchBookmarks", "continue", "fieldSelector", "labelSelector", "limit", "resourceVersion", "resourceVersionMatch", "sendInitialEvents", "timeoutSeconds", "watch"}},
		{"apis/apps/v1", "/apis/apps/v1/deployments", "get", "listAppsV1DeploymentForAllNamespaces", "list", "Deployment", nil},
		{"apis/apps/v1", "/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale", "put", "replaceAppsV1NamespacedDeploymentScale", "put", "Scale", []string{"dryRun", "fieldManager", "fieldValidation"}},
		{"api/v1", "/api/v1/namespaces/{name}", "delete", "deleteCoreV1Namespace", "delete", "Namespace", []string{"dryRun", "gracePeriodSeconds", "propagationPolicy"}},
		{"api/v1", "/api/v1/namespaces/{namespace}/pods/{name}/status", "get", "readCoreV1NamespacedPodStatus", "get", "Pod", nil},
	}
	for _, c := range cases {
		op, ok := docs[c.doc].at(t, "paths", c.path, c.method).(map[string]any)
		if !ok {
			t.Fatalf("%s %s is not an object", c.method, c.path)
		}
		if op["operationId"] != c.opID || op["x-kubernetes-action"] != c.action {
			t.Errorf("%s %s: operationId %v action %v", c.method, c.path, op["operationId"], op["x-kubernetes-action"])
		}
		if gvk, _ := op["x-kubernetes-group-version-kind"].(map[string]any); gvk["kind"] != c.kind {
			t.Errorf("%s %s: gvk %v, want kind %s", c.method, c.path, gvk, c.kind)
		}
		if c.params == nil {
			continue
		}
		var names []string
		ps, _ := op["parameters"].([]any)
		for _, p := range ps {
			names = append(names, p.(map[string]any)["name"].(string))
		}
		if !reflect.DeepEqual(names, c.params) {
			t.Errorf("%s %s: parameters %v, want %v", c.method, c.path, names, c.params)
		}
	}
	if _, ok := docs["api/v1"].at(t, "paths").(map[string]any)["/api/v1/namespaces/{namespace}/pods/{name}/status"].(map[string]any)["delete"]; ok {
		t.Error("pods/status offers delete, which it does not serve")
	}
}

// ownJSON encodes itself, so reflection cannot tell its schema.
type ownJSON int

func (ownJSON) MarshalJSON() ([]byte, error) { return []byte(`"x"`), nil }

func TestBuildErrors(t *testing.T) {
	type withChan struct {
		C chan int `json:"c"`
	}
	type withIface struct {
		I any `json:"i"`
	}
	type selfEncoded struct {
		N ownJSON `json:"n"`
	}
	type intMap struct {
		M map[int]string `json:"m"`
	}
	cases := []struct {
		name string
		typ  reflect.Type
		err  string
	}{
		{"chan", reflect.TypeFor[withChan](), "has no OpenAPI"},
		{"interface", reflect.TypeFor[withIface](), "has no OpenAPI"},
		{"map key", reflect.TypeFor[intMap](), "map key int"},
		{"foreign package", reflect.TypeFor[time.Location](), "has no OpenAPI name"},
		{"own JSON", reflect.TypeFor[selfEncoded](), "encodes itself"},
	}
	for _, c := range cases {
		b := newSchemaBuilder(nil)
		_, err := b.fieldSchema(c.typ, "")
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.err)
		}
	}
	if _, err := Build(Spec{}); err == nil {
		t.Error("Build without a scheme succeeded")
	}
	spec := testSpec(t)
	spec.Groups[0].Resources = []Resource{{Path: "pods/status", Kind: schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, Verbs: []string{"get"}}}
	if _, err := Build(spec); err == nil || !strings.Contains(err.Error(), "no parent") {
		t.Errorf("orphan subresource: %v", err)
	}
}

func TestHandler(t *testing.T) {
	h := NewHandler(testSpec(t))
	docs, err := h.Documents()
	if err != nil {
		t.Fatal(err)
	}
	apps := docs.GroupVersions["apis/apps/v1"]
	cases := []struct {
		name, method, url, ifNoneMatch string
		code                           int
		cache, location                string
		body                           []byte
	}{
		{"index", "GET", "/openapi/v3", "", 200, cacheRevalidate, "", docs.Index},
		{"index slash", "GET", "/openapi/v3/", "", 200, cacheRevalidate, "", docs.Index},
		{"hashed", "GET", "/openapi/v3/apis/apps/v1?hash=" + apps.Hash, "", 200, cacheImmutable, "", apps.JSON},
		{"unhashed", "GET", "/openapi/v3/apis/apps/v1", "", 200, cacheRevalidate, "", apps.JSON},
		{"head", "HEAD", "/openapi/v3/apis/apps/v1", "", 200, cacheRevalidate, "", nil},
		{"old hash", "GET", "/openapi/v3/apis/apps/v1?hash=ABC", "", 301, cacheRevalidate, "/openapi/v3/apis/apps/v1?hash=" + apps.Hash, nil},
		{"not modified", "GET", "/openapi/v3/apis/apps/v1", `"` + apps.Hash + `"`, 304, cacheRevalidate, "", nil},
		{"unknown", "GET", "/openapi/v3/apis/batch/v1", "", 404, "", "", nil},
		{"post", "POST", "/openapi/v3", "", 405, "", "", nil},
	}
	for _, c := range cases {
		req := httptest.NewRequest(c.method, c.url, nil)
		if c.ifNoneMatch != "" {
			req.Header.Set("If-None-Match", c.ifNoneMatch)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != c.code {
			t.Errorf("%s: code %d, want %d", c.name, rec.Code, c.code)
			continue
		}
		if got := rec.Header().Get("Cache-Control"); got != c.cache {
			t.Errorf("%s: Cache-Control %q, want %q", c.name, got, c.cache)
		}
		if got := rec.Header().Get("Location"); got != c.location {
			t.Errorf("%s: Location %q, want %q", c.name, got, c.location)
		}
		if c.body != nil {
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("%s: Content-Type %q", c.name, ct)
			}
			if rec.Body.String() != string(c.body) {
				t.Errorf("%s: body differs from the document", c.name)
			}
		}
	}
	// A failing build is a 500, not a panic.
	bad := NewHandler(Spec{})
	rec := httptest.NewRecorder()
	bad.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/openapi/v3", nil))
	if rec.Code != http.StatusInternalServerError {
		t.Errorf("broken spec: code %d", rec.Code)
	}
}

func TestDocsCoverStrategy(t *testing.T) {
	docs := typeDocs()
	for _, key := range []string{
		"kubecore.io/api/apps/v1.Deployment",
		"kubecore.io/api/apps/v1.DeploymentSpec.Strategy",
		"kubecore.io/api/core/v1.Container.Image",
		"kubecore.io/api/core/v1.Pod.Spec",
	} {
		if docs[key] == "" {
			t.Errorf("no description for %s", key)
		}
	}
}

func BenchmarkBuild(b *testing.B) {
	spec := testSpec(b)
	var size int
	for b.Loop() {
		docs, err := Build(spec)
		if err != nil {
			b.Fatal(err)
		}
		size = 0
		for _, d := range docs.GroupVersions {
			size += len(d.JSON)
		}
	}
	ms := float64(b.Elapsed().Microseconds()) / 1000 / float64(b.N)
	b.ReportMetric(ms, "ms/build")
	b.ReportMetric(float64(size), "bytes")
	b.Logf("figure: build core/v1 + apps/v1 documents %.2f ms, %d bytes (target: < 50 ms, once, on the first /openapi/v3 request; 0 at start-up)", ms, size)
}
