package apply

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/integration/framework"
)

// widgetCRD declares widgets.apply.kubecore.io: spec.items a map list
// keyed by name, spec.tags an atomic list, spec.selector an atomic map,
// spec.labels a granular map; with the status and scale subresources.
const widgetCRD = `{
  "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
  "metadata": {"name": "widgets.apply.kubecore.io"},
  "spec": {
    "group": "apply.kubecore.io", "scope": "Namespaced",
    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
    "versions": [{
      "name": "v1", "served": true, "storage": true,
      "subresources": {"status": {}, "scale": {"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"}},
      "schema": {"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {
          "replicas": {"type": "integer"},
          "items": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "value": {"type": "integer"}}}},
          "tags": {"type": "array", "x-kubernetes-list-type": "atomic", "items": {"type": "string"}},
          "selector": {"type": "object", "x-kubernetes-map-type": "atomic", "additionalProperties": {"type": "string"}},
          "labels": {"type": "object", "additionalProperties": {"type": "string"}}
        }},
        "status": {"type": "object", "properties": {"replicas": {"type": "integer"}, "phase": {"type": "string"}}}
      }}}
    }]
  }
}`

func widget(spec string) string {
	return "apiVersion: apply.kubecore.io/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n" + spec
}

func TestApplyCustomResourceMarkers(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	c := newClient(t, s)
	c.do(http.MethodPost, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "application/json", widgetCRD).expect(t, http.StatusCreated)
	ns := s.CreateNamespace(t, "apply-crd")
	path := "/apis/apply.kubecore.io/v1/namespaces/" + ns + "/widgets/w"

	// a creates on apply once the resource is served.
	first := widget("  replicas: 1\n  items: [{name: a, value: 1}]\n  tags: [x]\n  selector: {k1: v1}\n  labels: {l1: v1}\n")
	var r response
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		r = c.apply(path, "fieldManager=a", first)
		if r.code != http.StatusNotFound || time.Now().After(deadline) {
			break
		}
	}
	obj := r.expect(t, http.StatusCreated).object(t)
	if !owns(managers(obj)["a/Apply"], `"k:{\"name\":\"a\"}"`, `"f:tags"`, `"f:selector"`, `"f:l1"`) {
		t.Fatalf("a's entry: %v", managers(obj))
	}

	// A map list merges by key; a granular map key by key.
	obj = c.apply(path, "fieldManager=b", widget("  items: [{name: b, value: 2}]\n  labels: {l2: v2}\n")).expect(t, http.StatusOK).object(t)
	if items := get(obj, "spec", "items").([]any); len(items) != 2 {
		t.Fatalf("items not merged by name: %v", items)
	}
	if l := get(obj, "spec", "labels").(map[string]any); len(l) != 2 {
		t.Fatalf("granular map not merged: %v", l)
	}

	// An atomic list and an atomic map are owned whole: another value
	// conflicts on the list or map itself.
	st := c.apply(path, "fieldManager=b", widget("  items: [{name: b, value: 2}]\n  labels: {l2: v2}\n  tags: [z]\n")).expect(t, http.StatusConflict).status(t)
	if !strings.Contains(st.Message, `conflict with "a": .spec.tags`) {
		t.Fatalf("atomic list conflict: %s", st.Message)
	}
	st = c.apply(path, "fieldManager=b", widget("  items: [{name: b, value: 2}]\n  labels: {l2: v2}\n  selector: {k2: v2}\n")).expect(t, http.StatusConflict).status(t)
	if !strings.Contains(st.Message, `conflict with "a": .spec.selector`) {
		t.Fatalf("atomic map conflict: %s", st.Message)
	}
	obj = c.apply(path, "fieldManager=b&force=true", widget("  items: [{name: b, value: 2}]\n  labels: {l2: v2}\n  tags: [z]\n  selector: {k2: v2}\n")).expect(t, http.StatusOK).object(t)
	if tags := get(obj, "spec", "tags").([]any); len(tags) != 1 || tags[0] != "z" {
		t.Fatalf("atomic list merged instead of replaced: %v", tags)
	}
	if sel := get(obj, "spec", "selector").(map[string]any); len(sel) != 1 || sel["k2"] != "v2" {
		t.Fatalf("atomic map merged instead of replaced: %v", sel)
	}

	// A duplicate key of a map list is refused.
	c.apply(path, "fieldManager=b", widget("  items: [{name: b}, {name: b}]\n")).expect(t, http.StatusInternalServerError)

	// status and scale of the custom resource.
	obj = c.apply(path+"/status", "fieldManager=ctrl", "apiVersion: apply.kubecore.io/v1\nkind: Widget\nmetadata:\n  name: w\nstatus:\n  phase: Ready\n").expect(t, http.StatusOK).object(t)
	if get(obj, "status", "phase") != "Ready" || !owns(managers(obj)["ctrl/Apply/status"], `"f:phase"`) {
		t.Fatalf("status apply: %v %v", obj["status"], managers(obj))
	}
	scale := c.apply(path+"/scale", "fieldManager=hpa&force=true", "apiVersion: autoscaling/v1\nkind: Scale\nmetadata:\n  name: w\nspec:\n  replicas: 3\n").expect(t, http.StatusOK).object(t)
	if get(scale, "spec", "replicas") != float64(3) {
		t.Fatalf("scale = %v", scale)
	}
	obj = c.do(http.MethodGet, path, "", "").expect(t, http.StatusOK).object(t)
	if get(obj, "spec", "replicas") != float64(3) || !owns(managers(obj)["hpa/Apply/scale"], `"f:replicas"`) || owns(managers(obj)["a/Apply"], `"f:replicas"`) {
		t.Fatalf("after scale apply: %v %v", obj["spec"], managers(obj))
	}

	// An unknown field is named, as the field manager refuses it.
	st = c.apply(path, "fieldManager=a&fieldValidation=Strict", widget("  bogus: 1\n")).expect(t, http.StatusInternalServerError).status(t)
	if !strings.Contains(st.Message, ".spec.bogus: field not declared in schema") {
		t.Fatalf("strict message: %s", st.Message)
	}
}
