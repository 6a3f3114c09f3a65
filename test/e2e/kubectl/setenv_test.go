package kubectl

import "testing"

func TestSetEnv(t *testing.T) {
	t.Parallel()
	setup := func(ns string) {
		suite.mustRun(t, "", "create", "deployment", "web", "-n", ns, "--image=nginx")
		suite.mustRun(t, "apiVersion: v1\nkind: Pod\nmetadata: {name: two}\nspec:\n  containers:\n  - {name: a, image: busybox, env: [{name: KEEP, value: k}, {name: REF, valueFrom: {configMapKeyRef: {name: conf, key: x}}}]}\n  - {name: b, image: redis}\n", "apply", "-n", ns, "-f", "-")
	}
	env := cmd("get", "deploy", "web", "-n", "NS", "-o", "jsonpath={.spec.template.spec.containers[*].env}")
	suite.pair(t, setup,
		cmd("set", "env", "deploy/web", "A=1", "B=2", "-n", "NS"),
		env,
		cmd("set", "env", "deploy/web", "A=1", "-n", "NS"),
		cmd("set", "env", "deploy/web", "A=3", "C=", "-e", "D=4", "-n", "NS"),
		env,
		cmd("set", "env", "deploy/web", "--list", "-n", "NS"),
		cmd("set", "env", "deploy/web", "B-", "-n", "NS"),
		env,
		cmd("set", "env", "deploy/web", "A-", "C-", "D-", "-n", "NS"),
		env,
		cmd("set", "env", "deploy/web", "X=1", "-n", "NS", "--dry-run=client"),
		cmd("set", "env", "deploy/web", "-n", "NS"),
		cmd("set", "env", "pod/two", "--list", "-n", "NS"),
		cmd("set", "env", "pod/two", "--list", "-c", "b", "-n", "NS"),
		cmd("set", "env", "deploy/web", "--list", "-c", "nope", "-n", "NS"),
		cmd("set", "env", "deploy/web", "X=1", "-c", "nope", "-n", "NS"),
		cmd("set", "env", "deploy/nope", "X=1", "-n", "NS"),
	)
}

// TestSetEnvFrom injects the keys of config maps and secrets. The stock
// kubectl takes the keys of one object in map order, so each step draws a
// single key.
func TestSetEnvFrom(t *testing.T) {
	t.Parallel()
	setup := func(ns string) {
		suite.mustRun(t, "", "create", "deployment", "web", "-n", ns, "--image=nginx")
		suite.mustRun(t, "", "create", "configmap", "conf", "-n", ns, "--from-literal=a.b=1", "--from-literal=zed=2")
		suite.mustRun(t, "", "create", "configmap", "up", "-n", ns, "--from-literal=ABC=1")
		suite.mustRun(t, "", "create", "secret", "generic", "sec", "-n", ns, "--from-literal=pw=x")
	}
	env := cmd("get", "deploy", "web", "-n", "NS", "-o", "jsonpath={.spec.template.spec.containers[*].env}")
	suite.pair(t, setup,
		cmd("set", "env", "deploy/web", "--from=configmap/up", "-n", "NS"),
		cmd("set", "env", "deploy/web", "--from=configmap/up", "-n", "NS"),
		cmd("set", "env", "deploy/web", "--from=cm/conf", "--keys=a.b", "--prefix=P_", "-n", "NS"),
		cmd("set", "env", "deploy/web", "--from=secret/sec", "X=1", "-n", "NS"),
		env,
		cmd("set", "env", "deploy/web", "--list", "-n", "NS"),
		cmd("set", "env", "deploy/web", "--from=secret/sec", "--keys=nope", "-n", "NS"),
		cmd("set", "env", "deploy/web", "--from=cm/conf", "--keys=zed", "--dry-run=client", "-n", "NS"),
		env,
		cmd("set", "env", "deploy/web", "--from=deploy/web", "-n", "NS"),
		cmd("set", "env", "deploy/web", "--from=cm/nope", "-n", "NS"),
		cmd("set", "env", "deploy/web", "--from=cm", "-n", "NS"),
		cmd("set", "env", "deploy/web", "--from=cm/up,cm/conf", "-n", "NS"),
		cmd("set", "env", "deploy/web", "--keys=zed", "-n", "NS"),
	)
}
