package apiextensions

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestDiscoveryAndOpenAPI checks that the group appears in discovery and
// OpenAPI while the definition is served, and disappears with it.
func TestDiscoveryAndOpenAPI(t *testing.T) {
	s := startServer(t)
	const group = "discovery.example.com"
	s.createCRD(crontabCRD(group))

	var groups metav1.APIGroupList
	mustJSON(t, s.expect(http.StatusOK, http.MethodGet, "/apis", nil).body, &groups)
	idx := slices.IndexFunc(groups.Groups, func(g metav1.APIGroup) bool { return g.Name == group })
	if idx < 0 {
		t.Fatalf("/apis lacks %s", group)
	}
	if g := groups.Groups[idx]; g.PreferredVersion.Version != "v1" || len(g.Versions) != 2 || g.Versions[1].Version != "v1beta1" {
		t.Errorf("group entry %+v", g)
	}
	var g metav1.APIGroup
	mustJSON(t, s.expect(http.StatusOK, http.MethodGet, "/apis/"+group, nil).body, &g)
	if g.Name != group || g.PreferredVersion.GroupVersion != group+"/v1" {
		t.Errorf("/apis/%s = %+v", group, g)
	}
	var list metav1.APIResourceList
	mustJSON(t, s.expect(http.StatusOK, http.MethodGet, "/apis/"+group+"/v1", nil).body, &list)
	byName := map[string]metav1.APIResource{}
	for _, r := range list.APIResources {
		byName[r.Name] = r
	}
	ct := byName["crontabs"]
	if ct.Kind != "CronTab" || !ct.Namespaced || ct.SingularName != "crontab" || !slices.Equal(ct.ShortNames, []string{"ct"}) ||
		!slices.Equal(ct.Verbs, metav1.Verbs{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}) {
		t.Errorf("crontabs entry %+v", ct)
	}
	if sc := byName["crontabs/scale"]; sc.Kind != "Scale" || sc.Group != "autoscaling" || sc.Version != "v1" {
		t.Errorf("crontabs/scale entry %+v", sc)
	}
	if _, ok := byName["crontabs/status"]; !ok {
		t.Errorf("no crontabs/status in %v", list.APIResources)
	}

	// OpenAPI v3: the index lists the group version; its document has the
	// schema of CronTab with its GVK, and operations kubectl relies on.
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	mustJSON(t, s.expect(http.StatusOK, http.MethodGet, "/openapi/v3", nil).body, &index)
	entry, ok := index.Paths["apis/"+group+"/v1"]
	if !ok {
		t.Fatalf("openapi index lacks the group version: %v", index.Paths)
	}
	doc := s.expect(http.StatusOK, http.MethodGet, entry.ServerRelativeURL, nil).object(t)
	schemaName := "com.example.discovery.v1.CronTab"
	crontab, _ := unstructured.NestedField(doc, "components", "schemas", schemaName).(map[string]any)
	if crontab == nil {
		t.Fatalf("document lacks %s", schemaName)
	}
	if unstructured.NestedString(crontab, "properties", "spec", "properties", "cronSpec", "type") != "string" ||
		unstructured.NestedField(crontab, "properties", "metadata", "allOf") == nil {
		t.Errorf("CronTab schema %v", crontab)
	}
	gvk, _ := crontab["x-kubernetes-group-version-kind"].([]any)
	if len(gvk) != 1 || gvk[0].(map[string]any)["kind"] != "CronTab" {
		t.Errorf("CronTab gvk %v", gvk)
	}
	patch, _ := unstructured.NestedField(doc, "paths", "/apis/"+group+"/v1/namespaces/{namespace}/crontabs/{name}", "patch").(map[string]any)
	if patch == nil {
		t.Fatal("no PATCH operation")
	}
	content, _ := unstructured.NestedField(patch, "requestBody", "content").(map[string]any)
	if _, smp := content["application/strategic-merge-patch+json"]; smp || content["application/merge-patch+json"] == nil {
		t.Errorf("PATCH content types %v", content)
	}
	if params, _ := json.Marshal(patch["parameters"]); !strings.Contains(string(params), "fieldValidation") {
		t.Errorf("PATCH parameters lack fieldValidation: %s", params)
	}

	// Gone with the definition.
	s.deleteCRD("crontabs." + group)
	eventually(t, "group out of discovery", func() (bool, string) {
		r := s.do(http.MethodGet, "/apis", nil)
		return !strings.Contains(string(r.body), `"`+group+`"`), string(r.body)
	})
	s.expect(http.StatusNotFound, http.MethodGet, "/apis/"+group, nil)
	s.expect(http.StatusNotFound, http.MethodGet, "/apis/"+group+"/v1", nil)
	s.expect(http.StatusNotFound, http.MethodGet, "/apis/"+group+"/v1/crontabs", nil)
	s.expect(http.StatusNotFound, http.MethodGet, entry.ServerRelativeURL, nil)
	if strings.Contains(string(s.expect(http.StatusOK, http.MethodGet, "/openapi/v3", nil).body), group) {
		t.Error("openapi index still lists the group")
	}
}

