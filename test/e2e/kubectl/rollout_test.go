package kubectl

import (
	"strings"
	"testing"

	"kubecore.io/kubecore/test/e2e/framework"
)

func TestRolloutWaitLogs(t *testing.T) {
	t.Parallel()
	setup := func(ns string) {
		suite.mustRun(t, "", "create", "deployment", "web", "-n", ns, "--image=nginx", "--replicas=2")
		suite.mustRun(t, "", "create", "configmap", "conf", "-n", ns)
		suite.mustRun(t, "apiVersion: v1\nkind: Pod\nmetadata: {name: two}\nspec:\n  containers: [{name: a, image: busybox}, {name: b, image: redis}]\n", "apply", "-n", ns, "-f", "-")
	}
	// No controller-manager runs: the status is written by hand.
	status := func(s string) step {
		return cmd("patch", "deploy", "web", "-n", "NS", "--subresource=status", "--type=merge", "-p", s)
	}
	suite.pair(t, setup,
		cmd("rollout", "status", "deploy/web", "-n", "NS", "--timeout=1s"),
		status(`{"status":{"observedGeneration":1,"replicas":2,"updatedReplicas":1,"availableReplicas":1}}`),
		cmd("rollout", "status", "deploy/web", "-n", "NS", "--watch=false"),
		status(`{"status":{"updatedReplicas":2,"availableReplicas":1}}`),
		cmd("rollout", "status", "deployment", "web", "-n", "NS", "--timeout=1s"),
		status(`{"status":{"availableReplicas":2}}`),
		cmd("rollout", "status", "deploy/web", "-n", "NS"),
		cmd("rollout", "status", "cm/conf", "-n", "NS"),
		cmd("wait", "--for=jsonpath={.spec.replicas}=2", "deploy/web", "-n", "NS"),
		cmd("wait", "--for=jsonpath={.spec.replicas}=3", "deploy/web", "-n", "NS", "--timeout=1s"),
		cmd("wait", "--for=condition=Available", "deploy/web", "-n", "NS", "--timeout=1s"),
		status(`{"status":{"conditions":[{"type":"Available","status":"True","reason":"MinimumReplicasAvailable"}]}}`),
		cmd("wait", "--for=condition=Available", "deploy/web", "-n", "NS", "--timeout=5s"),
		cmd("describe", "deploy", "web", "-n", "NS"),
		cmd("delete", "cm", "conf", "-n", "NS", "--wait=false"),
		cmd("wait", "--for=delete", "cm/conf", "-n", "NS", "--timeout=5s"),
		cmd("logs", "two", "-n", "NS"),
		cmd("logs", "two", "-c", "b", "-n", "NS", "--tail=5"),
		cmd("logs", "nope", "-n", "NS"),
		cmd("logs", "pod/nope", "-n", "NS"),
	)
}

func TestRolloutSetTaint(t *testing.T) {
	t.Parallel()
	setup := func(ns string) {
		suite.mustRun(t, "", "create", "deployment", "web", "-n", ns, "--image=nginx")
		suite.mustRun(t, "", "create", "configmap", "conf", "-n", ns)
	}
	suite.pair(t, setup,
		cmd("rollout", "restart", "deploy/web", "-n", "NS"),
		cmd("get", "deploy", "web", "-n", "NS", "-o", "jsonpath={.spec.template.metadata.annotations}"),
		cmd("rollout", "pause", "deploy/web", "-n", "NS"),
		cmd("rollout", "pause", "deploy/web", "-n", "NS"),
		cmd("rollout", "resume", "deploy/web", "-n", "NS"),
		cmd("rollout", "resume", "deploy/web", "-n", "NS"),
		cmd("rollout", "restart", "cm/conf", "-n", "NS"),
		cmd("set", "image", "deploy/web", "nginx=nginx:2", "-n", "NS"),
		cmd("set", "image", "deploy/web", "nginx=nginx:2", "-n", "NS"),
		cmd("set", "image", "deploy/web", "nope=x", "-n", "NS"),
		cmd("set", "image", "deploy/web", "*=busybox", "-n", "NS"),
		cmd("get", "deploy", "web", "-n", "NS", "-o", "jsonpath={.spec.template.spec.containers[*].image}"),
	)
	var nodes [2]string
	for i, c := range []string{"stock", "bundled"} {
		nodes[i] = "taint-" + c
		suite.mustRun(t, "apiVersion: v1\nkind: Node\nmetadata: {name: "+nodes[i]+"}\n", "apply", "-f", "-")
		t.Cleanup(func() { suite.run(t, stock, "", "delete", "node", nodes[i]) })
	}
	for _, args := range [][]string{
		{"taint", "nodes", "NODE", "k1=v1:NoSchedule"},
		{"taint", "nodes", "NODE", "k1=v2:NoSchedule"},
		{"taint", "nodes", "NODE", "k1=v2:NoSchedule", "--overwrite"},
		{"taint", "nodes", "NODE", "k2:NoExecute"},
		{"get", "node", "NODE", "-o", "jsonpath={.spec.taints}"},
		{"taint", "nodes", "NODE", "k1:NoSchedule-"},
		{"taint", "nodes", "NODE", "k1:NoSchedule-"},
		{"taint", "nodes", "NODE", "k2-"},
		{"taint", "nodes", "NODE"},
		{"get", "node", "NODE", "-o", "jsonpath={.spec}"},
	} {
		var res [2]framework.Result
		for i, c := range []cli{stock, bundled} {
			a := make([]string, len(args))
			for j, s := range args {
				a[j] = strings.ReplaceAll(s, "NODE", nodes[i])
			}
			res[i] = suite.run(t, c, "", a...)
		}
		compareResults(t, res[0], res[1], map[string]string{nodes[0]: "NODE", nodes[1]: "NODE"})
	}
}
