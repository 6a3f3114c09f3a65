package apiextensions

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/dynamic"
)

// shirtCRD is a definition of Shirts in group, served in v1 (stored, with
// spec.color and spec.size selectable) and v2 (spec.color only).
func shirtCRD(group string) map[string]any {
	version := func(name string, storage bool, selectable ...string) map[string]any {
		var fields []any
		for _, p := range selectable {
			fields = append(fields, map[string]any{"jsonPath": p})
		}
		return map[string]any{
			"name": name, "served": true, "storage": storage,
			"selectableFields": fields,
			"schema": map[string]any{"openAPIV3Schema": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"spec": map[string]any{
						"type": "object",
						"properties": map[string]any{
							"color": map[string]any{"type": "string"},
							"size":  map[string]any{"type": "string"},
							"tags":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
						},
					},
				},
			}},
		}
	}
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "shirts." + group},
		"spec": map[string]any{
			"group": group,
			"scope": "Namespaced",
			"names": map[string]any{"plural": "shirts", "singular": "shirt", "kind": "Shirt"},
			"versions": []any{
				version("v1", true, ".spec.color", ".spec.size"),
				version("v2", false, ".spec.color"),
			},
		},
	}
}

// TestSelectableFields lists and watches custom objects with field
// selectors on the definition's selectable fields: the watch sees an
// object enter the selection as ADDED and leave it as DELETED.
func TestSelectableFields(t *testing.T) {
	s := startServer(t)
	const group = "fields.example.com"

	// Bad selectable fields are refused with the field path.
	bad := shirtCRD("bad." + group)
	bad["spec"].(map[string]any)["versions"].([]any)[1].(map[string]any)["selectableFields"] = []any{
		map[string]any{"jsonPath": ".metadata.name"}, map[string]any{"jsonPath": ".spec.tags"}, map[string]any{"jsonPath": ".spec.nothing"},
	}
	r := s.expect(http.StatusUnprocessableEntity, http.MethodPost, crdPath, bad)
	for _, want := range []string{"spec.versions[1].selectableFields[0].jsonPath", "must not point to fields in metadata",
		"spec.versions[1].selectableFields[1].jsonPath", "must point to a field of type string, boolean or integer",
		"spec.versions[1].selectableFields[2].jsonPath"} {
		if !strings.Contains(string(r.body), want) {
			t.Errorf("refusal lacks %q: %s", want, r.body)
		}
	}

	s.createCRD(shirtCRD(group))
	ns := s.CreateNamespace(t, "fields")
	dyn, err := dynamic.NewForConfig(s.Config)
	if err != nil {
		t.Fatal(err)
	}
	shirts := dyn.Resource(schema.GroupVersionResource{Group: group, Version: "v1", Resource: "shirts"}).Namespace(ns)
	shirtsV2 := dyn.Resource(schema.GroupVersionResource{Group: group, Version: "v2", Resource: "shirts"}).Namespace(ns)
	create := func(name, color, size string) *unstructured.Unstructured {
		t.Helper()
		u := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": group + "/v1", "kind": "Shirt",
			"metadata": map[string]any{"name": name},
			"spec":     map[string]any{"color": color, "size": size},
		}}
		out, err := shirts.Create(background, u, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
		return out
	}
	create("a", "red", "S")
	create("b", "blue", "M")
	create("c", "red", "L")

	names := func(l *unstructured.Unstructured) []string {
		var out []string
		items, _ := l.Object["items"].([]any)
		for _, it := range items {
			m, _ := it.(map[string]any)
			out = append(out, unstructured.NestedString(m, "metadata", "name"))
		}
		slices.Sort(out)
		return out
	}
	for _, c := range []struct {
		client   *dynamic.ResourceClient
		selector string
		want     []string
	}{
		{shirts, "spec.color=red", []string{"a", "c"}},
		{shirts, "spec.color=red,spec.size=L", []string{"c"}},
		{shirts, "spec.color!=red", []string{"b"}},
		{shirts, "spec.size=XL", nil},
		{shirtsV2, "spec.color=blue", []string{"b"}},
		{shirts, "metadata.name=a,spec.color=red", []string{"a"}},
	} {
		l, err := c.client.List(background, metav1.ListOptions{FieldSelector: c.selector})
		if err != nil {
			t.Fatalf("list %s: %v", c.selector, err)
		}
		if got := names(l); !slices.Equal(got, c.want) {
			t.Errorf("list %s: got %v, want %v", c.selector, got, c.want)
		}
	}
	// v2 does not offer spec.size, for lists and watches.
	path := "/apis/" + group + "/v2/namespaces/" + ns + "/shirts?fieldSelector=spec.size%3DS"
	for _, p := range []string{path, path + "&watch=1"} {
		r := s.expect(http.StatusBadRequest, http.MethodGet, p, nil)
		if !strings.Contains(string(r.body), "field label not supported: spec.size") {
			t.Errorf("GET %s: %s", p, r.body)
		}
	}

	list, err := shirts.List(background, metav1.ListOptions{FieldSelector: "spec.color=red"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		client *dynamic.ResourceClient
	}{{"v1", shirts}, {"v2", shirtsV2}} {
		t.Run(c.name, func(t *testing.T) {
			w, err := c.client.Watch(background, metav1.ListOptions{FieldSelector: "spec.color=red", ResourceVersion: list.GetResourceVersion()})
			if err != nil {
				t.Fatalf("watch: %v", err)
			}
			defer w.Stop()
			if c.name == "v1" {
				// b turns red (enters), a turns green (leaves), d is
				// created yellow (never seen), e red; both watches, from
				// the same revision, see the same history.
				setColor := func(name, color string) {
					t.Helper()
					patch := []byte(`{"spec":{"color":"` + color + `"}}`)
					if _, err := shirts.Patch(background, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
						t.Fatalf("patch %s: %v", name, err)
					}
				}
				setColor("b", "red")
				setColor("a", "green")
				create("d", "yellow", "S")
				create("e", "red", "M")
			}
			want := []string{"ADDED b", "DELETED a", "ADDED e"}
			var got []string
			timeout := time.After(30 * time.Second)
			for len(got) < len(want) {
				select {
				case ev, ok := <-w.ResultChan():
					if !ok {
						t.Fatalf("watch closed after %v", got)
					}
					u, isU := ev.Object.(*unstructured.Unstructured)
					if !isU {
						t.Fatalf("event %s of %T: %v", ev.Type, ev.Object, ev.Object)
					}
					if ev.Type != watch.Bookmark {
						got = append(got, string(ev.Type)+" "+u.GetName())
					}
					if v := u.GetAPIVersion(); v != group+"/"+c.name {
						t.Errorf("event object in %s", v)
					}
				case <-timeout:
					t.Fatalf("watch events: got %v, want %v", got, want)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("watch events: got %v, want %v", got, want)
			}
		})
	}
}
