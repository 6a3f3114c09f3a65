package kubectl

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/e2e/framework"
)

// clusterPods run on the kubelet of an all-in-one cluster, as processes.
const clusterPods = `apiVersion: v1
kind: Pod
metadata: {name: two}
spec:
  containers:
  - {name: a, image: busybox, command: [sh, -c, "echo a says hi; sleep 3600"]}
  - {name: b, image: busybox, command: [sh, -c, "sleep 3600"]}
---
apiVersion: v1
kind: Pod
metadata: {name: once}
spec:
  restartPolicy: Never
  containers:
  - {name: a, image: busybox, command: [sh, -c, "true"]}
---
apiVersion: v1
kind: Pod
metadata: {name: logger, labels: {app: logger}, annotations: {kubectl.kubernetes.io/default-container: b}}
spec:
  initContainers:
  - {name: init, image: busybox, command: [sh, -c, "echo init says hi"]}
  containers:
  - {name: a, image: busybox, command: [sh, -c, "echo a1; echo a2; sleep 3600"]}
  - {name: b, image: busybox, command: [sh, -c, "echo b1; sleep 3600"]}
`

// TestExecLogs compares exec and logs, which need a kubelet, on a cluster
// of their own: `kubecore all-in-one`.
func TestExecLogs(t *testing.T) {
	t.Parallel()
	aio := framework.StartAllInOne(t, "")
	cl := &env{server: aio, bin: suite.bin, link: suite.link, dir: suite.dir}
	ns := aio.CreateNamespace(t, "execlogs")
	// Before the cluster stops: the kubelet ends the pods' processes.
	t.Cleanup(func() { cl.run(t, stock, "", "delete", "pods", "--all", "-n", ns, "--wait", "--timeout=60s") })
	cl.mustRun(t, clusterPods, "apply", "-n", ns, "-f", "-")
	cl.mustRun(t, "", "create", "deployment", "web", "-n", ns, "--image=busybox", "--", "sh", "-c", "echo from web; sleep 3600")
	cl.mustRun(t, "", "wait", "--for=condition=Ready", "pod/two", "pod/logger", "-n", ns, "--timeout=60s")
	cl.mustRun(t, "", "wait", "--for=condition=Available", "deploy/web", "-n", ns, "--timeout=60s")
	cl.mustRun(t, "", "wait", "--for=jsonpath={.status.phase}=Succeeded", "pod/once", "-n", ns, "--timeout=60s")
	cl.mustRun(t, "", "create", "configmap", "conf", "-n", ns)

	for _, args := range [][]string{
		{"exec", "two", "--", "sh", "-c", "echo out; echo err >&2; exit 3"},
		{"exec", "two", "-c", "b", "--", "echo", "hi"},
		{"exec", "pod/two", "--", "true"},
		{"exec", "deploy/web", "--", "echo", "hi"},
		{"exec", "logger", "--", "echo", "annotated"},
		{"exec", "two", "echo", "hi"},
		{"exec", "nope", "--", "true"},
		{"exec", "once", "--", "true"},
		{"exec", "two", "-c", "zz", "--", "true"},
		{"exec", "two", "--", "nosuchcmd"},
		{"exec", "two", "-q", "--", "true"},
		{"exec", "-it", "two", "--", "echo", "tty"},
		{"exec", "-t", "two", "-c", "a", "--", "tty"},
		{"exec", "two"},
		{"exec"},
		{"exec", "deploy/nope", "--", "true"},
		{"exec", "cm/conf", "--", "true"},
		{"logs", "two"},
		{"logs", "two", "b"},
		{"logs", "two", "a", "-c", "b"},
		{"logs", "logger"},
		{"logs", "logger", "--all-containers"},
		{"logs", "logger", "--all-containers", "--prefix"},
		{"logs", "logger", "--all-containers", "-c", "a"},
		{"logs", "logger", "-c", "init"},
		{"logs", "-l", "app=logger", "--all-containers", "--prefix", "--tail=1"},
		{"logs", "-l", "app=none"},
		{"logs", "logger", "-l", "app=logger"},
		{"logs", "deploy/web"},
		{"logs", "deploy/web", "--prefix"},
		{"logs", "deploy/nope"},
		{"logs", "cm/conf"},
		{"logs", "-f", "-l", "app=logger", "--all-containers", "--max-log-requests=2"},
		{"logs"},
	} {
		args := append(args, "-n", ns)
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			want := cl.run(t, stock, "", args...)
			got := cl.run(t, bundled, "", args...)
			// The stock kubectl reads several logs in map order.
			want.Stdout, got.Stdout = sortedLines(want.Stdout), sortedLines(got.Stdout)
			compareResults(t, want, got, map[string]string{ns: "NS"})
		})
	}
	t.Run("exec -i", func(t *testing.T) {
		cl.sameStdin(t, "line one\nline two\n", "exec", "-i", "two", "-c", "a", "-n", ns, "--", "sh", "-c", "cat; echo done")
	})
	t.Run("exec -it in a terminal", func(t *testing.T) {
		for _, c := range []cli{stock, bundled} {
			// The remote shell reads the session, sizes its terminal as the
			// local one, and exits with a code of its own.
			out := inTerminal(t, cl.kubectl(c), "stty rows 40 cols 100; KUBECTL exec -it two -c a -n "+ns+" -- sh; echo rc=$?",
				"sleep 0.5; stty size; tty; echo hello; exit 5\n")
			for _, want := range []string{"40 100\n", "/dev/pts/", "hello\n", "command terminated with exit code 5\n", "rc=5\n"} {
				if !strings.Contains(out, want) {
					t.Errorf("%s: no %q in:\n%s", c.name(), want, out)
				}
			}
		}
	})
	t.Run("exec resize", func(t *testing.T) {
		for _, c := range []cli{stock, bundled} {
			// The terminal changes size while the command runs.
			out := inTerminal(t, cl.kubectl(c), "stty rows 10 cols 20; (sleep 1; stty rows 33 cols 77 </dev/tty) & KUBECTL exec -it two -c a -n "+ns+" -- sh -c 'sleep 2; stty size'", "")
			if !strings.Contains(out, "33 77\n") {
				t.Errorf("%s: the new size did not reach the command:\n%s", c.name(), out)
			}
		}
	})
}

// name says which CLI c is, for messages.
func (c cli) name() string { return [...]string{"stock", "bundled", "link"}[c] }

// inTerminal runs script (a shell command line in which KUBECTL stands
// for k) in a pseudo-terminal made by script(1), typing input, and returns
// what the terminal showed, without carriage returns and NULs.
func inTerminal(t *testing.T, k *framework.Kubectl, line, input string) string {
	t.Helper()
	script, err := exec.LookPath("script")
	if err != nil {
		t.Fatalf("script(1) from util-linux is needed for a terminal: %v", err)
	}
	kubectl := strings.Join(append([]string{k.Path}, k.Args...), " ")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, script, "-qec", strings.ReplaceAll(line, "KUBECTL", kubectl), "/dev/null")
	cmd.Env = append([]string{"KUBECONFIG=" + k.Kubeconfig, "HOME=" + k.Home, "PATH=/usr/bin:/bin", "TERM=dumb"}, k.Env...)
	cmd.Stdin = strings.NewReader(input)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s: timed out:\n%s", line, out)
	}
	_ = err // the exit code is the command's, shown by the line itself
	return strings.NewReplacer("\r", "", "\x00", "").Replace(string(out))
}
