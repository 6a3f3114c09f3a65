// Package admissionpolicy holds the integration tests of
// ValidatingAdmissionPolicies and MutatingAdmissionPolicies over a real
// API server: parameters, the Deny, Warn and Audit actions, failurePolicy,
// the cost budget, ApplyConfiguration and JSONPatch mutations, and policy
// changes taking effect without a restart.
package admissionpolicy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }

// client sends raw JSON requests as the admin.
type client struct {
	t   *testing.T
	s   *framework.APIServer
	hc  *http.Client
	ns  string
	tag string // a label value unique to the test, that its policies select
}

type response struct {
	code     int
	body     map[string]any
	warnings []string
}

func (r response) message() string { s, _ := r.body["message"].(string); return s }

func start(t *testing.T, opts framework.APIServerOptions) *client {
	t.Helper()
	opts.Etcd = testEtcd
	s := framework.StartAPIServer(t, opts)
	c := &client{t: t, s: s, hc: s.HTTPClient(t)}
	c.ns = s.CreateNamespace(t, "policy")
	c.tag = c.ns
	return c
}

func (c *client) do(method, path string, body any) response {
	c.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.s.URL+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if method == http.MethodPatch {
		req.Header.Set("Content-Type", "application/merge-patch+json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	out := response{code: resp.StatusCode, warnings: resp.Header.Values("Warning")}
	raw, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(raw, &out.body)
	return out
}

func (c *client) mustDo(method, path string, body any) response {
	c.t.Helper()
	r := c.do(method, path, body)
	if r.code >= 300 {
		c.t.Fatalf("%s %s: %d %v", method, path, r.code, r.body)
	}
	return r
}

const admissionPath = "/apis/admissionregistration.k8s.io/v1/"

// policy is a ValidatingAdmissionPolicy on the configmaps labeled with the
// test's tag.
func (c *client) policy(name string, spec map[string]any) map[string]any {
	spec["matchConstraints"] = map[string]any{
		"resourceRules":  []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE", "UPDATE"}, "resources": []any{"configmaps"}}},
		"objectSelector": map[string]any{"matchLabels": map[string]any{"policy-test": c.tag}},
	}
	return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy", "metadata": map[string]any{"name": name}, "spec": spec}
}

func (c *client) binding(name, policy string, actions []string, paramRef map[string]any) map[string]any {
	spec := map[string]any{"policyName": policy, "validationActions": actions}
	if paramRef != nil {
		spec["paramRef"] = paramRef
	}
	return map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding", "metadata": map[string]any{"name": name}, "spec": spec}
}

// configMap is a configmap the test's policies select, with keys.
func (c *client) configMap(name string, keys int) map[string]any {
	data := map[string]any{}
	for i := range keys {
		data[fmt.Sprintf("k%d", i)] = "v"
	}
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "labels": map[string]any{"policy-test": c.tag}}, "data": data}
}

func (c *client) cmPath() string { return "/api/v1/namespaces/" + c.ns + "/configmaps" }

// createDryRun creates cm as a dry run.
func (c *client) createDryRun(cm map[string]any) response {
	c.t.Helper()
	return c.do(http.MethodPost, c.cmPath()+"?dryRun=All", cm)
}

// eventually waits until a dry-run create of cm answers as check says:
// policies reach the server through its watch cache.
func (c *client) eventually(what string, cm map[string]any, check func(response) bool) response {
	c.t.Helper()
	var last response
	framework.WaitFor(c.t, 30*time.Second, what, func() (bool, error) {
		last = c.createDryRun(cm)
		return check(last), nil
	})
	return last
}

