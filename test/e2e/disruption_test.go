package e2e

import (
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/e2e/framework"
)

// budgetedDeployment is a Deployment of two pods the process runtime runs
// and that are Ready once running.
const budgetedDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: c
        image: busybox
        command: ["sh", "-c", "while true; do sleep 1; done"]
`

// TestDrainWithDisruptionBudget drives the disruption controller and the
// eviction check with the stock kubectl against `kubecore all-in-one`:
// kubectl create pdb, kubectl get pdb with the disruptions the controller
// computed, and kubectl drain of the node, which takes what the budget
// allows, reports the refusal of the rest, and completes once the budget
// allows every pod to go.
func TestDrainWithDisruptionBudget(t *testing.T) {
	s := framework.StartAllInOne(t, "")
	k := s.Kubectl(t)
	ns := s.CreateNamespace(t, "pdb")
	var node string
	eventually(t, 30*time.Second, func() string {
		r := k.Run(t, "get", "nodes", "-o", "jsonpath={.items[0].metadata.name}")
		if node = strings.TrimSpace(r.Stdout); r.ExitCode != 0 || node == "" {
			return "no node registered: " + r.String()
		}
		return ""
	})
	// Before the cluster stops: the kubelet ends the pods' processes.
	t.Cleanup(func() {
		k.Run(t, "uncordon", node)
		k.Run(t, "delete", "deployment", "web", "-n", ns, "--wait", "--timeout=60s")
		k.Run(t, "delete", "pods", "--all", "-n", ns, "--wait", "--timeout=60s")
	})

	k.MustRunStdin(t, budgetedDeployment, "apply", "-n", ns, "-f", "-")
	k.MustRun(t, "wait", "-n", ns, "--for=condition=Available", "deployment/web", "--timeout=60s")
	if out := k.MustRun(t, "create", "pdb", "web", "-n", ns, "--selector=app=web", "--max-unavailable=50%"); !strings.Contains(out, "poddisruptionbudget.policy/web created") {
		t.Errorf("kubectl create pdb: %q", out)
	}
	// 50% of 2, rounded up: one pod may go.
	waitBudget := func(minAvailable, maxUnavailable, allowed string) {
		t.Helper()
		eventually(t, 60*time.Second, func() string {
			out := k.MustRun(t, "get", "pdb", "-n", ns)
			tb := parseTable(t, out)
			expectHeader(t, "get pdb", tb, "NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE")
			if row := tb.row(t, "web"); row["MIN AVAILABLE"] != minAvailable || row["MAX UNAVAILABLE"] != maxUnavailable || row["ALLOWED DISRUPTIONS"] != allowed {
				return "kubectl get pdb:\n" + out
			}
			return ""
		})
	}
	waitBudget("N/A", "50%", "1")
	status := k.MustRun(t, "get", "pdb", "web", "-n", ns, "-o", "jsonpath={.status.currentHealthy}/{.status.desiredHealthy}/{.status.expectedPods}/{.status.conditions[0].reason}")
	if status != "2/1/2/SufficientPods" {
		t.Errorf("pdb status currentHealthy/desiredHealthy/expectedPods/reason = %q, want 2/1/2/SufficientPods", status)
	}

	// The drain evicts one pod; the replacement cannot run on the
	// cordoned node, so the budget refuses the other until the timeout.
	r := k.Run(t, "drain", node, "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=15s")
	if r.ExitCode == 0 {
		t.Fatalf("drain completed while the budget allows one pod of two to go: %s", r.String())
	}
	expectContains(t, "drain refused", r.Stdout+r.Stderr,
		"node/"+node+" cordoned",
		"Cannot evict pod as it would violate the pod's disruption budget.",
		"evicted")
	waitBudget("N/A", "50%", "0")

	// Every pod may go: the drain completes.
	k.MustRun(t, "patch", "pdb", "web", "-n", ns, "--type=merge", "-p", `{"spec":{"maxUnavailable":"100%"}}`)
	waitBudget("N/A", "100%", "1")
	r = k.Run(t, "drain", node, "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=60s")
	if r.ExitCode != 0 {
		t.Fatalf("drain with a budget that allows it: %s", r.String())
	}
	expectContains(t, "drain", r.Stdout, "evicted", "node/"+node+" drained")
	if out := k.MustRun(t, "get", "pods", "-n", ns, "--field-selector=spec.nodeName="+node, "-o", "name"); out != "" {
		t.Errorf("pods left on the drained node: %q", out)
	}
}
