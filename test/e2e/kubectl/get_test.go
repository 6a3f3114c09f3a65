package kubectl

import (
	"strings"
	"testing"
)

const getFixtures = `apiVersion: v1
kind: ConfigMap
metadata:
  name: alpha
  labels: {app: web, tier: front}
data: {a: "1", b: "2"}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: beta
  labels: {app: db}
data: {c: "3"}
---
apiVersion: v1
kind: Secret
metadata:
  name: token
  labels: {app: web}
type: Opaque
stringData: {k: v}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
        ports:
        - containerPort: 80
---
apiVersion: v1
kind: Service
metadata:
  name: web
  labels: {app: web}
spec:
  selector: {app: web}
  ports:
  - port: 80
    targetPort: 8080
`

// getNamespace makes a namespace holding the get fixtures.
func getNamespace(t *testing.T) string {
	t.Helper()
	ns := "get-" + strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if len(ns) > 50 {
		ns = ns[:50]
	}
	suite.mustRun(t, "", "create", "namespace", ns)
	t.Cleanup(func() { suite.run(t, stock, "", "delete", "namespace", ns, "--wait=false") })
	suite.mustRun(t, getFixtures, "apply", "-n", ns, "-f", "-")
	return ns
}

func TestGetTables(t *testing.T) {
	t.Parallel()
	ns := getNamespace(t)
	for _, args := range [][]string{
		{"get", "configmaps"},
		{"get", "cm", "alpha"},
		{"get", "configmap/alpha", "configmap/beta"},
		{"get", "cm", "alpha", "beta"},
		{"get", "cm,secrets"},
		{"get", "cm,deploy,svc", "-l", "app=web"},
		{"get", "deployments.apps"},
		{"get", "deploy", "-o", "wide"},
		{"get", "svc", "-o", "wide"},
		{"get", "all"},
		{"get", "cm", "--show-labels"},
		{"get", "cm", "-L", "app", "-L", "tier"},
		{"get", "cm", "-L", "app,tier", "--show-labels"},
		{"get", "cm", "--no-headers"},
		{"get", "cm", "--sort-by", ".metadata.name"},
		{"get", "cm", "-l", "app=db"},
		{"get", "cm", "-l", "app=nothing"},
		{"get", "cm", "--field-selector", "metadata.name=beta"},
		{"get", "pods"},
		{"get", "Deployment"},
		{"get", "deployment.v1.apps"},
		{"get", "namespaces", ns},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			suite.same(t, append(args, "-n", ns)...)
		})
	}
	t.Run("all namespaces", func(t *testing.T) {
		out := suite.run(t, bundled, "", "get", "cm", "-A")
		if out.ExitCode != 0 || !strings.Contains(out.Stdout, "NAMESPACE") || !strings.Contains(out.Stdout, ns) {
			t.Errorf("get cm -A:\n%s", out)
		}
		suite.same(t, "get", "cm", "-A", "-l", "app=db", "--field-selector", "metadata.namespace="+ns)
	})
	t.Run("cluster scoped", func(t *testing.T) {
		suite.same(t, "get", "namespaces", ns, "kube-system")
	})
}

func TestGetOutputFormats(t *testing.T) {
	t.Parallel()
	ns := getNamespace(t)
	for _, args := range [][]string{
		{"get", "cm", "-o", "name"},
		{"get", "cm,deploy", "-o", "name"},
		{"get", "deploy/web", "svc/web", "-o", "name"},
		{"get", "cm", "alpha", "-o", "yaml"},
		{"get", "cm", "-o", "yaml"},
		{"get", "cm", "alpha", "-o", "json"},
		{"get", "cm", "-o", "json"},
		{"get", "deploy", "web", "-o", "yaml"},
		{"get", "cm", "-o", "jsonpath={.items[*].metadata.name}"},
		{"get", "cm", "alpha", "-o", "jsonpath={.data}"},
		{"get", "cm", "-o", `jsonpath={range .items[*]}{.metadata.name}{"\t"}{.metadata.labels.app}{"\n"}{end}`},
		{"get", "cm", "-o", `jsonpath={.items[?(@.metadata.name=="beta")].data.c}`},
		{"get", "deploy", "-o", "jsonpath={..image}"},
		// One data key: the stock kubectl lists a map's values in Go's
		// random map order.
		{"get", "cm", "beta", "-o", "custom-columns=NAME:.metadata.name,APP:.metadata.labels.app,DATA:.data.*,MISSING:.spec"},
		{"get", "cm", "-o", "custom-columns=NAME:{.metadata.name},LABELS:.metadata.labels", "--no-headers"},
		{"get", "cm", "-o", "go-template={{range .items}}{{.metadata.name}} {{end}}"},
		{"get", "cm", "--sort-by", "{.metadata.name}", "-o", "name"},
		{"get", "pods", "-o", "name"},
		{"get", "pods", "-o", "json"},
		{"get", "cm", "alpha", "-o", "bogus"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			suite.same(t, append(args, "-n", ns)...)
		})
	}
	t.Run("jsonpath-file", func(t *testing.T) {
		p := suite.writeFile(t, "names.jsonpath", `{range .items[*]}{.metadata.name}{"\n"}{end}`)
		suite.same(t, "get", "cm", "-n", ns, "-o", "jsonpath-file="+p)
	})
}

func TestGetErrors(t *testing.T) {
	t.Parallel()
	ns := getNamespace(t)
	for _, args := range [][]string{
		{"get", "cm", "nope"},
		{"get", "cm", "alpha", "nope"},
		{"get", "podz"},
		{"get", "cm", "nope", "--ignore-not-found"},
		{"get"},
		{"get", "cm/alpha", "cm"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			suite.same(t, append(args, "-n", ns)...)
		})
	}
}

func TestThroughLink(t *testing.T) {
	t.Parallel()
	ns := getNamespace(t)
	want := suite.run(t, stock, "", "get", "cm", "-n", ns)
	got := suite.run(t, link, "", "get", "cm", "-n", ns)
	compareResults(t, want, got, nil)
	if got.ExitCode != 0 || !strings.Contains(got.Stdout, "alpha") {
		t.Errorf("through a link named kubectl:\n%s", got)
	}
}