func TestValidatingPolicyWithParams(t *testing.T) {
	c := start(t, framework.APIServerOptions{})
	c.mustDo(http.MethodPost, "/api/v1/namespaces/"+c.ns+"/configmaps", map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "limits"}, "data": map[string]any{"maxKeys": "2"}})
	pol := c.policy("max-keys-"+c.tag, map[string]any{
		"paramKind": map[string]any{"apiVersion": "v1", "kind": "ConfigMap"},
		"variables": []any{map[string]any{"name": "keys", "expression": "has(object.data) ? object.data.size() : 0"}},
		"validations": []any{map[string]any{
			"expression":        "variables.keys <= int(params.data.maxKeys)",
			"messageExpression": "'too many keys: ' + string(variables.keys) + ' > ' + params.data.maxKeys",
			"reason":            "Invalid",
		}},
	})
	c.mustDo(http.MethodPost, admissionPath+"validatingadmissionpolicies", pol)
	c.mustDo(http.MethodPost, admissionPath+"validatingadmissionpolicybindings", c.binding("max-keys-"+c.tag, "max-keys-"+c.tag, []string{"Deny"},
		map[string]any{"name": "limits", "namespace": c.ns, "parameterNotFoundAction": "Deny"}))

	r := c.eventually("a configmap of 3 keys refused", c.configMap("three", 3), func(r response) bool { return r.code != http.StatusCreated })
	want := fmt.Sprintf("ValidatingAdmissionPolicy 'max-keys-%s' with binding 'max-keys-%s' denied request: too many keys: 3 > 2", c.tag, c.tag)
	if r.code != http.StatusUnprocessableEntity || !strings.Contains(r.message(), want) || r.body["reason"] != "Invalid" {
		t.Fatalf("create of 3 keys: %d %v, want 422 Invalid with %q", r.code, r.body, want)
	}
	if r := c.createDryRun(c.configMap("two", 2)); r.code != http.StatusCreated {
		t.Fatalf("create of 2 keys: %d %v", r.code, r.body)
	}
	// Nothing refused is stored.
	if r := c.do(http.MethodPost, c.cmPath(), c.configMap("three", 3)); r.code != http.StatusUnprocessableEntity {
		t.Fatalf("create of 3 keys: %d", r.code)
	}
	if r := c.do(http.MethodGet, c.cmPath()+"/three", nil); r.code != http.StatusNotFound {
		t.Fatalf("refused configmap stored: %d", r.code)
	}

	// The parameter decides: raising it lets the object in.
	c.mustDo(http.MethodPatch, c.cmPath()+"/limits", map[string]any{"data": map[string]any{"maxKeys": "5"}})
	c.eventually("a configmap of 3 keys allowed once maxKeys is 5", c.configMap("three", 3), func(r response) bool { return r.code == http.StatusCreated })

	// A missing parameter with parameterNotFoundAction Deny refuses.
	c.mustDo(http.MethodDelete, c.cmPath()+"/limits", nil)
	r = c.eventually("a configmap refused without its parameter", c.configMap("one", 1), func(r response) bool { return r.code != http.StatusCreated })
	if r.code != http.StatusUnprocessableEntity || !strings.Contains(r.message(), "no params found") {
		t.Fatalf("create without params: %d %v", r.code, r.body)
	}
}

func TestValidatingPolicyWarnAndAudit(t *testing.T) {
	auditLog := filepath.Join(t.TempDir(), "audit.log")
	c := start(t, framework.APIServerOptions{AuditLogPath: auditLog})
	name := "no-big-" + c.tag
	c.mustDo(http.MethodPost, admissionPath+"validatingadmissionpolicies", c.policy(name, map[string]any{
		"validations":      []any{map[string]any{"expression": "object.data.size() < 2", "message": "at most one key"}},
		"auditAnnotations": []any{map[string]any{"key": "keys", "valueExpression": "'keys=' + string(object.data.size())"}},
	}))
	c.mustDo(http.MethodPost, admissionPath+"validatingadmissionpolicybindings", c.binding(name, name, []string{"Warn", "Audit"}, nil))
	want := fmt.Sprintf("Validation failed for ValidatingAdmissionPolicy '%s' with binding '%s': at most one key", name, name)
	c.eventually("a Warning on a configmap of 2 keys", c.configMap("warned", 2), func(r response) bool {
		return r.code == http.StatusCreated && len(r.warnings) > 0
	})
	r := c.mustDo(http.MethodPost, c.cmPath(), c.configMap("warned", 2))
	if len(r.warnings) != 1 || !strings.Contains(r.warnings[0], want) || !strings.HasPrefix(r.warnings[0], "299 - ") {
		t.Fatalf("warnings %q, want one with %q", r.warnings, want)
	}
	// The audit event of that create has both annotations.
	framework.WaitFor(t, 30*time.Second, "the audit annotations of the create", func() (bool, error) {
		b, err := os.ReadFile(auditLog)
		if err != nil {
			return false, nil
		}
		for line := range strings.SplitSeq(string(b), "\n") {
			var ev struct {
				Verb        string            `json:"verb"`
				ObjectRef   map[string]any    `json:"objectRef"`
				Annotations map[string]string `json:"annotations"`
				RequestURI  string            `json:"requestURI"`
			}
			if json.Unmarshal([]byte(line), &ev) != nil || ev.Verb != "create" || strings.Contains(ev.RequestURI, "dryRun") || ev.ObjectRef["resource"] != "configmaps" {
				continue
			}
			fail := ev.Annotations["validation.policy.admission.k8s.io/validation_failure"]
			if fail == "" {
				continue
			}
			var entries []map[string]any
			if err := json.Unmarshal([]byte(fail), &entries); err != nil || len(entries) != 1 || entries[0]["message"] != "at most one key" || entries[0]["policy"] != name {
				return false, fmt.Errorf("validation_failure annotation %s", fail)
			}
			if got := ev.Annotations[name+"/keys"]; got != "keys=2" {
				return false, fmt.Errorf("audit annotation %s/keys = %q, want keys=2", name, got)
			}
			return true, nil
		}
		return false, nil
	})
}

