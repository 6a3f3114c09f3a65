// Package resource holds the integration tests of resource.k8s.io
// (dynamic resource allocation): an API server in-process over an
// embedded etcd.
package resource

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/test/integration/framework"
)

// testEtcd is the package's etcd, started by TestMain.
var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }

// send sends a JSON body (or none) and returns the code and the answer.
func send(t *testing.T, c *http.Client, s *framework.APIServer, method, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestSelectorsCompiled creates DeviceClasses, ResourceClaims and
// ResourceClaimTemplates whose CEL selectors do or do not compile in the
// DRA environment: a bad one is refused with 422, the field path of the
// expression and the compiler's message, and nothing is stored.
func TestSelectorsCompiled(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	c := s.HTTPClient(t)
	ns := s.CreateNamespace(t, "dra")
	classes := "/apis/resource.k8s.io/v1/deviceclasses"
	claims := "/apis/resource.k8s.io/v1/namespaces/" + ns + "/resourceclaims"
	templates := "/apis/resource.k8s.io/v1/namespaces/" + ns + "/resourceclaimtemplates"

	class := func(name, expr string) string {
		b, _ := json.Marshal(expr)
		return `{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"` + name + `"},"spec":{"selectors":[{"cel":{"expression":` + string(b) + `}}]}}`
	}
	claimSpec := func(expr string) string {
		b, _ := json.Marshal(expr)
		return `{"devices":{"requests":[{"name":"gpu","firstAvailable":[{"name":"big","deviceClassName":"gpu","selectors":[{"cel":{"expression":` + string(b) + `}}]}]}]}}`
	}
	claim := func(name, expr string) string {
		return `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"` + name + `"},"spec":` + claimSpec(expr) + `}`
	}
	template := func(name, expr string) string {
		return `{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"` + name + `"},"spec":{"spec":` + claimSpec(expr) + `}}`
	}

	good := `device.driver == "gpu.example.com" && device.attributes["gpu.example.com"].model == "a100" && device.capacity["gpu.example.com"].memory.compareTo(quantity("8Gi")) >= 0`
	for _, tc := range []struct{ path, body string }{
		{classes, class("gpu", good)}, {claims, claim("good", good)}, {templates, template("good", good)},
	} {
		if code, body := send(t, c, s, http.MethodPost, tc.path, tc.body); code != http.StatusCreated {
			t.Fatalf("POST %s: %d %s", tc.path, code, body)
		}
	}

	for _, tc := range []struct {
		name, path, body, item string
		want                   []string
	}{
		{"class syntax error", classes, class("broken", `device.driver ==`), classes + "/broken", []string{
			`DeviceClass.resource.k8s.io \"broken\" is invalid: spec.selectors[0].cel.expression: Invalid value: \"device.driver ==\": compilation failed: ERROR: \u003cinput\u003e:1:17: Syntax error`,
			`"field":"spec.selectors[0].cel.expression"`, `"reason":"FieldValueInvalid"`,
		}},
		{"class unknown field", classes, class("vendor", `device.vendor == "x"`), classes + "/vendor", []string{
			`spec.selectors[0].cel.expression: Invalid value: \"device.vendor == \\\"x\\\"\": compilation failed: ERROR: \u003cinput\u003e:1:7: undefined field 'vendor'`,
		}},
		{"class not a bool", classes, class("string", `device.driver`), classes + "/string", []string{
			`spec.selectors[0].cel.expression: Invalid value: \"device.driver\": must evaluate to bool or the unknown type, not string`,
		}},
		{"claim", claims, claim("bad", `device.attributes["x"].y +`), claims + "/bad", []string{
			`ResourceClaim.resource.k8s.io \"bad\" is invalid: spec.devices.requests[0].firstAvailable[0].selectors[0].cel.expression: Invalid value`,
			`compilation failed`,
		}},
		{"template", templates, template("bad", `device.driver == 1`), templates + "/bad", []string{
			`ResourceClaimTemplate.resource.k8s.io \"bad\" is invalid: spec.spec.devices.requests[0].firstAvailable[0].selectors[0].cel.expression: Invalid value`,
			`found no matching overload for '_==_' applied to '(string, int)'`,
		}},
	} {
		code, body := send(t, c, s, http.MethodPost, tc.path, tc.body)
		if code != http.StatusUnprocessableEntity || !strings.Contains(body, `"reason":"`+string(metav1.StatusReasonInvalid)+`"`) {
			t.Errorf("%s: %d %s, want 422 Invalid", tc.name, code, body)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: %s\nlacks %s", tc.name, body, w)
			}
		}
		if code, _ := send(t, c, s, http.MethodGet, tc.item, ""); code != http.StatusNotFound {
			t.Errorf("%s: GET %s after the refused create: %d, want 404", tc.name, tc.item, code)
		}
	}

	// An update to a bad selector is refused too, the class unchanged.
	req, err := http.NewRequest(http.MethodPatch, s.URL+classes+"/gpu", strings.NewReader(`{"spec":{"selectors":[{"cel":{"expression":"device.driver =="}}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/merge-patch+json")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(b), `spec.selectors[0].cel.expression`) {
		t.Errorf("patch to a bad selector: %d %s", resp.StatusCode, b)
	}
	_, body := send(t, c, s, http.MethodGet, classes+"/gpu", "")
	if !strings.Contains(body, `device.attributes[\"gpu.example.com\"].model`) {
		t.Errorf("class after the refused patch: %s", body)
	}
}
