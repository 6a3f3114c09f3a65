package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/e2e/framework"
)

// shPodManifest is a pod whose only container runs script in sh.
func shPodManifest(name, ns, script string) string {
	return `apiVersion: v1
kind: Pod
metadata:
  name: ` + name + `
  namespace: ` + ns + `
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", ` + quoteYAML(script) + `]
`
}

func quoteYAML(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }

// eventually retries f every 100 ms until it returns "" (success) or
// timeout passes; it fails the test with f's last complaint.
func eventually(t *testing.T, timeout time.Duration, f func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		msg := f()
		if msg == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", timeout, msg)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestLogsAndExec drives pods/log and pods/exec with the stock kubectl
// against `kubecore all-in-one`: the apiserver proxies them to the
// kubelet, which runs the pods as processes.
func TestLogsAndExec(t *testing.T) {
	s := framework.StartAllInOne(t, "")
	k := s.Kubectl(t)
	ns := s.CreateNamespace(t, "logs")
	// Before the cluster stops: the kubelet ends the pods' processes.
	t.Cleanup(func() {
		k.Run(t, "delete", "pods", "--all", "-n", ns, "--wait", "--timeout=60s")
	})
	eventually(t, 30*time.Second, func() string {
		if r := k.Run(t, "get", "nodes", "-o", "name"); r.ExitCode != 0 || r.Stdout == "" {
			return "no node registered: " + r.String()
		}
		return ""
	})

	k.MustRunStdin(t, shPodManifest("counter", ns, `i=0; while true; do echo line $i; i=$((i+1)); sleep 0.2; done`), "apply", "-f", "-")
	k.MustRunStdin(t, shPodManifest("crasher", ns, `echo "run $(date +%s%N)"; sleep 1; exit 1`), "apply", "-f", "-")
	k.MustRun(t, "wait", "--for=condition=Ready", "pod/counter", "-n", ns, "--timeout=60s")

	t.Run("logs", func(t *testing.T) {
		eventually(t, 10*time.Second, func() string {
			r := k.Run(t, "logs", "counter", "-n", ns)
			if r.ExitCode != 0 || !strings.HasPrefix(r.Stdout, "line 0\nline 1\nline 2\n") {
				return r.String()
			}
			return ""
		})
		out := k.MustRun(t, "logs", "counter", "-n", ns, "--tail=2")
		if lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], "line ") {
			t.Fatalf("--tail=2: %q", out)
		}
		r := k.Run(t, "logs", "counter", "-n", ns, "-c", "nope")
		if r.ExitCode == 0 || !strings.Contains(r.Stderr, "container nope is not valid for pod counter") {
			t.Fatalf("unknown container: %s", r)
		}
	})

	t.Run("logs -f", func(t *testing.T) {
		bg := k.Start(t, "logs", "-f", "counter", "-n", ns, "--tail=1")
		eventually(t, 10*time.Second, func() string {
			if out := bg.Stdout(); strings.Count(out, "\n") < 4 {
				return "followed lines: " + out + bg.Stderr()
			}
			return ""
		})
		if bg.Exited() {
			t.Fatalf("logs -f ended: %s", bg.Stderr())
		}
		bg.Stop()
		// The last line, then new ones as they were written, in order.
		lines := strings.Split(strings.TrimSuffix(bg.Stdout(), "\n"), "\n")
		for i := range lines {
			n, err := strconv.Atoi(strings.TrimPrefix(lines[i], "line "))
			first, _ := strconv.Atoi(strings.TrimPrefix(lines[0], "line "))
			if err != nil || n != first+i {
				t.Fatalf("followed lines %q", lines)
			}
		}
	})

	t.Run("logs --previous", func(t *testing.T) {
		eventually(t, 60*time.Second, func() string {
			r := k.Run(t, "get", "pod", "crasher", "-n", ns, "-o", "jsonpath={.status.containerStatuses[0].restartCount}")
			if r.ExitCode != 0 || r.Stdout == "" || r.Stdout == "0" {
				return "not restarted: " + r.String()
			}
			return ""
		})
		out := k.MustRun(t, "logs", "crasher", "-n", ns, "--previous")
		if !strings.HasPrefix(out, "run ") || strings.Count(out, "\n") != 1 {
			t.Fatalf("--previous: %q", out)
		}
		r := k.Run(t, "logs", "counter", "-n", ns, "--previous")
		if r.ExitCode == 0 || !strings.Contains(r.Stderr, `previous terminated container "main" in pod "counter" not found`) {
			t.Fatalf("--previous without one: %s", r)
		}
	})

	t.Run("exec", func(t *testing.T) {
		r := k.Run(t, "exec", "counter", "-n", ns, "--", "sh", "-c", "echo hi; exit 3")
		if r.ExitCode != 3 || r.Stdout != "hi\n" {
			t.Fatalf("exec: %s", r)
		}
		r = k.Run(t, "exec", "counter", "-n", ns, "--", "sh", "-c", "echo out; echo err >&2")
		if r.ExitCode != 0 || r.Stdout != "out\n" || r.Stderr != "err\n" {
			t.Fatalf("exec with stderr: %s", r)
		}
	})

	t.Run("exec -i", func(t *testing.T) {
		out := k.MustRunStdin(t, "hello\nworld\n", "exec", "-i", "counter", "-n", ns, "--", "sh", "-c", "cat; echo done")
		if out != "hello\nworld\ndone\n" {
			t.Fatalf("exec -i: %q", out)
		}
	})

	t.Run("exec -v shows WebSocket", func(t *testing.T) {
		r := k.Run(t, "exec", "counter", "-n", ns, "-v=7", "--", "true")
		if r.ExitCode != 0 || !strings.Contains(r.Stderr, "v5.channel.k8s.io") {
			t.Fatalf("exec -v=7: %s", r)
		}
	})
}