// TestDefinitionValidation checks that bad definitions are refused with
// 422 and the field at fault.
func TestDefinitionValidation(t *testing.T) {
	s := startServer(t)
	const group = "invalid.example.com"
	mutate := func(f func(crd map[string]any)) map[string]any {
		crd := crontabCRD(group)
		f(crd)
		return crd
	}
	version0 := func(crd map[string]any) map[string]any {
		return crd["spec"].(map[string]any)["versions"].([]any)[0].(map[string]any)
	}
	props := func(crd map[string]any) map[string]any {
		return unstructured.NestedField(version0(crd), "schema", "openAPIV3Schema", "properties", "spec", "properties").(map[string]any)
	}
	cases := []struct {
		name  string
		crd   map[string]any
		field string
	}{
		{"no type", mutate(func(crd map[string]any) { props(crd)["image"] = map[string]any{"description": "untyped"} }),
			"spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[image].type"},
		{"type in anyOf", mutate(func(crd map[string]any) {
			props(crd)["image"] = map[string]any{"type": "string", "anyOf": []any{map[string]any{"type": "string"}}}
		}), "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[image].anyOf[0].type"},
		{"items array", mutate(func(crd map[string]any) {
			props(crd)["tags"] = map[string]any{"type": "array", "items": []any{map[string]any{"type": "string"}}}
		}), "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[tags].items"},
		{"default invalid", mutate(func(crd map[string]any) { props(crd)["replicas"].(map[string]any)["default"] = 50 }),
			"spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[replicas].default"},
		{"no schema", mutate(func(crd map[string]any) { delete(version0(crd), "schema") }), "spec.versions[0].schema.openAPIV3Schema"},
		{"wrong name", mutate(func(crd map[string]any) { crd["metadata"].(map[string]any)["name"] = "other." + group }), "metadata.name"},
		{"two storage versions", mutate(func(crd map[string]any) {
			crd["spec"].(map[string]any)["versions"].([]any)[1].(map[string]any)["storage"] = true
		}), "spec.versions"},
		{"bad scope", mutate(func(crd map[string]any) { crd["spec"].(map[string]any)["scope"] = "Galaxy" }), "spec.scope"},
		{"protected group", mutate(func(crd map[string]any) {
			crd["spec"].(map[string]any)["group"] = "things.k8s.io"
			crd["metadata"].(map[string]any)["name"] = "crontabs.things.k8s.io"
		}), "metadata.annotations[api-approved.kubernetes.io]"},
		{"bad column", mutate(func(crd map[string]any) {
			version0(crd)["additionalPrinterColumns"] = []any{map[string]any{"name": "X", "type": "vector", "jsonPath": ".spec"}}
		}), "spec.versions[0].additionalPrinterColumns[0].type"},
		{"scale path", mutate(func(crd map[string]any) {
			unstructured.SetNestedField(version0(crd), ".status.replicas", "subresources", "scale", "specReplicasPath")
		}), "spec.versions[0].subresources.scale.specReplicasPath"},
		{"webhook conversion without a webhook", mutate(func(crd map[string]any) {
			crd["spec"].(map[string]any)["conversion"] = map[string]any{"strategy": "Webhook"}
		}), "spec.conversion.webhookClientConfig"},
		{"webhook conversion over http", mutate(func(crd map[string]any) {
			crd["spec"].(map[string]any)["conversion"] = map[string]any{"strategy": "Webhook", "webhook": map[string]any{
				"clientConfig": map[string]any{"url": "http://example.com/convert"}, "conversionReviewVersions": []any{"v1"}}}
		}), "spec.conversion.webhookClientConfig.url"},
		{"webhook conversion without a known review version", mutate(func(crd map[string]any) {
			crd["spec"].(map[string]any)["conversion"] = map[string]any{"strategy": "Webhook", "webhook": map[string]any{
				"clientConfig": map[string]any{"url": "https://example.com/convert"}, "conversionReviewVersions": []any{"v2"}}}
		}), "spec.conversion.conversionReviewVersions"},
		{"unknown conversion strategy", mutate(func(crd map[string]any) {
			crd["spec"].(map[string]any)["conversion"] = map[string]any{"strategy": "Magic"}
		}), "spec.conversion.strategy"},
	}
	for _, c := range cases {
		r := s.do(http.MethodPost, crdPath, c.crd)
		if r.code != http.StatusUnprocessableEntity {
			t.Errorf("%s: got %d, want 422: %s", c.name, r.code, r.body)
			continue
		}
		var st metav1.Status
		mustJSON(t, r.body, &st)
		if !slices.ContainsFunc(st.Details.Causes, func(c metav1.StatusCause) bool { return true }) ||
			!slices.ContainsFunc(st.Details.Causes, func(cause metav1.StatusCause) bool { return cause.Field == c.field }) {
			t.Errorf("%s: causes %+v lack %s", c.name, st.Details.Causes, c.field)
		}
	}
	for _, name := range []string{"crontabs." + group, "other." + group, "crontabs.things.k8s.io"} {
		s.expect(http.StatusNotFound, http.MethodGet, crdPath+"/"+name, nil)
	}
}

