package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gatewayCRDFiles fetches the Gateway API standard-channel CRDs through
// the module cache (hack/gatewayapi-crds.sh) and returns the files that
// hold a CustomResourceDefinition. It fails, never skips, when the module
// cannot be fetched.
func gatewayCRDFiles(t *testing.T) []string {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("..", "..", "hack", "gatewayapi-crds.sh"))
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(script)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("fetch the Gateway API CRDs: %v\n%s", err, stderr.String())
	}
	dir := strings.TrimSpace(string(out))
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var crds []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte("\nkind: CustomResourceDefinition\n")) {
			crds = append(crds, f)
		}
	}
	if len(crds) < 9 {
		t.Fatalf("found %d CRD files in %s, want the standard channel's", len(crds), dir)
	}
	return crds
}

const httpRouteManifest = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: %s
spec:
  parentRefs:
  - name: gw
  hostnames: ["www.example.com"]
  rules:
  - matches:
    - path:
        type: PathPrefix
        value: %s
    filters:
    - type: RequestHeaderModifier
      requestHeaderModifier:
        add:
        - name: x-route
          value: e2e
    backendRefs:
    - name: web
      port: 80
`

// TestGatewayAPICRDs: the stock kubectl applies every Gateway API
// standard-channel CRD with its default strict validation, their CEL
// rules are kept, objects that keep the rules are stored, and an
// HTTPRoute breaking a rule is refused with the CRD's message.
func TestGatewayAPICRDs(t *testing.T) {
	k := server.Kubectl(t)
	for _, f := range gatewayCRDFiles(t) {
		out := k.MustRun(t, "apply", "-f", f)
		expectContains(t, "apply "+filepath.Base(f), out, "customresourcedefinition.apiextensions.k8s.io/")
	}
	k.MustRun(t, "wait", "--for=condition=Established", "crd/httproutes.gateway.networking.k8s.io", "crd/gateways.gateway.networking.k8s.io",
		"crd/gatewayclasses.gateway.networking.k8s.io", "--timeout=60s")
	rules := k.MustRun(t, "get", "crd", "httproutes.gateway.networking.k8s.io", "-o", "jsonpath={..x-kubernetes-validations[*].rule}")
	if n := strings.Count(rules, "self"); n < 40 {
		t.Errorf("the HTTPRoute CRD kept %d rule mentions of self, want its x-kubernetes-validations: %.200s", n, rules)
	}

	ns := server.CreateNamespace(t, "gateway")
	gw := `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: e2e
spec:
  controllerName: example.com/e2e
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gw
spec:
  gatewayClassName: e2e
  listeners:
  - name: http
    protocol: HTTP
    port: 80
    allowedRoutes:
      namespaces:
        from: Same
`
	out := k.MustRun(t, "apply", "-n", ns, "-f", writeFile(t, "gateway.yaml", gw))
	expectContains(t, "apply gateway", out, "gatewayclass.gateway.networking.k8s.io/e2e created", "gateway.gateway.networking.k8s.io/gw created")
	out = k.MustRun(t, "apply", "-n", ns, "-f", writeFile(t, "route.yaml", fmt.Sprintf(httpRouteManifest, "good", "/api")))
	expectContains(t, "apply valid route", out, "httproute.gateway.networking.k8s.io/good created")

	// A relative PathPrefix breaks the CRD's rule.
	r := k.MustFail(t, "", "apply", "-n", ns, "-f", writeFile(t, "bad-route.yaml", fmt.Sprintf(httpRouteManifest, "bad", "api")))
	expectContains(t, "apply invalid route", r.Stderr, "spec.rules[0].matches[0].path", "value must be an absolute path and start with '/' when type one of ['Exact', 'PathPrefix']")
	k.MustFail(t, "", "get", "httproute", "bad", "-n", ns)

	// TLS on an HTTP listener breaks a Gateway rule on update: nothing
	// changes.
	r = k.MustFail(t, "", "patch", "gateway", "gw", "-n", ns, "--type", "merge", "-p",
		`{"spec":{"listeners":[{"name":"http","protocol":"HTTP","port":80,"tls":{"mode":"Terminate"}}]}}`)
	expectContains(t, "patch gateway", r.Stderr, "tls must not be specified for protocols ['HTTP', 'TCP', 'UDP']")
	if tls := k.MustRun(t, "get", "gateway", "gw", "-n", ns, "-o", "jsonpath={.spec.listeners[0].tls}"); tls != "" {
		t.Errorf("listener tls %q after a refused update", tls)
	}
}
