package apiextensions

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestStorageVersionChange moves a definition's storage version from v1
// to v2: an object written before stays in v1 in etcd and is still served
// in v2, so that a JSON patch through v2 applies (the AdmissionWebhook
// conformance spec "mutate custom resource with different stored
// version" patches so).
func TestStorageVersionChange(t *testing.T) {
	s := startServer(t)
	const group = "storage.example.com"
	crd := shirtCRD(group)
	s.createCRD(crd)
	ns := s.CreateNamespace(t, "storage")
	base := func(version string) string { return "/apis/" + group + "/" + version + "/namespaces/" + ns + "/shirts" }
	shirt := func(name string) map[string]any {
		return map[string]any{"apiVersion": group + "/v1", "kind": "Shirt", "metadata": map[string]any{"name": name}, "spec": map[string]any{"color": "red"}}
	}
	s.expect(http.StatusCreated, http.MethodPost, base("v1"), shirt("old"))

	stored := func(name string) string {
		t.Helper()
		resp, err := testEtcd.Client().Get(background, "/registry/"+group+"/shirts/"+ns+"/"+name)
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("etcd read of %s: %v %v", name, resp, err)
		}
		return string(resp.Kvs[0].Value)
	}
	if got := stored("old"); !strings.Contains(got, `"apiVersion":"`+group+`/v1"`) {
		t.Fatalf("stored before the change: %s", got)
	}

	// v2 becomes the storage version; wait until new writes are stored so.
	cur := s.expect(http.StatusOK, http.MethodGet, crdPath+"/shirts."+group, nil).object(t)
	versions := unstructured.NestedField(cur, "spec", "versions").([]any)
	versions[0].(map[string]any)["storage"] = false
	versions[1].(map[string]any)["storage"] = true
	s.expect(http.StatusOK, http.MethodPut, crdPath+"/shirts."+group, cur)
	probe := 0
	eventually(t, "v2 is the storage version", func() (bool, string) {
		probe++
		name := fmt.Sprintf("probe-%d", probe)
		s.expect(http.StatusCreated, http.MethodPost, base("v1"), shirt(name))
		got := stored(name)
		return strings.Contains(got, `"apiVersion":"`+group+`/v2"`), got
	})
	if got := stored("old"); !strings.Contains(got, `"apiVersion":"`+group+`/v1"`) {
		t.Fatalf("the old object was rewritten: %s", got)
	}

	// Read and JSON-patch the old object through the new storage version.
	got := s.expect(http.StatusOK, http.MethodGet, base("v2")+"/old", nil).object(t)
	if got["apiVersion"] != group+"/v2" {
		t.Errorf("GET through v2 answers %v", got["apiVersion"])
	}
	r := s.expect(http.StatusOK, http.MethodPatch, base("v2")+"/old", `[{"op":"add","path":"/spec/size","value":"M"}]`,
		"Content-Type", "application/json-patch+json")
	patched := r.object(t)
	if patched["apiVersion"] != group+"/v2" || unstructured.NestedString(patched, "spec", "size") != "M" {
		t.Errorf("patched object %v", patched)
	}
	if got := stored("old"); !strings.Contains(got, `"apiVersion":"`+group+`/v2"`) {
		t.Errorf("the patched object is not stored in v2: %s", got)
	}
	// A list through v2 answers every object in v2.
	list := s.expect(http.StatusOK, http.MethodGet, base("v2"), nil).object(t)
	for _, it := range list["items"].([]any) {
		if v := it.(map[string]any)["apiVersion"]; v != group+"/v2" {
			t.Errorf("listed %s in %v", unstructured.NestedString(it.(map[string]any), "metadata", "name"), v)
		}
	}
}
