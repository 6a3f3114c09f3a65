package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/e2e/framework"
)

// podSpec makes pods in namespace ns whose container main runs a shell
// script from image; node binds them (empty: the scheduler places them).
type podSpec struct{ ns, node, image string }

// manifest is the pod name running script; more is YAML appended after
// the container's command: fields of the container (indented by four) or
// of the pod spec (by two).
func (p podSpec) manifest(name, script, more string) string {
	node := ""
	if p.node != "" {
		node = "  nodeName: " + p.node + "\n"
	}
	return `apiVersion: v1
kind: Pod
metadata:
  name: ` + name + `
  namespace: ` + p.ns + `
spec:
` + node + `  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: ` + p.image + `
    command: ["sh", "-c", ` + quoteYAML(script) + `]
` + more
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
	checkPodLifecycle(t, k, podSpec{ns: ns, image: "busybox"})

	t.Run("exec -v shows WebSocket", func(t *testing.T) {
		r := k.Run(t, "exec", "counter", "-n", ns, "-v=7", "--", "true")
		if r.ExitCode != 0 || !strings.Contains(r.Stderr, "v5.channel.k8s.io") {
			t.Fatalf("exec -v=7: %s", r)
		}
	})
}

// checkPodLifecycle runs pods of spec through a kubelet with the stock
// kubectl: logs (also -f and --previous), exec over WebSocket and SPDY
// (with stdin, exit codes and a terminal), a liveness probe's restarts,
// CrashLoopBackOff, and the end of a pod that ignores SIGTERM.
func checkPodLifecycle(t *testing.T, k *framework.Kubectl, spec podSpec) {
	ns := spec.ns
	k.MustRunStdin(t, spec.manifest("counter", `i=0; while true; do echo line $i; i=$((i+1)); sleep 0.2; done`, ""), "apply", "-f", "-")
	k.MustRunStdin(t, spec.manifest("crasher", `echo "run $(date +%s%N)"; sleep 1; exit 1`, ""), "apply", "-f", "-")
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

	// kubectl tries a WebSocket first; without one (the variable, or an
	// upgrade that fails) it speaks SPDY, which it POSTs.
	spdy := k.With("KUBECTL_REMOTE_COMMAND_WEBSOCKETS=false")
	for _, tc := range []struct {
		transport string
		k         *framework.Kubectl
	}{{"WebSocket", k}, {"SPDY", spdy}} {
		t.Run("exec -i over "+tc.transport, func(t *testing.T) {
			r := tc.k.RunStdin(t, "hello\nworld\n", "exec", "-i", "counter", "-n", ns, "-v=7", "--", "sh", "-c", "cat; echo done; exit 4")
			if r.ExitCode != 4 || r.Stdout != "hello\nworld\ndone\n" {
				t.Fatalf("exec -i: %s", r)
			}
			if post := strings.Contains(r.Stderr, "POST https://"); post != (tc.transport == "SPDY") {
				t.Errorf("exec -i over %s POSTed: %v\n%s", tc.transport, post, r.Stderr)
			}
		})

		t.Run("exec -it over "+tc.transport, func(t *testing.T) {
			// script gives kubectl a terminal of 101x31 as its stdin.
			term := *tc.k
			term.Path, term.Args = "script", []string{"-qfec"}
			cmd := framework.KubectlPath + " exec -it counter -n " + ns + ` -- sh -c 'sleep 0.5; stty size; test -t 0 && echo tty; exec sh'`
			r := term.RunStdin(t, "echo typed-$((6*7))\nexit 5\n", "stty cols 101 rows 31; "+cmd, "/dev/null")
			out := strings.ReplaceAll(r.Stdout, "\r", "")
			if r.ExitCode != 5 || !strings.Contains(out, "31 101\ntty\n") || !strings.Contains(out, "typed-42\n") {
				t.Fatalf("exec -it: %s", r)
			}
		})
	}

	t.Run("liveness probe restarts", func(t *testing.T) {
		k.MustRunStdin(t, spec.manifest("unhealthy", "exec sleep 1000", `    livenessProbe:
      exec: {command: ["false"]}
      periodSeconds: 1
      failureThreshold: 2
`), "apply", "-f", "-")
		eventually(t, 60*time.Second, func() string {
			r := k.Run(t, "get", "pod", "unhealthy", "-n", ns, "-o", "jsonpath={.status.containerStatuses[0].restartCount} {.status.containerStatuses[0].lastState.terminated.finishedAt}")
			if n, finished, _ := strings.Cut(r.Stdout, " "); n == "" || n == "0" || finished == "" {
				return "not restarted by its liveness probe: " + r.String()
			}
			return ""
		})
	})

	t.Run("CrashLoopBackOff", func(t *testing.T) {
		eventually(t, 60*time.Second, func() string {
			r := k.Run(t, "get", "pod", "crasher", "-n", ns, "-o", "jsonpath={.status.containerStatuses[0].state.waiting.reason} {.status.containerStatuses[0].lastState.terminated.exitCode}")
			if r.Stdout != "CrashLoopBackOff 1" {
				return "crasher: " + r.String()
			}
			return ""
		})
		if out := k.MustRun(t, "get", "pod", "crasher", "-n", ns); !strings.Contains(out, "CrashLoopBackOff") {
			t.Errorf("kubectl get shows no CrashLoopBackOff:\n%s", out)
		}
	})

	t.Run("grace period ends a pod ignoring SIGTERM", func(t *testing.T) {
		k.MustRunStdin(t, spec.manifest("stubborn", `trap "" TERM; while :; do sleep 0.2; done`, ""), "apply", "-f", "-")
		k.MustRun(t, "wait", "--for=condition=Ready", "pod/stubborn", "-n", ns, "--timeout=60s")
		start := time.Now()
		k.MustRun(t, "delete", "pod", "stubborn", "-n", ns, "--grace-period=3", "--wait", "--timeout=30s")
		took := time.Since(start)
		t.Logf("pod ignoring SIGTERM gone %s after its deletion with a 3s grace period", took.Round(10*time.Millisecond))
		if took < 2500*time.Millisecond || took > 8*time.Second {
			t.Errorf("pod gone after %s, want about 3s", took)
		}
	})
}
