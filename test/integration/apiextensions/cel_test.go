package apiextensions

import (
	"net/http"
	"strings"
	"testing"

	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// rulesCRD is a namespaced Widget definition whose schema carries CEL
// rules: a rule with a message, one with a messageExpression, reason and
// fieldPath, a transition rule, a status rule, and a map list.
func rulesCRD(group string) map[string]any {
	validations := func(rules ...map[string]any) []any {
		out := make([]any, len(rules))
		for i, r := range rules {
			out[i] = r
		}
		return out
	}
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1",
		"kind":       "CustomResourceDefinition",
		"metadata":   map[string]any{"name": "widgets." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"spec": map[string]any{
							"type": "object",
							"x-kubernetes-validations": validations(
								map[string]any{"rule": "self.minReplicas <= self.maxReplicas", "message": "minReplicas must not exceed maxReplicas"},
								map[string]any{"rule": "self.maxReplicas <= 100", "messageExpression": "'maxReplicas ' + string(self.maxReplicas) + ' is over 100'",
									"reason": "FieldValueForbidden", "fieldPath": ".maxReplicas"},
							),
							"properties": map[string]any{
								"minReplicas": map[string]any{"type": "integer"},
								"maxReplicas": map[string]any{"type": "integer"},
								"class": map[string]any{"type": "string", "maxLength": 63,
									"x-kubernetes-validations": validations(map[string]any{"rule": "self == oldSelf", "message": "class is immutable"})},
								"ports": map[string]any{
									"type": "array", "maxItems": 8, "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"},
									"items": map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{
										"name": map[string]any{"type": "string", "maxLength": 15},
										"port": map[string]any{"type": "integer"},
									}},
								},
								"tags": map[string]any{"type": "array", "maxItems": 8, "x-kubernetes-list-type": "set", "items": map[string]any{"type": "string", "maxLength": 15}},
							},
						},
						"status": map[string]any{
							"type": "object",
							"properties": map[string]any{"ready": map[string]any{"type": "integer",
								"x-kubernetes-validations": validations(map[string]any{"rule": "self >= 0", "message": "ready must not be negative"})}},
						},
					},
				}},
			}},
		},
	}
}

func widgetObject(group, name string, spec map[string]any) map[string]any {
	return map[string]any{"apiVersion": group + "/v1", "kind": "Widget", "metadata": map[string]any{"name": name}, "spec": spec}
}

// expectInvalid checks a 422 Status: reason Invalid, and the causes'
// fields and messages contain the given ones.
func expectInvalid(t *testing.T, r response, field, message string) {
	t.Helper()
	if r.code != http.StatusUnprocessableEntity {
		t.Fatalf("got %d, want 422: %s", r.code, r.body)
	}
	st := r.object(t)
	if st["reason"] != "Invalid" {
		t.Errorf("reason %v, want Invalid: %s", st["reason"], r.body)
	}
	causes, _ := unstructured.NestedField(st, "details", "causes").([]any)
	for _, c := range causes {
		cm, _ := c.(map[string]any)
		if cm["field"] == field && strings.Contains(cm["message"].(string), message) {
			return
		}
	}
	t.Errorf("no cause with field %q and message %q: %s", field, message, r.body)
}

