package apiextensions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestDefaultingOnRead: objects stored before their schema gained a
// default are served with it (get, list, watch), without being written
// back; an object created under a default keeps it in storage when the
// default goes away. The upstream conformance spec "custom resource
// defaulting for requests and from storage works" asserts the same.
func TestDefaultingOnRead(t *testing.T) {
	s := startServer(t)
	const group = "defaults.example.com"
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "things." + group},
		"spec": map[string]any{
			"group": group,
			"scope": "Cluster",
			"names": map[string]any{"plural": "things", "singular": "thing", "kind": "Thing", "listKind": "ThingList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"a": map[string]any{"type": "string"},
						"b": map[string]any{"type": "string"},
					},
				}},
			}},
		},
	}
	s.createCRD(crd)
	base := "/apis/" + group + "/v1/things"
	thing := func(name string) map[string]any {
		return map[string]any{"apiVersion": group + "/v1", "kind": "Thing", "metadata": map[string]any{"name": name}}
	}
	created := s.expect(http.StatusCreated, http.MethodPost, base, thing("one")).object(t)
	if _, ok := created["a"]; ok {
		t.Fatalf("created %v has a without a default", created)
	}
	rv1 := unstructured.NestedString(created, "metadata", "resourceVersion")

	patchCRD := func(patch string) {
		t.Helper()
		s.expect(http.StatusOK, http.MethodPatch, crdPath+"/things."+group, patch, "Content-Type", "application/json-patch+json")
	}
	// fields reads a and b of the named thing ("-" when absent).
	fields := func(name string) (string, string, map[string]any) {
		t.Helper()
		obj := s.expect(http.StatusOK, http.MethodGet, base+"/"+name, nil).object(t)
		get := func(k string) string {
			if v, ok := obj[k]; ok {
				return fmt.Sprint(v)
			}
			return "-"
		}
		return get("a"), get("b"), obj
	}

	patchCRD(`[{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/a/default","value":"A"}]`)
	var one map[string]any
	eventually(t, "one defaulted on read", func() (bool, string) {
		a, b, obj := fields("one")
		one = obj
		return a == "A" && b == "-", fmt.Sprintf("a=%s b=%s", a, b)
	})
	if rv := unstructured.NestedString(one, "metadata", "resourceVersion"); rv != rv1 {
		t.Errorf("defaulting on read wrote the object: resourceVersion %s, was %s", rv, rv1)
	}
	list := s.expect(http.StatusOK, http.MethodGet, base, nil).object(t)
	items, _ := list["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["a"] != "A" {
		t.Errorf("list items %v: want one with a=A", items)
	}
	w := s.expect(http.StatusOK, http.MethodGet, base+"?watch=true&timeoutSeconds=1", nil)
	ev := map[string]any{}
	if err := json.NewDecoder(bytes.NewReader(w.body)).Decode(&ev); err != nil {
		t.Fatalf("watch %s: %v", w.body, err)
	}
	if obj, _ := ev["object"].(map[string]any); ev["type"] != "ADDED" || obj["a"] != "A" {
		t.Errorf("watch event %v: want ADDED with a=A", ev)
	}

	// Created under the default: stored with it.
	two := s.expect(http.StatusCreated, http.MethodPost, base, thing("two")).object(t)
	if two["a"] != "A" {
		t.Errorf("created %v: want a=A", two)
	}

	patchCRD(`[{"op":"remove","path":"/spec/versions/0/schema/openAPIV3Schema/properties/a/default"},
		{"op":"add","path":"/spec/versions/0/schema/openAPIV3Schema/properties/b/default","value":"B"}]`)
	eventually(t, "two defaulted on read for b", func() (bool, string) {
		a, b, _ := fields("two")
		return a == "A" && b == "B", fmt.Sprintf("a=%s b=%s", a, b)
	})
	// one's a was never stored: it goes with its default.
	if a, b, _ := fields("one"); a != "-" || b != "B" {
		t.Errorf("one: a=%s b=%s, want a absent and b=B", a, b)
	}

	// An update of an object read with defaults stores them.
	s.expect(http.StatusOK, http.MethodPatch, base+"/one", `{"metadata":{"labels":{"x":"y"}}}`, "Content-Type", "application/merge-patch+json")
	patchCRD(`[{"op":"remove","path":"/spec/versions/0/schema/openAPIV3Schema/properties/b/default"}]`)
	eventually(t, "b's default removed", func() (bool, string) {
		_, b, _ := fields("two")
		return b == "-", "two's b=" + b
	})
	if _, b, _ := fields("one"); b != "B" {
		t.Errorf("one after an update and the default's removal: b=%s, want the stored B", b)
	}
}