func TestValidatingPolicyFailurePolicyAndCost(t *testing.T) {
	c := start(t, framework.APIServerOptions{})
	// object.data.missing fails at runtime: no such key.
	for _, fp := range []string{"Fail", "Ignore"} {
		name := strings.ToLower(fp) + "-" + c.tag
		validations := []any{map[string]any{"expression": "object.data.missing == 'x'"}}
		if fp == "Ignore" {
			// A second validation that fails shows the policy is in force.
			validations = append(validations, map[string]any{"expression": "false", "message": "ignore policy in force"})
		}
		c.mustDo(http.MethodPost, admissionPath+"validatingadmissionpolicies", c.policy(name, map[string]any{
			"failurePolicy": fp,
			"matchConditions": []any{map[string]any{"name": "only-" + strings.ToLower(fp),
				"expression": fmt.Sprintf("object.metadata.name.startsWith('%s')", strings.ToLower(fp))}},
			"validations": validations,
		}))
		c.mustDo(http.MethodPost, admissionPath+"validatingadmissionpolicybindings", c.binding(name, name, []string{"Deny"}, nil))
	}
	r := c.eventually("failurePolicy Fail refuses on a runtime error", c.configMap("fail-1", 1), func(r response) bool { return r.code != http.StatusCreated })
	if r.code != http.StatusUnprocessableEntity || !strings.Contains(r.message(), "resulted in error") || !strings.Contains(r.message(), "no such key") {
		t.Fatalf("failurePolicy Fail: %d %v", r.code, r.body)
	}
	// Under Ignore the runtime error is dropped: only the failed
	// validation refuses.
	r = c.eventually("the Ignore policy in force", c.configMap("ignore-1", 1), func(r response) bool { return r.code != http.StatusCreated })
	if r.code != http.StatusUnprocessableEntity || !strings.Contains(r.message(), "ignore policy in force") || strings.Contains(r.message(), "resulted in error") {
		t.Fatalf("failurePolicy Ignore: %d %v", r.code, r.body)
	}

	// A validation that would run for ages is stopped by the cost limit.
	name := "costly-" + c.tag
	c.mustDo(http.MethodPost, admissionPath+"validatingadmissionpolicies", c.policy(name, map[string]any{
		"matchConditions": []any{map[string]any{"name": "costly", "expression": "object.metadata.name.startsWith('costly')"}},
		"validations": []any{map[string]any{"expression": "[0,1,2,3,4,5,6,7,8,9].all(a, [0,1,2,3,4,5,6,7,8,9].all(b, [0,1,2,3,4,5,6,7,8,9].all(c, " +
			"[0,1,2,3,4,5,6,7,8,9].all(d, [0,1,2,3,4,5,6,7,8,9].all(e, [0,1,2,3,4,5,6,7,8,9].all(f, [0,1,2,3,4,5,6,7,8,9].all(g, a+b+c+d+e+f+g >= 0)))))))"}},
	}))
	c.mustDo(http.MethodPost, admissionPath+"validatingadmissionpolicybindings", c.binding(name, name, []string{"Deny"}, nil))
	r = c.eventually("the costly policy refuses", c.configMap("costly-1", 1), func(r response) bool { return r.code != http.StatusCreated })
	if r.code != http.StatusUnprocessableEntity || !strings.Contains(r.message(), "cost") {
		t.Fatalf("costly expression: %d %v", r.code, r.body)
	}
}

func TestPolicyChangesTakeEffect(t *testing.T) {
	c := start(t, framework.APIServerOptions{})
	name := "changing-" + c.tag
	c.mustDo(http.MethodPost, admissionPath+"validatingadmissionpolicies", c.policy(name, map[string]any{
		"validations": []any{map[string]any{"expression": "object.data.size() <= 1", "message": "at most one"}},
	}))
	c.mustDo(http.MethodPost, admissionPath+"validatingadmissionpolicybindings", c.binding(name, name, []string{"Deny"}, nil))
	c.eventually("the first version refuses 2 keys", c.configMap("x", 2), func(r response) bool {
		return r.code == http.StatusUnprocessableEntity && strings.Contains(r.message(), "at most one")
	})
	c.mustDo(http.MethodPatch, admissionPath+"validatingadmissionpolicies/"+name, map[string]any{"spec": map[string]any{
		"validations": []any{map[string]any{"expression": "object.data.size() <= 3", "message": "at most three"}}}})
	c.eventually("the second version allows 2 keys", c.configMap("x", 2), func(r response) bool { return r.code == http.StatusCreated })
	if r := c.createDryRun(c.configMap("x", 4)); r.code != http.StatusUnprocessableEntity || !strings.Contains(r.message(), "at most three") {
		t.Fatalf("4 keys under the second version: %d %v", r.code, r.body)
	}
	c.mustDo(http.MethodDelete, admissionPath+"validatingadmissionpolicybindings/"+name, nil)
	c.eventually("no binding, no refusal", c.configMap("x", 4), func(r response) bool { return r.code == http.StatusCreated })
}

