package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// configMapList is a kind: List of ConfigMaps named names; extra, when set,
// is merged into the last item (to add an unknown field).
func configMapList(t *testing.T, value string, extra map[string]any, names ...string) string {
	t.Helper()
	var items []map[string]any
	for _, name := range names {
		items = append(items, map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": name},
			"data":     map[string]any{"key": value},
		})
	}
	for k, v := range extra {
		items[len(items)-1][k] = v
	}
	b, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestListManifestValidation: kubectl validates the items of a kind: List
// on the client with /openapi/v2 (the OpenAPI v3 documents have no List
// kind), with its default --validate=strict.
func TestListManifestValidation(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "openapi-v2")

	list := writeFile(t, "list.json", configMapList(t, "one", nil, "first", "second"))
	out := k.MustRun(t, "create", "-n", ns, "-f", list)
	expectContains(t, "create -f list", out, "configmap/first created", "configmap/second created")
	if got := k.MustRun(t, "get", "configmap", "first", "second", "-n", ns, "-o", "jsonpath={.items[*].data.key}"); got != "one one" {
		t.Errorf("created ConfigMaps hold %q, want \"one one\"", got)
	}

	bad := writeFile(t, "bad.json", configMapList(t, "one", map[string]any{"bogusField": 1}, "third", "fourth"))
	for _, verb := range []string{"create", "apply"} {
		r := k.MustFail(t, "", verb, "-n", ns, "-f", bad)
		expectContains(t, verb+" -f list with an unknown field", r.Stderr,
			`unknown field "bogusField"`, "io.k8s.api.core.v1.ConfigMap")
	}
	if r := k.Run(t, "get", "configmap", "third", "-n", ns); r.ExitCode == 0 {
		t.Errorf("a list failing validation created its first item: %s", r)
	}

	out = k.MustRun(t, "apply", "-n", ns, "-f", list)
	expectContains(t, "apply -f list over created objects", out, "configmap/first configured", "configmap/second configured")
	if out := k.MustRun(t, "apply", "-n", ns, "-f", list); !strings.Contains(out, "configmap/first unchanged") {
		t.Errorf("apply -f list again printed %q, want unchanged", out)
	}
	changed := writeFile(t, "changed.json", configMapList(t, "two", nil, "first", "second", "fifth"))
	out = k.MustRun(t, "apply", "-n", ns, "-f", changed)
	expectContains(t, "apply -f changed list", out,
		"configmap/first configured", "configmap/second configured", "configmap/fifth created")
	if got := k.MustRun(t, "get", "configmap", "first", "fifth", "-n", ns, "-o", "jsonpath={.items[*].data.key}"); got != "two two" {
		t.Errorf("applied ConfigMaps hold %q, want \"two two\"", got)
	}
}

// TestOpenAPIV2Document checks the document's encodings over HTTP: JSON by
// default, protobuf when asked for, 406 for anything else.
func TestOpenAPIV2Document(t *testing.T) {
	t.Parallel()
	c, err := server.HTTPClient(true)
	if err != nil {
		t.Fatal(err)
	}
	get := func(accept string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, server.URL+"/openapi/v2", nil)
		if err != nil {
			t.Fatal(err)
		}
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}

	resp, body := get("application/json")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("JSON: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	doc := decodeJSON(t, string(body))
	if doc.str("swagger") != "2.0" {
		t.Errorf("swagger = %v, want 2.0", doc.field("swagger"))
	}
	defs, _ := doc.field("definitions").(map[string]any)
	for name, kind := range map[string]string{
		"io.k8s.api.core.v1.Pod":        "Pod",
		"io.k8s.api.core.v1.ConfigMap":  "ConfigMap",
		"io.k8s.api.apps.v1.Deployment": "Deployment",
	} {
		def, _ := defs[name].(map[string]any)
		gvks, _ := def["x-kubernetes-group-version-kind"].([]any)
		if len(gvks) != 1 || gvks[0].(map[string]any)["kind"] != kind {
			t.Errorf("definition %s: x-kubernetes-group-version-kind = %v", name, def["x-kubernetes-group-version-kind"])
		}
	}
	if doc.field("paths./api/v1/namespaces/{namespace}/configmaps/{name}.patch") == nil {
		t.Errorf("no PATCH operation on configmaps")
	}

	resp, body = get("application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/octet-stream" || len(body) == 0 {
		t.Errorf("protobuf: %d %s, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
	}

	resp, body = get("text/html")
	st := decodeJSON(t, string(body))
	if resp.StatusCode != http.StatusNotAcceptable || st.str("kind") != "Status" || st.str("reason") != "NotAcceptable" {
		t.Errorf("text/html: %d %s", resp.StatusCode, body)
	}
}