// TestValidationRules: x-kubernetes-validations are kept in the stored
// definition and checked on create, update and status update; a
// violation answers 422 with the rule's message and field path and
// stores nothing.
func TestValidationRules(t *testing.T) {
	s := startServer(t)
	const group = "rules.example.com"
	crd := rulesCRD(group)
	s.createCRD(crd)
	ns := s.CreateNamespace(t, "rules")
	base := "/apis/" + group + "/v1/namespaces/" + ns + "/widgets"

	// The rules are stored and served back, not pruned.
	got := s.expect(http.StatusOK, http.MethodGet, crdPath+"/widgets."+group, nil).object(t)
	rules, _ := unstructured.NestedField(got, "spec", "versions").([]any)[0].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)["spec"].(map[string]any)["x-kubernetes-validations"].([]any)
	if len(rules) != 2 || rules[1].(map[string]any)["messageExpression"] == nil || rules[1].(map[string]any)["reason"] != "FieldValueForbidden" {
		t.Fatalf("stored rules %v", rules)
	}

	// A violation on create: 422 with the message, nothing stored.
	r := s.do(http.MethodPost, base, widgetObject(group, "bad", map[string]any{"minReplicas": 3, "maxReplicas": 2}))
	expectInvalid(t, r, "spec", "minReplicas must not exceed maxReplicas")
	if !strings.Contains(string(r.body), `spec: Invalid value: \"object\": minReplicas must not exceed maxReplicas`) {
		t.Errorf("message: %s", r.body)
	}
	s.expect(http.StatusNotFound, http.MethodGet, base+"/bad", nil)

	// messageExpression, reason and fieldPath.
	r = s.do(http.MethodPost, base, widgetObject(group, "big", map[string]any{"minReplicas": 1, "maxReplicas": 500}))
	expectInvalid(t, r, "spec.maxReplicas", "maxReplicas 500 is over 100")
	if !strings.Contains(string(r.body), `"reason":"FieldValueForbidden"`) {
		t.Errorf("cause reason: %s", r.body)
	}
	s.expect(http.StatusNotFound, http.MethodGet, base+"/big", nil)

	// A valid object is stored.
	s.expect(http.StatusCreated, http.MethodPost, base, widgetObject(group, "w", map[string]any{"minReplicas": 1, "maxReplicas": 2, "class": "gold"}))

	// Update: the transition rule blocks changing the class; nothing is
	// stored.
	r = s.do(http.MethodPatch, base+"/w", `{"spec":{"class":"silver"}}`, "Content-Type", "application/merge-patch+json")
	expectInvalid(t, r, "spec.class", "class is immutable")
	cur := s.expect(http.StatusOK, http.MethodGet, base+"/w", nil).object(t)
	if c := unstructured.NestedString(cur, "spec", "class"); c != "gold" {
		t.Errorf("class %q stored after a refused update", c)
	}
	// An update that keeps the class and breaks another rule is refused
	// too; one that keeps the rules passes.
	r = s.do(http.MethodPatch, base+"/w", `{"spec":{"minReplicas":9}}`, "Content-Type", "application/merge-patch+json")
	expectInvalid(t, r, "spec", "minReplicas must not exceed maxReplicas")
	s.expect(http.StatusOK, http.MethodPatch, base+"/w", `{"spec":{"maxReplicas":5}}`, "Content-Type", "application/merge-patch+json")

	// Status update: the status rule applies to /status writes.
	r = s.do(http.MethodPatch, base+"/w/status", `{"status":{"ready":-1}}`, "Content-Type", "application/merge-patch+json")
	expectInvalid(t, r, "status.ready", "ready must not be negative")
	s.expect(http.StatusOK, http.MethodPatch, base+"/w/status", `{"status":{"ready":1}}`, "Content-Type", "application/merge-patch+json")

	// List types: duplicate map keys and set items are refused.
	r = s.do(http.MethodPost, base, widgetObject(group, "dup", map[string]any{"minReplicas": 1, "maxReplicas": 2,
		"ports": []any{map[string]any{"name": "http", "port": 80}, map[string]any{"name": "http", "port": 8080}}}))
	expectInvalid(t, r, "spec.ports[1]", `Duplicate value: {"name":"http"}`)
	r = s.do(http.MethodPost, base, widgetObject(group, "dup", map[string]any{"minReplicas": 1, "maxReplicas": 2, "tags": []any{"a", "b", "a"}}))
	expectInvalid(t, r, "spec.tags[2]", `Duplicate value: "a"`)
	s.expect(http.StatusNotFound, http.MethodGet, base+"/dup", nil)
}

// TestValidationRuleRefusesDefinition: a rule that does not compile, or
// whose estimated cost is over the limit, refuses the definition with
// 422 and the rule's field path.
func TestValidationRuleRefusesDefinition(t *testing.T) {
	s := startServer(t)
	const group = "badrules.example.com"
	crd := rulesCRD(group)
	spec := unstructured.NestedField(crd, "spec", "versions").([]any)[0].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)["spec"].(map[string]any)
	spec["x-kubernetes-validations"] = []any{map[string]any{"rule": "self.nope > 1"}}
	r := s.do(http.MethodPost, crdPath, crd)
	expectInvalid(t, r, "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule", "compilation failed: ERROR: <input>:1:5: undefined field 'nope'")
	s.expect(http.StatusNotFound, http.MethodGet, crdPath+"/widgets."+group, nil)

	// Unbounded nested lists make a cheap rule too expensive.
	spec["x-kubernetes-validations"] = nil
	spec["properties"].(map[string]any)["matrix"] = map[string]any{"type": "array", "items": map[string]any{"type": "array", "items": map[string]any{"type": "string"},
		"x-kubernetes-validations": []any{map[string]any{"rule": "self.all(x, self.all(y, x == y || x.matches('^[a-z]+$')))"}}}}
	r = s.do(http.MethodPost, crdPath, crd)
	expectInvalid(t, r, "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[matrix].items.x-kubernetes-validations[0].rule", "estimated rule cost exceeds budget by factor of")

	// A map list whose keys are not required is refused too.
	delete(spec["properties"].(map[string]any), "matrix")
	spec["properties"].(map[string]any)["ports"].(map[string]any)["items"].(map[string]any)["required"] = nil
	r = s.do(http.MethodPost, crdPath, crd)
	expectInvalid(t, r, "spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[ports].items.properties[name]", "all map keys must be required or have a default value")
}
