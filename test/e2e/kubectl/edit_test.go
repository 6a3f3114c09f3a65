package kubectl

import (
	"strings"
	"testing"

	"kubecore.io/kubecore/test/e2e/framework"
)

func TestLabelAnnotate(t *testing.T) {
	t.Parallel()
	setup := func(ns string) {
		suite.mustRun(t, "", "create", "configmap", "one", "-n", ns)
		suite.mustRun(t, "", "create", "configmap", "two", "-n", ns)
	}
	suite.pair(t, setup,
		cmd("label", "cm", "one", "-n", "NS", "a=1"),
		cmd("label", "cm", "one", "-n", "NS", "a=1"),
		cmd("label", "cm", "one", "-n", "NS", "a=2"),
		cmd("label", "cm", "one", "-n", "NS", "a=2", "--overwrite"),
		cmd("label", "cm", "one", "two", "-n", "NS", "b=x", "c=y"),
		cmd("label", "cm/one", "cm/two", "-n", "NS", "c-"),
		cmd("label", "cm", "one", "-n", "NS", "missing-"),
		cmd("label", "cm", "--all", "-n", "NS", "all=yes"),
		cmd("label", "cm", "-l", "a=2", "-n", "NS", "selected=yes"),
		cmd("label", "cm", "one", "-n", "NS", "bad=a b"),
		cmd("label", "cm", "one", "-n", "NS"),
		cmd("label", "cm", "nope", "-n", "NS", "x=y"),
		cmd("label", "cm", "one", "-n", "NS", "d=1", "--dry-run=client"),
		cmd("label", "cm", "one", "-n", "NS", "d=1", "-o", "name"),
		cmd("label", "cm", "one", "-n", "NS", "e=1", "--resource-version=1"),
		cmd("get", "cm", "-n", "NS", "--show-labels"),
		cmd("annotate", "cm", "one", "-n", "NS", "note=hello world"),
		cmd("annotate", "cm", "one", "-n", "NS", "note=again"),
		cmd("annotate", "cm", "one", "-n", "NS", "note=again", "--overwrite"),
		cmd("annotate", "cm", "one", "two", "-n", "NS", "other=x"),
		cmd("annotate", "cm", "one", "-n", "NS", "note-"),
		cmd("get", "cm", "one", "-n", "NS", "-o", "jsonpath={.metadata.annotations}"),
	)
}

func TestScalePatchReplace(t *testing.T) {
	t.Parallel()
	setup := func(ns string) {
		suite.mustRun(t, "", "create", "deployment", "web", "-n", ns, "--image=nginx", "--replicas=1")
		suite.mustRun(t, "", "create", "configmap", "conf", "-n", ns, "--from-literal=k=v")
	}
	replaced := suite.writeFile(t, "conf.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: conf}\ndata: {k: replaced}\n")
	suite.pair(t, setup,
		cmd("scale", "deploy", "web", "-n", "NS", "--replicas=3"),
		cmd("scale", "deploy/web", "-n", "NS", "--replicas=3"),
		cmd("get", "deploy", "web", "-n", "NS", "-o", "jsonpath={.spec.replicas}"),
		cmd("scale", "deploy", "web", "-n", "NS", "--replicas=4", "--current-replicas=2"),
		cmd("scale", "deploy", "web", "-n", "NS", "--replicas=4", "--current-replicas=3"),
		cmd("scale", "deploy", "nope", "-n", "NS", "--replicas=1"),
		cmd("scale", "deploy", "web", "-n", "NS", "--replicas=5", "--dry-run=server"),
		cmd("get", "deploy", "web", "-n", "NS", "-o", "jsonpath={.spec.replicas}"),
		cmd("patch", "cm", "conf", "-n", "NS", "-p", `{"data":{"k2":"v2"}}`),
		cmd("patch", "cm", "conf", "-n", "NS", "-p", `{"data":{"k2":"v2"}}`),
		cmd("patch", "cm", "conf", "-n", "NS", "--type=merge", "-p", `{"data":{"k2":null}}`),
		cmd("patch", "cm", "conf", "-n", "NS", "--type=json", "-p", `[{"op":"replace","path":"/data/k","value":"json"}]`),
		cmd("patch", "deploy", "web", "-n", "NS", "-p", `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:2"}]}}}}`),
		cmd("get", "deploy", "web", "-n", "NS", "-o", "jsonpath={.spec.template.spec.containers[*].image}"),
		cmd("get", "cm", "conf", "-n", "NS", "-o", "jsonpath={.data}"),
		cmd("patch", "cm", "conf", "-n", "NS"),
		cmd("patch", "cm", "nope", "-n", "NS", "-p", `{"data":{}}`),
		cmd("patch", "cm", "conf", "-n", "NS", "--type=json", "-p", `[{"op":"remove","path":"/data/absent"}]`),
		cmd("replace", "-n", "NS", "-f", replaced),
		cmd("get", "cm", "conf", "-n", "NS", "-o", "jsonpath={.data}"),
		cmd("replace", "-n", "NS", "-f", replaced, "--force"),
		cmd("replace", "-n", "NS", "-f", replaced, "-o", "name"),
	)
}

// TestList checks label --list and annotate --list, whose order the stock
// kubectl leaves to Go's map iteration.
func TestList(t *testing.T) {
	t.Parallel()
	ns := getNamespace(t)
	suite.mustRun(t, "", "annotate", "cm", "alpha", "-n", ns, "z=1", "y=2")
	for _, verb := range []string{"label", "annotate"} {
		want := suite.run(t, stock, "", verb, "cm", "alpha", "-n", ns, "--list")
		got := suite.run(t, bundled, "", verb, "cm", "alpha", "-n", ns, "--list")
		want.Stdout, got.Stdout = sortedLines(want.Stdout), sortedLines(got.Stdout)
		compareResults(t, want, got, nil)
	}
}

func TestEdit(t *testing.T) {
	t.Parallel()
	setup := func(ns string) {
		suite.mustRun(t, "", "create", "configmap", "conf", "-n", ns, "--from-literal=color=blue")
		suite.mustRun(t, "", "create", "deployment", "web", "-n", ns, "--image=nginx")
	}
	edits := []struct{ editor, args string }{
		{"sed -i s/blue/green/", "cm conf"},
		{"true", "cm conf"},
		{"sed -i s/image:.nginx$/image:\\ nginx:2/", "deploy/web"},
		{"sed -i s/replicas:.1$/replicas:\\ -1/", "deploy/web"},
		{"sed -i s/name:.conf/name:\\ other/", "cm conf"},
	}
	for _, e := range edits {
		var res [2]framework.Result
		for i, c := range []cli{stock, bundled} {
			ns := []string{"testedit-stock", "testedit-bundled"}[i]
			if e == edits[0] {
				suite.mustRun(t, "", "create", "namespace", ns)
				t.Cleanup(func() { suite.run(t, stock, "", "delete", "namespace", ns, "--wait=false") })
				setup(ns)
			}
			res[i] = suite.runEnv(t, c, []string{"EDITOR=" + e.editor}, append(append([]string{"edit"}, strings.Fields(e.args)...), "-n", ns)...)
		}
		compareResults(t, res[0], res[1], map[string]string{"testedit-stock": "NS", "testedit-bundled": "NS"})
	}
	for i, ns := range []string{"testedit-stock", "testedit-bundled"} {
		got := suite.run(t, []cli{stock, bundled}[i], "", "get", "cm", "conf", "-n", ns, "-o", "jsonpath={.data.color}")
		if got.Stdout != "green" {
			t.Errorf("%s: color %q after the edit", ns, got.Stdout)
		}
	}
}