func TestMutatingPolicy(t *testing.T) {
	c := start(t, framework.APIServerOptions{})
	name := "mutate-" + c.tag
	c.mustDo(http.MethodPost, admissionPath+"mutatingadmissionpolicies", map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicy", "metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"matchConstraints": map[string]any{
				"resourceRules":  []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE"}, "resources": []any{"configmaps"}}},
				"objectSelector": map[string]any{"matchLabels": map[string]any{"policy-test": c.tag}},
			},
			"reinvocationPolicy": "Never",
			"mutations": []any{
				map[string]any{"patchType": "ApplyConfiguration", "applyConfiguration": map[string]any{
					"expression": `Object{metadata: Object.metadata{labels: {"mutated": "yes"}}, data: {"applied": "true"}}`}},
				map[string]any{"patchType": "JSONPatch", "jsonPatch": map[string]any{
					"expression": `[JSONPatch{op: "add", path: "/data/patched", value: string(object.data.size())}, ` +
						`JSONPatch{op: "add", path: "/metadata/annotations", value: {"a/b": "c"}}]`}},
			},
		},
	})
	c.mustDo(http.MethodPost, admissionPath+"mutatingadmissionpolicybindings", map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingAdmissionPolicyBinding", "metadata": map[string]any{"name": name},
		"spec": map[string]any{"policyName": name},
	})
	c.eventually("the mutating policy applies", c.configMap("m", 1), func(r response) bool {
		data, _ := r.body["data"].(map[string]any)
		return r.code == http.StatusCreated && data["applied"] == "true"
	})
	r := c.mustDo(http.MethodPost, c.cmPath(), c.configMap("m", 1))
	r = c.mustDo(http.MethodGet, c.cmPath()+"/m", nil)
	meta := r.body["metadata"].(map[string]any)
	labels, _ := meta["labels"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	data, _ := r.body["data"].(map[string]any)
	if labels["mutated"] != "yes" || labels["policy-test"] != c.tag {
		t.Errorf("labels %v: want mutated=yes merged beside policy-test", labels)
	}
	// The JSON patch saw the object the apply configuration left: two keys.
	if data["k0"] != "v" || data["applied"] != "true" || data["patched"] != "2" {
		t.Errorf("data %v: want k0, applied=true and patched=2", data)
	}
	if annotations["a/b"] != "c" {
		t.Errorf("annotations %v: want a/b=c", annotations)
	}
}

func TestValidatingPolicyStatus(t *testing.T) {
	c := start(t, framework.APIServerOptions{})
	name := "status-" + c.tag
	c.mustDo(http.MethodPost, admissionPath+"validatingadmissionpolicies", c.policy(name, map[string]any{
		"validations": []any{map[string]any{"expression": "object.data.size() < 2", "messageExpression": "'keys: ' + 1"}},
	}))
	var status map[string]any
	framework.WaitFor(t, 30*time.Second, "the policy's status observes generation 1", func() (bool, error) {
		r := c.mustDo(http.MethodGet, admissionPath+"validatingadmissionpolicies/"+name, nil)
		status, _ = r.body["status"].(map[string]any)
		return status["observedGeneration"] == float64(1), nil
	})
	tc, _ := status["typeChecking"].(map[string]any)
	warnings, _ := tc["expressionWarnings"].([]any)
	if len(warnings) != 1 {
		t.Fatalf("typeChecking %v: want one warning", tc)
	}
	w := warnings[0].(map[string]any)
	if w["fieldRef"] != "spec.validations[0].messageExpression" || !strings.Contains(w["warning"].(string), "no matching overload") {
		t.Fatalf("warning %v", w)
	}
	// A new generation is observed again, now without warnings.
	c.mustDo(http.MethodPatch, admissionPath+"validatingadmissionpolicies/"+name, map[string]any{"spec": map[string]any{
		"validations": []any{map[string]any{"expression": "object.data.size() < 2", "messageExpression": "'keys: ' + string(object.data.size())"}}}})
	framework.WaitFor(t, 30*time.Second, "the policy's status observes generation 2", func() (bool, error) {
		r := c.mustDo(http.MethodGet, admissionPath+"validatingadmissionpolicies/"+name, nil)
		status, _ = r.body["status"].(map[string]any)
		if status["observedGeneration"] != float64(2) {
			return false, nil
		}
		tc, _ := status["typeChecking"].(map[string]any)
		if ws, _ := tc["expressionWarnings"].([]any); len(ws) != 0 {
			return false, fmt.Errorf("warnings at generation 2: %v", ws)
		}
		return true, nil
	})
}
