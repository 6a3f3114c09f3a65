package kubectl

import (
	"os"
	"strings"
	"testing"

	"kubecore.io/kubecore/test/e2e/framework"
)

// TestCommandLine compares what both CLIs say about the command line
// itself and the global connection flags.
func TestCommandLine(t *testing.T) {
	t.Parallel()
	ns := getNamespace(t)
	server := serverURL(t)
	for _, args := range [][]string{
		{"describ", "pods"},
		{"explian", "pods"},
		{"drian", "node-x"},
		{"exce", "pod", "--", "true"},
		{"get", "pods", "--foo"},
		{"--context=nope", "get", "pods"},
		{"--request-timeout=abc", "get", "ns"},
		{"--kubeconfig=/nonexistent", "get", "ns"},
		{"--kubeconfig=" + suite.server.Kubeconfig, "get", "cm", "-n", ns},
		{"--context=kubecore", "--namespace", ns, "get", "cm"},
		{"-n", ns, "get", "cm", "--request-timeout=5"},
		{"--server=" + server, "--insecure-skip-tls-verify", "get", "cm", "-n", ns},
		{"--server=" + server, "--insecure-skip-tls-verify", "--token=not-a-token", "get", "cm", "-n", ns},
		{"api-resources"},
		{"api-resources", "-o", "wide"},
		{"api-resources", "-o", "name", "--namespaced=false"},
		{"api-resources", "--api-group=apps", "--no-headers"},
		{"api-versions"},
		{"config", "view"},
		{"config", "view", "--minify"},
		{"config", "get-contexts"},
		{"config", "get-contexts", "-o", "name"},
		{"config", "current-context"},
		{"cluster-info"},
		{"get", "--raw", "/api/v1/namespaces/" + ns + "/configmaps/alpha"},
		{"get", "--raw", "/api/v1/namespaces/" + ns + "/configmaps/nope"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) { suite.same(t, args...) })
	}
	t.Run("flag suggestion", func(t *testing.T) {
		// The stock kubectl suggests verbs only; the bundled one flags too.
		for _, tc := range []struct{ args, want []string }{
			{[]string{"scale", "deploy", "x", "--replica=2"}, []string{"--replicas"}},
			{[]string{"get", "pods", "--nmespace", "x"}, []string{"--namespace"}},
			{[]string{"drain", "x", "--ignore-daemonset"}, []string{"--ignore-daemonsets"}},
			{[]string{"exec", "x", "--contianer=a", "--", "true"}, []string{"--container"}},
			{[]string{"explain", "pods", "--recursiv"}, []string{"--recursive"}},
		} {
			r := suite.run(t, bundled, "", tc.args...)
			want := "Did you mean this?\n\t" + strings.Join(tc.want, "\n\t") + "\n\nSee 'kubectl " + tc.args[0] + " --help' for usage.\n"
			if r.ExitCode != 1 || !strings.Contains(r.Stderr, want) {
				t.Errorf("want exactly the suggestion %q:\n%s", tc.want, r)
			}
		}
	})
	t.Run("completion", func(t *testing.T) {
		r := suite.run(t, bundled, "", "completion", "bash")
		if r.ExitCode != 0 || !strings.Contains(r.Stdout, "kubectl") {
			t.Errorf("completion bash:\n%s", r)
		}
	})
	t.Run("version", func(t *testing.T) {
		r := suite.run(t, bundled, "", "version")
		if r.ExitCode != 0 || !strings.Contains(r.Stdout, "Client Version: ") || !strings.Contains(r.Stdout, "Server Version: ") {
			t.Errorf("version:\n%s", r)
		}
	})
}

// TestConfigWrites changes copies of the kubeconfig with both CLIs.
func TestConfigWrites(t *testing.T) {
	t.Parallel()
	orig, err := os.ReadFile(suite.server.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	var paths [2]string
	for i := range paths {
		paths[i] = suite.writeFile(t, []string{"stock", "bundled"}[i]+".kubeconfig", string(orig))
	}
	for _, args := range [][]string{
		{"config", "set-context", "other", "--cluster=kubecore", "--user=kubecore", "--namespace=elsewhere"},
		{"config", "use-context", "other"},
		{"config", "current-context"},
		{"config", "get-contexts"},
		{"config", "use-context", "missing"},
		{"config", "set-context", "--current", "--namespace=again"},
		{"config", "delete-context", "other"},
	} {
		var res [2]framework.Result
		for i, c := range []cli{stock, bundled} {
			res[i] = suite.run(t, c, "", append([]string{"--kubeconfig", paths[i]}, args...)...)
		}
		compareResults(t, res[0], res[1], map[string]string{paths[0]: "PATH", paths[1]: "PATH"})
	}
}

func serverURL(t *testing.T) string {
	t.Helper()
	out := suite.mustRun(t, "", "config", "view", "-o", "jsonpath={.clusters[0].cluster.server}")
	return strings.TrimSpace(out)
}

func TestCordon(t *testing.T) {
	t.Parallel()
	var nodes [2]string
	for i, c := range []string{"stock", "bundled"} {
		nodes[i] = "cordon-" + c
		suite.mustRun(t, "apiVersion: v1\nkind: Node\nmetadata: {name: "+nodes[i]+"}\n", "apply", "-f", "-")
		t.Cleanup(func() { suite.run(t, stock, "", "delete", "node", nodes[i]) })
	}
	for _, args := range [][]string{
		{"cordon", "NODE"},
		{"cordon", "NODE"},
		{"get", "node", "NODE", "-o", "jsonpath={.spec.unschedulable}"},
		{"uncordon", "NODE", "--dry-run=client"},
		{"uncordon", "NODE"},
		{"uncordon", "NODE"},
		{"get", "node", "NODE", "-o", "jsonpath={.spec}"},
		{"cordon", "no-such-node"},
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
