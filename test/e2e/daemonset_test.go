package e2e

import (
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/e2e/framework"
)

// agentDaemonSet is a node agent DaemonSet whose container the process
// runtime runs.
const agentDaemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
  labels:
    app: agent
spec:
  selector:
    matchLabels:
      app: agent
  template:
    metadata:
      labels:
        app: agent
    spec:
      nodeSelector:
        kubernetes.io/os: linux
      terminationGracePeriodSeconds: 1
      containers:
      - name: agent
        image: busybox:1.36
        command: ["sh", "-c", "echo agent started; while true; do sleep 1; done"]
`

// TestDaemonSet runs a DaemonSet on all-in-one's node to Ready and drives
// it with the stock kubectl: rollout status, the DaemonSet table, rollout
// restart (a new revision rolled out), rollout history and rollout undo
// (the first revision renumbered as the newest).
func TestDaemonSet(t *testing.T) {
	s := framework.StartAllInOne(t, "")
	k := s.Kubectl(t)
	ns := s.CreateNamespace(t, "ds")
	// Before the cluster stops: the kubelet ends the pods' processes.
	t.Cleanup(func() {
		k.Run(t, "delete", "daemonset", "agent", "-n", ns, "--cascade=foreground", "--wait", "--timeout=60s")
		k.Run(t, "delete", "pods", "--all", "-n", ns, "--wait", "--timeout=60s")
	})
	var node string
	eventually(t, 30*time.Second, func() string {
		r := k.Run(t, "get", "nodes", "-o", "jsonpath={.items[0].metadata.name}")
		if node = strings.TrimSpace(r.Stdout); r.ExitCode != 0 || node == "" {
			return "no node registered: " + r.String()
		}
		return ""
	})

	k.MustRunStdin(t, agentDaemonSet, "apply", "-n", ns, "-f", "-")
	out := k.MustRun(t, "rollout", "status", "daemonset/agent", "-n", ns, "--timeout=60s")
	expectContains(t, "rollout status", out, `daemon set "agent" successfully rolled out`)
	// pod waits for the one daemon pod not being deleted.
	pod := func() (name, uid, nodeName, phase string) {
		t.Helper()
		eventually(t, 30*time.Second, func() string {
			r := k.Run(t, "get", "pods", "-n", ns, "-l", "app=agent", "-o",
				`jsonpath={range .items[*]}{.metadata.name} {.metadata.uid} {.spec.nodeName} {.status.phase} {.metadata.deletionTimestamp}{"\n"}{end}`)
			var live [][]string
			for _, line := range strings.Split(r.Stdout, "\n") {
				if f := strings.Fields(line); len(f) == 4 {
					live = append(live, f)
				}
			}
			if r.ExitCode != 0 || len(live) != 1 {
				return "want one daemon pod not being deleted: " + r.String()
			}
			name, uid, nodeName, phase = live[0][0], live[0][1], live[0][2], live[0][3]
			return ""
		})
		return name, uid, nodeName, phase
	}
	name, uid, onNode, phase := pod()
	if onNode != node || phase != "Running" || !strings.HasPrefix(name, "agent-") {
		t.Errorf("daemon pod %s on %q, %s", name, onNode, phase)
	}

	tb := parseTable(t, k.MustRun(t, "get", "daemonset", "agent", "-n", ns))
	expectHeader(t, "get daemonset", tb, "NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE")
	row := tb.row(t, "agent")
	for _, col := range []string{"DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE"} {
		if row[col] != "1" {
			t.Errorf("get daemonset: %s %q, want 1", col, row[col])
		}
	}
	if row["NODE SELECTOR"] != "kubernetes.io/os=linux" {
		t.Errorf("get daemonset: NODE SELECTOR %q", row["NODE SELECTOR"])
	}

	// rollout restart makes a second revision and replaces the pod.
	expectContains(t, "rollout restart", k.MustRun(t, "rollout", "restart", "daemonset/agent", "-n", ns), "daemonset.apps/agent restarted")
	out = k.MustRun(t, "rollout", "status", "daemonset/agent", "-n", ns, "--timeout=60s")
	expectContains(t, "rollout status after restart", out, `daemon set "agent" successfully rolled out`)
	eventually(t, 30*time.Second, func() string {
		r := k.Run(t, "get", "pods", "-n", ns, "-l", "app=agent", "-o", "jsonpath={.items[*].metadata.uid}")
		if f := strings.Fields(r.Stdout); len(f) != 1 || f[0] == uid {
			return "pods after restart: " + r.String()
		}
		return ""
	})
	_, restartedUID, _, _ := pod()
	if r := k.MustRun(t, "get", "pods", "-n", ns, "-l", "app=agent", "-o", `jsonpath={.items[0].metadata.annotations.kubectl\.kubernetes\.io/restartedAt}`); r == "" {
		t.Error("the restarted pod lacks the restartedAt annotation")
	}

	out = k.MustRun(t, "rollout", "history", "daemonset/agent", "-n", ns)
	expectContains(t, "rollout history", out, "daemonset.apps/agent", "REVISION", "CHANGE-CAUSE")
	if revs := historyRevisions(out); strings.Join(revs, ",") != "1,2" {
		t.Errorf("rollout history revisions %v:\n%s", revs, out)
	}
	out = k.MustRun(t, "rollout", "history", "daemonset/agent", "-n", ns, "--revision=2")
	expectContains(t, "rollout history --revision=2", out, "kubectl.kubernetes.io/restartedAt", "sleep 1")

	// rollout undo goes back to the first template, now revision 3.
	expectContains(t, "rollout undo", k.MustRun(t, "rollout", "undo", "daemonset/agent", "-n", ns), "daemonset.apps/agent rolled back")
	k.MustRun(t, "rollout", "status", "daemonset/agent", "-n", ns, "--timeout=60s")
	eventually(t, 30*time.Second, func() string {
		r := k.Run(t, "get", "pods", "-n", ns, "-l", "app=agent", "-o", `jsonpath={range .items[*]}{.metadata.uid}={.metadata.annotations}{"\n"}{end}`)
		lines := strings.Fields(r.Stdout)
		if len(lines) != 1 || strings.HasPrefix(lines[0], restartedUID) || strings.Contains(lines[0], "restartedAt") {
			return "pods after undo: " + r.String()
		}
		return ""
	})
	out = k.MustRun(t, "rollout", "history", "daemonset/agent", "-n", ns)
	if revs := historyRevisions(out); strings.Join(revs, ",") != "2,3" {
		t.Errorf("rollout history after undo: revisions %v:\n%s", revs, out)
	}
	if r := k.Run(t, "rollout", "undo", "daemonset/agent", "-n", ns, "--to-revision=9"); r.ExitCode == 0 || !strings.Contains(r.Stderr, "unable to find specified revision 9") {
		t.Errorf("undo to a missing revision: %s", r.String())
	}
}

// historyRevisions returns the revision numbers `kubectl rollout history`
// lists, in order.
func historyRevisions(out string) []string {
	var revs []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) > 0 && f[0] != "REVISION" && strings.Trim(f[0], "0123456789") == "" {
			revs = append(revs, f[0])
		}
	}
	return revs
}