// TestNamesConflict checks that a definition whose kind another definition
// of the group holds is not established, and says why.
func TestNamesConflict(t *testing.T) {
	s := startServer(t)
	const group = "conflict.example.com"
	s.createCRD(crontabCRD(group))
	other := crontabCRD(group)
	other["metadata"].(map[string]any)["name"] = "crondos." + group
	names := other["spec"].(map[string]any)["names"].(map[string]any)
	names["plural"], names["singular"], names["shortNames"] = "crondos", "crondo", []any{"cd"}
	s.expect(http.StatusCreated, http.MethodPost, crdPath, other)
	crd := s.waitCondition("crondos."+group, "NamesAccepted", "False")
	conds, _ := unstructured.NestedField(crd, "status", "conditions").([]any)
	for _, c := range conds {
		cm := c.(map[string]any)
		switch cm["type"] {
		case "NamesAccepted":
			if cm["reason"] != "KindConflict" || !strings.Contains(cm["message"].(string), `"CronTab" is already in use`) {
				t.Errorf("NamesAccepted %v", cm)
			}
		case "Established":
			if cm["status"] != "False" || cm["reason"] != "NotAccepted" {
				t.Errorf("Established %v", cm)
			}
		}
	}
	s.expect(http.StatusNotFound, http.MethodGet, "/apis/"+group+"/v1/crondos", nil)
	// Once the holder is gone, the names are accepted.
	s.deleteCRD("crontabs." + group)
	s.waitCondition("crondos."+group, "Established", "True")
	s.expect(http.StatusOK, http.MethodGet, "/apis/"+group+"/v1/crondos", nil)
	s.deleteCRD("crondos." + group)
}

// TestDefinitionDeletion checks that deleting a definition deletes its
// objects (the cleanup finalizer) and stops serving them.
func TestDefinitionDeletion(t *testing.T) {
	s := startServer(t)
	const group = "deletion.example.com"
	s.createCRD(crontabCRD(group))
	ns := s.CreateNamespace(t, "crd-delete")
	base := "/apis/" + group + "/v1/namespaces/" + ns + "/crontabs"
	for _, name := range []string{"a", "b", "c"} {
		s.expect(http.StatusCreated, http.MethodPost, base, crontab(group, "v1", name, map[string]any{"cronSpec": "* * * * *"}))
	}
	// One object holds on with a finalizer of its own.
	held := crontab(group, "v1", "held", map[string]any{"cronSpec": "* * * * *"})
	held["metadata"].(map[string]any)["finalizers"] = []any{"example.com/hold"}
	s.expect(http.StatusCreated, http.MethodPost, base, held)

	r := s.expect(http.StatusOK, http.MethodDelete, crdPath+"/crontabs."+group, nil)
	if fins := unstructured.NestedField(r.object(t), "metadata", "finalizers"); !strings.Contains(strings.Join(toStrings(fins), ","), "customresourcecleanup.apiextensions.k8s.io") {
		t.Errorf("deleted definition has finalizers %v", fins)
	}
	s.waitCondition("crontabs."+group, "Terminating", "True")
	eventually(t, "objects deleted", func() (bool, string) {
		r := s.do(http.MethodGet, base, nil)
		items, _ := r.object(t)["items"].([]any)
		return len(items) == 1, string(r.body)
	})
	// The definition waits for the held object, and takes no new ones.
	s.expect(http.StatusOK, http.MethodGet, crdPath+"/crontabs."+group, nil)
	r = s.expect(http.StatusMethodNotAllowed, http.MethodPost, base, crontab(group, "v1", "late", map[string]any{"cronSpec": "* * * * *"}))
	if !strings.Contains(string(r.body), "terminating") {
		t.Errorf("create while terminating: %s", r.body)
	}
	s.expect(http.StatusOK, http.MethodPatch, base+"/held", `{"metadata":{"finalizers":null}}`, "Content-Type", "application/merge-patch+json")
	eventually(t, "definition gone", func() (bool, string) {
		r := s.do(http.MethodGet, crdPath+"/crontabs."+group, nil)
		return r.code == http.StatusNotFound, string(r.body)
	})
	eventually(t, "resource no longer served", func() (bool, string) {
		r := s.do(http.MethodGet, base, nil)
		return r.code == http.StatusNotFound, string(r.body)
	})
	// A new definition of the same resource starts empty: the objects were
	// deleted from storage, not hidden.
	s.createCRD(crontabCRD(group))
	if items := s.expect(http.StatusOK, http.MethodGet, base, nil).object(t)["items"].([]any); len(items) != 0 {
		t.Errorf("objects survived their definition: %v", items)
	}
	s.deleteCRD("crontabs." + group)
}

func toStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, e := range list {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}

func mustJSON(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
}
