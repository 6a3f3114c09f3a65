package kubectl

import (
	"fmt"
	"strings"
	"testing"

	"kubecore.io/kubecore/test/e2e/framework"
)

// drainPods are the pods of a node to drain, labelled role=<name> so that
// each step picks one kind with --pod-selector (the stock kubectl lists
// the reasons of several kinds in map order). No kubelet runs: a grace
// period of 0 makes an evicted pod go at once, and "slow" stays
// terminating.
const drainPods = `apiVersion: apps/v1
kind: DaemonSet
metadata: {name: ds}
spec:
  selector: {matchLabels: {app: ds}}
  template:
    metadata: {labels: {app: ds}}
    spec: {containers: [{name: c, image: busybox}]}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: guard}
spec:
  minAvailable: 1
  selector: {matchLabels: {role: guarded}}
`

func drainPod(name, node, extraMeta, extraSpec string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: %[1]s, labels: {role: %[1]s}%[3]s}
spec: {nodeName: %[2]s, terminationGracePeriodSeconds: 0, containers: [{name: c, image: busybox}]%[4]s}
`, name, node, extraMeta, extraSpec)
}

func TestDrain(t *testing.T) {
	t.Parallel()
	var nodes, nss [2]string
	for i, c := range []string{"stock", "bundled"} {
		nodes[i], nss[i] = "node-"+c, "testdrain-"+c
		node, ns := nodes[i], nss[i]
		suite.mustRun(t, "apiVersion: v1\nkind: Node\nmetadata: {name: "+node+"}\n", "apply", "-f", "-")
		suite.mustRun(t, "", "create", "namespace", ns)
		t.Cleanup(func() {
			suite.run(t, stock, "", "delete", "node", node)
			suite.run(t, stock, "", "delete", "namespace", ns, "--wait=false")
		})
		suite.mustRun(t, drainPods, "apply", "-n", ns, "-f", "-")
		ds := suite.mustRun(t, "", "get", "ds", "ds", "-n", ns, "-o", "jsonpath={.metadata.uid}")
		rs := ", ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u1, controller: true}]"
		manifests := []string{
			drainPod("bare", node, "", ""),
			drainPod("ds", node, ", ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: ds, uid: "+ds+", controller: true}]", ""),
			drainPod("local", node, rs, ", volumes: [{name: v, emptyDir: {}}]"),
			drainPod("mirror", node, ", annotations: {kubernetes.io/config.mirror: x}", ""),
			drainPod("done", node, "", ""),
			drainPod("guarded", node, rs, ""),
			drainPod("slow", node, rs, ", terminationGracePeriodSeconds: 30"),
		}
		suite.mustRun(t, strings.Join(manifests, "---\n"), "apply", "-n", ns, "-f", "-")
		// Only a running pod counts against its disruption budget.
		suite.mustRun(t, "", "patch", "pod", "guarded", "-n", ns, "--subresource=status", "--type=merge", "-p", `{"status":{"phase":"Running"}}`)
		suite.mustRun(t, "", "patch", "pod", "done", "-n", ns, "--subresource=status", "--type=merge", "-p", `{"status":{"phase":"Succeeded"}}`)
	}
	for _, args := range [][]string{
		{"drain", "NODE", "--pod-selector=role=bare"},
		{"drain", "NODE", "--pod-selector=role=ds"},
		{"drain", "NODE", "--pod-selector=role=local"},
		{"drain", "NODE", "--pod-selector=role=ds", "--ignore-daemonsets"},
		{"drain", "NODE", "--pod-selector=role=bare", "--force", "--dry-run=client"},
		{"drain", "NODE", "--pod-selector=role=bare", "--force", "--dry-run=server"},
		{"drain", "NODE", "--pod-selector=role in (bare,done)", "--force"},
		{"drain", "NODE", "--pod-selector=role=local", "--delete-emptydir-data", "--grace-period=0"},
		{"drain", "NODE", "--pod-selector=role=guarded", "--timeout=2s"},
		{"drain", "NODE", "--pod-selector=role=slow", "--timeout=1s"},
		{"drain", "NODE", "--pod-selector=role=mirror"},
		{"get", "pods", "-n", "NS", "-o", "name"},
		{"get", "node", "NODE", "-o", "jsonpath={.spec.unschedulable}"},
		{"drain"},
		{"drain", "no-such-node"},
	} {
		var res [2]framework.Result
		for i, c := range []cli{stock, bundled} {
			a := make([]string, len(args))
			for j, s := range args {
				a[j] = strings.NewReplacer("NODE", nodes[i], "NS", nss[i]).Replace(s)
			}
			res[i] = suite.run(t, c, "", a...)
			// Pods are evicted at once, in no set order.
			res[i].Stdout = sortedLines(res[i].Stdout)
		}
		compareResults(t, res[0], res[1], map[string]string{nodes[0]: "NODE", nodes[1]: "NODE", nss[0]: "NS", nss[1]: "NS"})
	}
}
