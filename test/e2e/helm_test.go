package e2e

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/e2e/framework"
)

// helmBinary builds the stock Helm 4 CLI through the module proxy
// (hack/helm.sh, cached in _output/bin). It fails, never skips, when it
// cannot be built.
func helmBinary(t *testing.T) string {
	t.Helper()
	p, err := framework.Helm()
	if err != nil {
		t.Fatalf("build helm: %v", err)
	}
	return p
}

// helmChart runs `helm create demo` in a temp dir of the test and returns
// the stock chart's directory.
func helmChart(t *testing.T, helm *framework.Kubectl) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "demo")
	helm.MustRun(t, "create", dir)
	return dir
}

// helmReleases lists the release Secrets of release name in ns as
// "name=status" lines, sorted by revision.
func helmReleases(t *testing.T, k *framework.Kubectl, ns, name string) []string {
	t.Helper()
	out := k.MustRun(t, "get", "secrets", "-n", ns, "-l", "owner=helm,name="+name,
		"-o", `jsonpath={range .items[*]}{.metadata.labels.version} {.metadata.name}={.metadata.labels.status} {.type}{"\n"}{end}`)
	var lines []string
	for l := range strings.Lines(out) {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	// Sort by revision number (the first field), not as strings.
	slices.SortFunc(lines, func(a, b string) int {
		va, _, _ := strings.Cut(a, " ")
		vb, _, _ := strings.Cut(b, " ")
		if len(va) != len(vb) {
			return len(va) - len(vb)
		}
		return strings.Compare(va, vb)
	})
	for i, l := range lines {
		_, lines[i], _ = strings.Cut(l, " ")
	}
	return lines
}

func expectReleases(t *testing.T, k *framework.Kubectl, ns, name string, want ...string) {
	t.Helper()
	if got := helmReleases(t, k, ns, name); !slices.Equal(got, want) {
		t.Errorf("release secrets of %s: %q, want %q", name, got, want)
	}
}

// expectNotFound checks that every one of objects (kind/name) is gone.
func expectNotFound(t *testing.T, k *framework.Kubectl, ns string, objects ...string) {
	t.Helper()
	for _, o := range objects {
		r := k.Run(t, "get", o, "-n", ns, "-o", "name")
		if r.ExitCode == 0 || !strings.Contains(r.Stderr, "NotFound") {
			t.Errorf("%s in %s: want NotFound, got %s", o, ns, r.String())
		}
	}
}

// TestHelmLifecycle: the stock Helm 4 CLI installs, upgrades, rolls back
// and uninstalls the stock `helm create` chart on kubecore all-in-one.
// Helm 4 writes every object with server-side apply (its default), so the
// objects carry helm's Apply entry in managedFields. The pods may stay
// unready with the process runtime (nginx is not on the host): the test
// checks the objects, not readiness.
func TestHelmLifecycle(t *testing.T) {
	t.Parallel()
	helmPath := helmBinary(t)
	s := framework.StartAllInOne(t, "")
	k := s.Kubectl(t)
	helm := s.CLI(helmPath)
	chart := helmChart(t, helm)
	ns := s.CreateNamespace(t, "helm")

	start := time.Now()
	out := helm.MustRun(t, "install", "demo", chart, "-n", ns)
	expectContains(t, "helm install", out, "NAME: demo", "STATUS: deployed", "REVISION: 1")
	t.Logf("helm install in %s", time.Since(start).Round(time.Millisecond))

	deploy := decodeJSON(t, k.MustRun(t, "get", "deployment", "demo", "-n", ns, "-o", "json", "--show-managed-fields"))
	if got := deploy.field("spec.replicas"); got != float64(1) {
		t.Errorf("deployment replicas after install = %v, want 1", got)
	}
	containers, _ := deploy.field("spec.template.spec.containers").([]any)
	if len(containers) != 1 || object(containers[0].(map[string]any)).str("image") != "nginx:1.16.0" {
		t.Errorf("deployment containers = %v, want one nginx:1.16.0", containers)
	}
	if got := deploy.str("spec.template.spec.serviceAccountName"); got != "demo" {
		t.Errorf("pod serviceAccountName = %q, want demo", got)
	}
	labels, _ := deploy.field("metadata.labels").(map[string]any)
	if labels["app.kubernetes.io/managed-by"] != "Helm" || labels["helm.sh/chart"] != "demo-0.1.0" {
		t.Errorf("deployment labels = %v, want managed-by Helm, chart demo-0.1.0", labels)
	}
	annotations, _ := deploy.field("metadata.annotations").(map[string]any)
	if annotations["meta.helm.sh/release-name"] != "demo" || annotations["meta.helm.sh/release-namespace"] != ns {
		t.Errorf("deployment annotations = %v, want helm's release name and namespace", annotations)
	}
	expectApplyManager(t, deploy, "helm")

	svc := decodeJSON(t, k.MustRun(t, "get", "service", "demo", "-n", ns, "-o", "json", "--show-managed-fields"))
	if svc.str("spec.type") != "ClusterIP" || svc.str("spec.clusterIP") == "" {
		t.Errorf("service type/clusterIP = %q/%q, want ClusterIP with an address", svc.str("spec.type"), svc.str("spec.clusterIP"))
	}
	ports, _ := svc.field("spec.ports").([]any)
	if len(ports) != 1 || ports[0].(map[string]any)["port"] != float64(80) || ports[0].(map[string]any)["targetPort"] != "http" {
		t.Errorf("service ports = %v, want 80 -> http", ports)
	}
	expectApplyManager(t, svc, "helm")
	sa := decodeJSON(t, k.MustRun(t, "get", "serviceaccount", "demo", "-n", ns, "-o", "json"))
	if sa.field("automountServiceAccountToken") != true {
		t.Errorf("serviceaccount automountServiceAccountToken = %v, want true", sa.field("automountServiceAccountToken"))
	}
	expectReleases(t, k, ns, "demo", "sh.helm.release.v1.demo.v1=deployed helm.sh/release.v1")

	// Upgrade with a changed value: the Deployment follows.
	start = time.Now()
	out = helm.MustRun(t, "upgrade", "demo", chart, "-n", ns, "--set", "replicaCount=3")
	expectContains(t, "helm upgrade", out, "has been upgraded", "STATUS: deployed", "REVISION: 2")
	t.Logf("helm upgrade in %s", time.Since(start).Round(time.Millisecond))
	if got := k.MustRun(t, "get", "deployment", "demo", "-n", ns, "-o", "jsonpath={.spec.replicas}"); got != "3" {
		t.Errorf("deployment replicas after upgrade = %s, want 3", got)
	}
	expectReleases(t, k, ns, "demo",
		"sh.helm.release.v1.demo.v1=superseded helm.sh/release.v1",
		"sh.helm.release.v1.demo.v2=deployed helm.sh/release.v1")

	// Rollback to the first revision: the replicas come back to 1.
	start = time.Now()
	out = helm.MustRun(t, "rollback", "demo", "1", "-n", ns)
	expectContains(t, "helm rollback", out, "Rollback was a success")
	t.Logf("helm rollback in %s", time.Since(start).Round(time.Millisecond))
	if got := k.MustRun(t, "get", "deployment", "demo", "-n", ns, "-o", "jsonpath={.spec.replicas}"); got != "1" {
		t.Errorf("deployment replicas after rollback = %s, want 1", got)
	}
	expectReleases(t, k, ns, "demo",
		"sh.helm.release.v1.demo.v1=superseded helm.sh/release.v1",
		"sh.helm.release.v1.demo.v2=superseded helm.sh/release.v1",
		"sh.helm.release.v1.demo.v3=deployed helm.sh/release.v1")
	hist := helm.MustRun(t, "history", "demo", "-n", ns)
	expectContains(t, "helm history", hist, "Install complete", "Upgrade complete", "Rollback to 1")
	list := helm.MustRun(t, "list", "-n", ns)
	expectContains(t, "helm list", list, "demo", "deployed", "demo-0.1.0")

	// Uninstall: the objects and the release records are gone, and the
	// pods the Deployment made are collected.
	start = time.Now()
	out = helm.MustRun(t, "uninstall", "demo", "-n", ns)
	expectContains(t, "helm uninstall", out, `release "demo" uninstalled`)
	t.Logf("helm uninstall in %s", time.Since(start).Round(time.Millisecond))
	expectNotFound(t, k, ns, "deployment/demo", "service/demo", "serviceaccount/demo")
	expectReleases(t, k, ns, "demo")
	eventually(t, 60*time.Second, func() string {
		if out := k.MustRun(t, "get", "pods,replicasets", "-n", ns, "-o", "name"); out != "" {
			return "left after uninstall:\n" + out
		}
		return ""
	})
}

// expectApplyManager checks that obj (decoded with its managedFields)
// has an Apply entry of manager.
func expectApplyManager(t *testing.T, obj object, manager string) {
	t.Helper()
	entries, _ := obj.field("metadata.managedFields").([]any)
	for _, e := range entries {
		m := object(e.(map[string]any))
		if m.str("manager") == manager && m.str("operation") == "Apply" && m.str("fieldsType") == "FieldsV1" {
			return
		}
	}
	t.Errorf("%s/%s: no Apply entry of manager %q in managedFields %v", obj.str("kind"), obj.str("metadata.name"), manager, entries)
}

// TestHelmIngressAutoscaling: the stock chart with its Ingress and its
// autoscaling/v2 HorizontalPodAutoscaler enabled installs, and both carry
// the chart's values; the Deployment then leaves replicas to the HPA.
func TestHelmIngressAutoscaling(t *testing.T) {
	t.Parallel()
	helm := server.CLI(helmBinary(t))
	k := server.Kubectl(t)
	chart := helmChart(t, helm)
	ns := server.CreateNamespace(t, "helm-ing")

	out := helm.MustRun(t, "install", "demo", chart, "-n", ns,
		"--set", "ingress.enabled=true", "--set", "autoscaling.enabled=true", "--set", "autoscaling.maxReplicas=5")
	expectContains(t, "helm install", out, "STATUS: deployed")

	ing := decodeJSON(t, k.MustRun(t, "get", "ingresses.networking.k8s.io", "demo", "-n", ns, "-o", "json"))
	rules, _ := ing.field("spec.rules").([]any)
	if len(rules) != 1 {
		t.Fatalf("ingress rules = %v, want one", rules)
	}
	rule := object(rules[0].(map[string]any))
	paths, _ := rule.field("http.paths").([]any)
	if rule.str("host") != "chart-example.local" || len(paths) != 1 {
		t.Fatalf("ingress rule = %v, want host chart-example.local with one path", rule)
	}
	path := object(paths[0].(map[string]any))
	if path.str("path") != "/" || path.str("pathType") != "ImplementationSpecific" ||
		path.str("backend.service.name") != "demo" || path.field("backend.service.port.number") != float64(80) {
		t.Errorf("ingress path = %v, want / ImplementationSpecific -> demo:80", path)
	}

	hpa := decodeJSON(t, k.MustRun(t, "get", "horizontalpodautoscalers.v2.autoscaling", "demo", "-n", ns, "-o", "json"))
	if hpa.str("apiVersion") != "autoscaling/v2" || hpa.str("spec.scaleTargetRef.kind") != "Deployment" ||
		hpa.str("spec.scaleTargetRef.name") != "demo" || hpa.str("spec.scaleTargetRef.apiVersion") != "apps/v1" {
		t.Errorf("hpa scaleTargetRef = %v (%s), want apps/v1 Deployment demo", hpa.field("spec.scaleTargetRef"), hpa.str("apiVersion"))
	}
	if hpa.field("spec.minReplicas") != float64(1) || hpa.field("spec.maxReplicas") != float64(5) {
		t.Errorf("hpa min/max replicas = %v/%v, want 1/5", hpa.field("spec.minReplicas"), hpa.field("spec.maxReplicas"))
	}
	metrics, _ := hpa.field("spec.metrics").([]any)
	if len(metrics) != 1 {
		t.Fatalf("hpa metrics = %v, want one", metrics)
	}
	m := object(metrics[0].(map[string]any))
	if m.str("type") != "Resource" || m.str("resource.name") != "cpu" || m.str("resource.target.type") != "Utilization" ||
		m.field("resource.target.averageUtilization") != float64(80) {
		t.Errorf("hpa metric = %v, want cpu Utilization 80", m)
	}
	// With autoscaling on, the chart does not set replicas: the default.
	if got := k.MustRun(t, "get", "deployment", "demo", "-n", ns, "-o", "jsonpath={.spec.replicas}"); got != "1" {
		t.Errorf("deployment replicas = %s, want the default 1", got)
	}
	expectReleases(t, k, ns, "demo", "sh.helm.release.v1.demo.v1=deployed helm.sh/release.v1")

	helm.MustRun(t, "uninstall", "demo", "-n", ns)
	expectNotFound(t, k, ns, "ingresses.networking.k8s.io/demo", "horizontalpodautoscalers.autoscaling/demo", "deployment/demo")
}

// TestHelmInvalid: a chart value that makes an invalid object fails the
// install with kubecore's 422 message. Helm applies the objects kind by
// kind and goes on after a failure, so what it leaves is what it would
// leave on Kubernetes: the objects that were valid, no invalid one, and a
// failed release that `helm uninstall` removes.
func TestHelmInvalid(t *testing.T) {
	t.Parallel()
	helm := server.CLI(helmBinary(t))
	k := server.Kubectl(t)
	chart := helmChart(t, helm)

	t.Run("port out of range", func(t *testing.T) {
		ns := server.CreateNamespace(t, "helm-bad")
		r := helm.Run(t, "install", "demo", chart, "-n", ns, "--set", "service.port=99999")
		if r.ExitCode == 0 {
			t.Fatalf("install with service.port=99999 succeeded: %s", r.String())
		}
		expectContains(t, "helm install", r.Stderr,
			`Service "demo" is invalid: spec.ports[0].port: Invalid value: 99999: must be between 1 and 65535, inclusive`,
			`Deployment.apps "demo" is invalid: spec.template.spec.containers[0].ports[0].containerPort: Invalid value: 99999: must be between 1 and 65535, inclusive`)
		expectNotFound(t, k, ns, "service/demo", "deployment/demo")
		// The ServiceAccount is valid and applied first: Kubernetes keeps it too.
		k.MustRun(t, "get", "serviceaccount", "demo", "-n", ns)
		expectReleases(t, k, ns, "demo", "sh.helm.release.v1.demo.v1=failed helm.sh/release.v1")
		helm.MustRun(t, "uninstall", "demo", "-n", ns)
		expectNotFound(t, k, ns, "serviceaccount/demo")
		expectReleases(t, k, ns, "demo")
	})

	t.Run("invalid name", func(t *testing.T) {
		ns := server.CreateNamespace(t, "helm-bad")
		r := helm.Run(t, "install", "demo", chart, "-n", ns, "--set", "fullnameOverride=Bad_Name")
		if r.ExitCode == 0 {
			t.Fatalf("install with fullnameOverride=Bad_Name succeeded: %s", r.String())
		}
		expectContains(t, "helm install", r.Stderr,
			`ServiceAccount "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters`)
		if out := k.MustRun(t, "get", "serviceaccounts,services,deployments", "-n", ns, "-o", "name"); strings.Contains(out, "Bad_Name") || strings.Contains(out, "/demo") {
			t.Errorf("objects left by an install with an invalid name:\n%s", out)
		}
		expectReleases(t, k, ns, "demo", "sh.helm.release.v1.demo.v1=failed helm.sh/release.v1")
	})
}
