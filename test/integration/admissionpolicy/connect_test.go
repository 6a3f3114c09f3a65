package admissionpolicy

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/integration/framework"
)

// TestValidatingPolicyOnConnect checks that a ValidatingAdmissionPolicy
// with a CONNECT rule on pods/exec judges the PodExecOptions of an exec,
// and that one whose rule names only CREATE does not see it.
func TestValidatingPolicyOnConnect(t *testing.T) {
	c := start(t, framework.APIServerOptions{})
	c.mustDo(http.MethodPost, "/api/v1/namespaces/"+c.ns+"/pods", map[string]any{
		"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p"},
		"spec": map[string]any{"nodeName": "no-such-node", "automountServiceAccountToken": false,
			"containers": []any{map[string]any{"name": "c", "image": "busybox"}}},
	})
	execRule := func(op string) map[string]any {
		return map[string]any{
			"resourceRules":     []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{op}, "resources": []any{"pods/exec"}}},
			"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": c.ns}},
		}
	}
	for _, p := range []struct{ name, op string }{{"no-rm-" + c.ns, "CONNECT"}, {"create-only-" + c.ns, "CREATE"}} {
		c.mustDo(http.MethodPost, admissionPath+"validatingadmissionpolicies", map[string]any{
			"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": map[string]any{"name": p.name},
			"spec": map[string]any{"matchConstraints": execRule(p.op), "validations": []any{map[string]any{
				"expression": `object.kind == "PodExecOptions" && object.command[0] != "rm"`, "message": p.name + " refuses rm"}}},
		})
		c.mustDo(http.MethodPost, admissionPath+"validatingadmissionpolicybindings", c.binding(p.name, p.name, []string{"Deny"}, nil))
	}
	execPath := "/api/v1/namespaces/" + c.ns + "/pods/p/exec?container=c&stdout=true&command="
	var r response
	framework.WaitFor(t, 30*time.Second, "the policy to deny the exec", func() (bool, error) {
		r = c.do(http.MethodPost, execPath+"rm", nil)
		return r.code == http.StatusUnprocessableEntity, nil
	})
	if msg := r.message(); !strings.Contains(msg, "no-rm-"+c.ns+" refuses rm") || strings.Contains(msg, "create-only") {
		t.Errorf("denial message %q", msg)
	}
	// A denial without a reason is a 422 Invalid, as in Kubernetes.
	if reason, _ := r.body["reason"].(string); reason != "Invalid" {
		t.Errorf("denial reason %q, want Invalid", reason)
	}
	// Another command passes admission and fails on, at the missing node.
	if r = c.do(http.MethodPost, execPath+"ls", nil); r.code == http.StatusUnprocessableEntity || r.code == http.StatusForbidden {
		t.Errorf("exec ls: %d %v", r.code, r.body)
	}
}
