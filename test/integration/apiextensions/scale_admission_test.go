package apiextensions

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestScaleAdmission: a custom resource's /scale update is admitted as
// the update of an autoscaling/v1 Scale at the subresource "scale", so a
// ValidatingAdmissionPolicy on "<plural>/scale" denies what kubectl scale
// sends (a merge patch of the Scale), an update and an apply, and leaves
// the main resource alone.
func TestScaleAdmission(t *testing.T) {
	s := startServer(t)
	group := "scaleadmission.example.com"
	s.createCRD(crontabCRD(group))
	ns := s.CreateNamespace(t, "crdscale")
	base := "/apis/" + group + "/v1/namespaces/" + ns + "/crontabs"
	s.expect(http.StatusCreated, http.MethodPost, base, crontab(group, "v1", "ct1", map[string]any{"cronSpec": "* * * * *", "replicas": 1}))

	const admission = "/apis/admissionregistration.k8s.io/v1/"
	policyPath, bindingPath := admission+"validatingadmissionpolicies", admission+"validatingadmissionpolicybindings"
	policy := "crontab-scale-" + ns
	s.expect(http.StatusCreated, http.MethodPost, policyPath, map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": map[string]any{"name": policy},
		"spec": map[string]any{
			"failurePolicy": "Fail",
			"matchConstraints": map[string]any{
				"resourceRules": []any{map[string]any{
					"apiGroups": []any{group}, "apiVersions": []any{"*"},
					"operations": []any{"UPDATE"}, "resources": []any{"crontabs/scale"},
				}},
				"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": ns}},
			},
			"validations": []any{map[string]any{
				"expression": "object.kind == 'Scale' && object.apiVersion == 'autoscaling/v1' && object.spec.replicas <= 3 && oldObject.kind == 'Scale'",
				"message":    "at most 3 replicas",
			}},
		},
	})
	s.expect(http.StatusCreated, http.MethodPost, bindingPath, map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
		"metadata": map[string]any{"name": policy},
		"spec":     map[string]any{"policyName": policy, "validationActions": []any{"Deny"}},
	})
	t.Cleanup(func() {
		s.do(http.MethodDelete, bindingPath+"/"+policy, nil)
		s.do(http.MethodDelete, policyPath+"/"+policy, nil)
	})

	want := fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' denied request: at most 3 replicas", policy, policy)
	// Policies reach the server through its watch cache.
	eventually(t, "kubectl scale of a crontab to 5 denied", func() (bool, string) {
		r := s.do(http.MethodPatch, base+"/ct1/scale?dryRun=All", `{"spec":{"replicas":5}}`, "Content-Type", "application/merge-patch+json")
		return r.code == http.StatusUnprocessableEntity && strings.Contains(string(r.body), want), fmt.Sprintf("%d %s", r.code, r.body)
	})
	replicas := func() int64 {
		n, _ := unstructured.Int64(unstructured.NestedField(s.expect(http.StatusOK, http.MethodGet, base+"/ct1", nil).object(t), "spec", "replicas"))
		return n
	}

	// An update of the Scale is denied as the patch is.
	sc := s.expect(http.StatusOK, http.MethodGet, base+"/ct1/scale", nil).object(t)
	unstructured.SetNestedField(sc, int64(4), "spec", "replicas")
	if r := s.expect(http.StatusUnprocessableEntity, http.MethodPut, base+"/ct1/scale", sc); !strings.Contains(string(r.body), want) {
		t.Errorf("update of the scale: %s", r.body)
	}
	// So is an apply of the Scale.
	apply := `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"ct1"},"spec":{"replicas":6}}`
	if r := s.expect(http.StatusUnprocessableEntity, http.MethodPatch, base+"/ct1/scale?fieldManager=test&force=true", apply, "Content-Type", "application/apply-patch+yaml"); !strings.Contains(string(r.body), want) {
		t.Errorf("apply of the scale: %s", r.body)
	}
	if n := replicas(); n != 1 {
		t.Errorf("spec.replicas = %d after denied scales, want 1", n)
	}

	// Within the policy the scale goes through.
	s.expect(http.StatusOK, http.MethodPatch, base+"/ct1/scale", `{"spec":{"replicas":3}}`, "Content-Type", "application/merge-patch+json")
	if n := replicas(); n != 3 {
		t.Errorf("spec.replicas = %d after a scale to 3", n)
	}
	// The policy matches crontabs/scale, not crontabs.
	s.expect(http.StatusOK, http.MethodPatch, base+"/ct1", `{"spec":{"replicas":7}}`, "Content-Type", "application/merge-patch+json")
	if n := replicas(); n != 7 {
		t.Errorf("spec.replicas = %d after a patch of the crontab to 7", n)
	}
}
