package servicenet

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/e2e/framework"
)

// TestHelmTest: `helm test` of the stock `helm create` chart passes on an
// all-in-one with the pod network, the service proxy and the cluster DNS.
// The chart's test pod runs `wget demo:80`: the name resolves through the
// cluster DNS and the Service routes to the Deployment's pod. nginx is not
// on the host, so the chart's image is one the --image-entrypoints file
// runs as python3's HTTP server on the chart's port 80 (in the pod's own
// network namespace). The install waits with Helm 4's status watcher
// (kstatus over watches) until the Deployment is available.
func TestHelmTest(t *testing.T) {
	bin, err := framework.Binary()
	if err != nil {
		t.Fatal(err)
	}
	helmPath, err := framework.Helm()
	if err != nil {
		t.Fatalf("build helm: %v", err)
	}
	dir := t.TempDir()
	names, ips := hosts(t, 1)
	entrypoints := filepath.Join(dir, "entrypoints.yaml")
	if err := os.WriteFile(entrypoints, []byte("images:\n  demo-web:\n    entrypoint: [python3, -m, http.server, \"80\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	admin := startAllInOne(t, bin, dir, filepath.Join(dir, "data"), names[0], ips[0], "--image-entrypoints", entrypoints)
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	k := &framework.Kubectl{Path: framework.KubectlPath, Kubeconfig: admin, Home: home}
	helm := &framework.Kubectl{Path: helmPath, Kubeconfig: admin, Home: home}
	waitFor(t, 120*time.Second, "node0 ready", func() error {
		out := k.Run(t, "get", "node", "node0", "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
		if out.Stdout != "True" {
			return errors.New(out.String())
		}
		return nil
	})

	chart := filepath.Join(dir, "demo")
	helm.MustRun(t, "create", chart)
	k.MustRun(t, "create", "namespace", "helm")
	start := time.Now()
	out := helm.MustRun(t, "install", "demo", chart, "-n", "helm", "--set", "image.repository=demo-web",
		"--wait", "--timeout", "3m")
	t.Logf("helm install --wait (status watcher) in %s", time.Since(start).Round(time.Millisecond))
	if !strings.Contains(out, "STATUS: deployed") {
		t.Fatalf("helm install: %s", out)
	}
	if got := k.MustRun(t, "get", "deployment", "demo", "-n", "helm", "-o", "jsonpath={.status.availableReplicas}"); got != "1" {
		t.Errorf("deployment availableReplicas after helm install --wait = %q, want 1", got)
	}

	start = time.Now()
	r := helm.Run(t, "test", "demo", "-n", "helm", "--timeout", "3m")
	t.Logf("helm test in %s", time.Since(start).Round(time.Millisecond))
	if r.ExitCode != 0 {
		t.Fatalf("helm test: %s\ntest pod:\n%s", r.String(), k.Run(t, "describe", "pod", "demo-test-connection", "-n", "helm").Stdout)
	}
	for _, want := range []string{"TEST SUITE:     demo-test-connection", "Phase:          Succeeded"} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("helm test output lacks %q:\n%s", want, r.Stdout)
		}
	}
	if phase := k.MustRun(t, "get", "pod", "demo-test-connection", "-n", "helm", "-o", "jsonpath={.status.phase}"); phase != "Succeeded" {
		t.Errorf("test pod phase = %q, want Succeeded", phase)
	}

	// Every pod goes before the all-in-one stops (the kubelet leaves
	// running pods' processes behind otherwise).
	helm.MustRun(t, "uninstall", "demo", "-n", "helm", "--wait", "--timeout", "2m")
	k.MustRun(t, "delete", "pod", "demo-test-connection", "-n", "helm", "--ignore-not-found", "--wait=true")
	waitFor(t, 120*time.Second, "pods gone after uninstall", func() error {
		if out := k.MustRun(t, "get", "pods", "-n", "helm", "-o", "name"); out != "" {
			return errors.New("left: " + out)
		}
		return nil
	})
}
