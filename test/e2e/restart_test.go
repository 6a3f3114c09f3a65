package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/e2e/framework"
)

// TestRestart stops an API server of its own with SIGTERM while a watch is
// open, starts it again on the same data dir, and finds every object as it
// was, with the same uids and resourceVersions.
func TestRestart(t *testing.T) {
	t.Parallel()
	s := framework.StartAPIServer(t, "")
	k := s.Kubectl(t)
	ns := s.CreateNamespace(t, "restart")
	var b strings.Builder
	for i := range 5 {
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-%d\n  namespace: %s\ndata:\n  i: %q\n", i, ns, fmt.Sprint(i))
	}
	fmt.Fprintf(&b, "---\n"+deploymentManifest, "web", ns, "t", 2)
	k.MustRunStdin(t, b.String(), "create", "-f", "-")
	k.MustRun(t, "label", "cm", "cm-0", "-n", ns, "touched=yes")
	k.MustRun(t, "delete", "cm", "cm-4", "-n", ns)

	const snapshot = `jsonpath={range .items[*]}{.kind}/{.metadata.namespace}/{.metadata.name} {.metadata.uid} {.metadata.resourceVersion} {.metadata.labels}{"\n"}{end}`
	before := k.MustRun(t, "get", "namespaces,configmaps,deployments,priorityclasses", "-A", "-o", snapshot)
	if !strings.Contains(before, "ConfigMap/"+ns+"/cm-0 ") || strings.Contains(before, "cm-4") {
		t.Fatalf("unexpected objects before the restart:\n%s", before)
	}

	watch := k.Start(t, "get", "cm", "-n", ns, "-w")
	waitOutput(t, watch, `cm-3`)

	start := time.Now()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	t.Logf("stopped with an open watch in %s", time.Since(start).Round(time.Millisecond))
	if !framework.WaitFor(t.Context(), 10*time.Second, watch.Exited) {
		t.Errorf("kubectl get -w still runs after the server stopped")
	}

	start = time.Now()
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	t.Logf("restarted on the same data dir in %s", time.Since(start).Round(time.Millisecond))
	after := k.MustRun(t, "get", "namespaces,configmaps,deployments,priorityclasses", "-A", "-o", snapshot)
	if after != before {
		t.Errorf("objects changed across a restart:\nbefore:\n%s\nafter:\n%s", before, after)
	}

	// Writes go on from where they were: resourceVersions keep growing.
	rv := k.MustRun(t, "get", "cm", "cm-0", "-n", ns, "-o", "jsonpath={.metadata.resourceVersion}")
	k.MustRun(t, "label", "cm", "cm-0", "-n", ns, "again=yes")
	rv2 := k.MustRun(t, "get", "cm", "cm-0", "-n", ns, "-o", "jsonpath={.metadata.resourceVersion}")
	if len(rv2) < len(rv) || (len(rv2) == len(rv) && rv2 <= rv) {
		t.Errorf("resourceVersion went from %s to %s after the restart", rv, rv2)
	}
	if out := k.MustRun(t, "create", "configmap", "new", "-n", ns); out != "configmap/new created\n" {
		t.Errorf("create after the restart printed %q", out)
	}
}
