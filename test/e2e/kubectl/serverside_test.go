package kubectl

import (
	"strings"
	"testing"
)

const ssaDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: REPLICAS
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: nginx:1
        ports:
        - containerPort: 80
`

// TestServerSideApply runs apply --server-side (created, unchanged,
// configured), a conflict between two field managers, --force-conflicts,
// and prints the managedFields, with both CLIs.
func TestServerSideApply(t *testing.T) {
	t.Parallel()
	two := suite.writeFile(t, "two.yaml", strings.Replace(ssaDeployment, "REPLICAS", "2", 1))
	three := suite.writeFile(t, "three.yaml", strings.Replace(ssaDeployment, "REPLICAS", "3", 1))
	five := suite.writeFile(t, "five.yaml", strings.Replace(ssaDeployment, "REPLICAS", "5", 1))
	bad := suite.writeFile(t, "bad.yaml", strings.Replace(ssaDeployment, "  replicas: REPLICAS\n", "  replicas: 2\n  bogus: 1\n", 1))
	suite.pair(t, nil,
		cmd("apply", "--server-side", "-n", "NS", "-f", two),
		cmd("apply", "--server-side", "-n", "NS", "-f", two),
		cmd("apply", "--server-side", "-n", "NS", "-f", three),
		cmd("apply", "--server-side", "-n", "NS", "-f", three, "--dry-run=server", "-o", "yaml"),
		cmd("apply", "--server-side", "--field-manager=other", "-n", "NS", "-f", five),
		cmd("apply", "--server-side", "--field-manager=other", "--force-conflicts", "-n", "NS", "-f", five),
		cmd("apply", "--force-conflicts", "-n", "NS", "-f", five),
		cmd("apply", "--server-side", "--dry-run=client", "-n", "NS", "-f", five),
		cmd("apply", "--server-side", "-n", "NS", "-f", bad),
		cmd("get", "deployment", "web", "-n", "NS", "-o", "yaml", "--show-managed-fields"),
		cmd("get", "deployment", "web", "-n", "NS", "-o", "json", "--show-managed-fields"),
		cmd("get", "deployment", "web", "-n", "NS", "-o", "yaml"),
		cmd("get", "deployment", "web", "-n", "NS", "-o", "jsonpath={.spec.replicas}"),
	)
}

// TestServerSideApplyTakeOver applies a ConfigMap client-side, takes it
// over with apply --server-side, and applies it client-side again.
func TestServerSideApplyTakeOver(t *testing.T) {
	t.Parallel()
	v1 := suite.writeFile(t, "v1.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\ndata:\n  a: \"1\"\n  b: \"2\"\n")
	v2 := suite.writeFile(t, "v2.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\ndata:\n  a: \"1\"\n  c: \"3\"\n")
	v3 := suite.writeFile(t, "v3.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\ndata:\n  c: \"4\"\n")
	suite.pair(t, nil,
		cmd("apply", "-n", "NS", "-f", v1),
		cmd("get", "cm", "conf", "-n", "NS", "-o", "yaml", "--show-managed-fields"),
		cmd("apply", "--server-side", "-n", "NS", "-f", v2),
		cmd("get", "cm", "conf", "-n", "NS", "-o", "yaml", "--show-managed-fields"),
		cmd("apply", "-n", "NS", "-f", v3),
		cmd("get", "cm", "conf", "-n", "NS", "-o", "yaml", "--show-managed-fields"),
	)
}

// TestServerSideDiff runs the stock kubectl's diff --server-side (the
// bundled CLI has no diff): a dry-run apply compared with the live object.
func TestServerSideDiff(t *testing.T) {
	t.Parallel()
	ns := "ssa-diff"
	suite.mustRun(t, "", "create", "namespace", ns)
	t.Cleanup(func() { suite.run(t, stock, "", "delete", "namespace", ns, "--wait=false") })
	two := suite.writeFile(t, "two.yaml", strings.Replace(ssaDeployment, "REPLICAS", "2", 1))
	three := suite.writeFile(t, "three.yaml", strings.Replace(ssaDeployment, "REPLICAS", "3", 1))
	suite.mustRun(t, "", "apply", "--server-side", "-n", ns, "-f", two)

	same := suite.run(t, stock, "", "diff", "--server-side", "-n", ns, "-f", two)
	if same.ExitCode != 0 || same.Stdout != "" {
		t.Fatalf("diff of the applied manifest: %s", same)
	}
	changed := suite.run(t, stock, "", "diff", "--server-side", "-n", ns, "-f", three)
	if changed.ExitCode != 1 || !strings.Contains(changed.Stdout, "-  replicas: 2") || !strings.Contains(changed.Stdout, "+  replicas: 3") {
		t.Fatalf("diff of a changed manifest: %s", changed)
	}
	// Nothing was stored by the diff.
	if got := suite.mustRun(t, "", "get", "deployment", "web", "-n", ns, "-o", "jsonpath={.spec.replicas}"); got != "2" {
		t.Fatalf("replicas after diff = %q", got)
	}
	// Another manager's conflicting field shows as a conflict in diff
	// too, unless forced.
	conflict := suite.run(t, stock, "", "diff", "--server-side", "--field-manager=other", "-n", ns, "-f", three)
	if conflict.ExitCode <= 1 || !strings.Contains(conflict.Stderr, `conflict with "kubectl"`) {
		t.Fatalf("diff with a conflict: %s", conflict)
	}
	forced := suite.run(t, stock, "", "diff", "--server-side", "--force-conflicts", "--field-manager=other", "-n", ns, "-f", three)
	if forced.ExitCode != 1 || !strings.Contains(forced.Stdout, "+  replicas: 3") {
		t.Fatalf("forced diff: %s", forced)
	}
}
