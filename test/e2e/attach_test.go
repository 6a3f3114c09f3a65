package e2e

import (
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/test/e2e/framework"
)

// TestAttachAndRunInteractive attaches to a pod that prints every second
// and runs `run -i --rm` with a here-string as stdin, with the stock
// kubectl and the bundled CLI: the shell reads the input, its output comes
// back, and the pod is deleted afterwards.
func TestAttachAndRunInteractive(t *testing.T) {
	node, _ := startKubelet(t, server)
	ns := server.CreateNamespace(t, "attach")
	bin, err := framework.Binary()
	if err != nil {
		t.Fatal(err)
	}
	onNode := `--overrides={"apiVersion":"v1","spec":{"nodeName":"` + node + `"}}`
	k := server.Kubectl(t)
	k.MustRun(t, "run", "ticker", "-n", ns, "--image=busybox", onNode, "--",
		"sh", "-c", "i=0; while true; do i=$((i+1)); echo tick $i; sleep 1; done")
	k.MustRun(t, "wait", "--for=condition=Ready", "pod/ticker", "-n", ns, "--timeout=60s")

	for name, cli := range map[string]*framework.Kubectl{"stock": k, "bundled": server.CLI(bin, "kubectl")} {
		t.Run(name, func(t *testing.T) {
			// Attach sees the ticks printed after it attached, not the
			// log before.
			before := strings.Count(k.MustRun(t, "logs", "ticker", "-n", ns), "\n")
			bg := cli.Start(t, "attach", "ticker", "-n", ns)
			eventually(t, 30*time.Second, func() string {
				if strings.Count(bg.Stdout(), "tick ") < 2 {
					return "attach output so far: " + bg.Stdout() + " / " + bg.Stderr()
				}
				return ""
			})
			bg.Stop()
			if strings.Contains(bg.Stdout(), "tick 1\n") && before > 1 {
				t.Errorf("attach replayed the log from the start: %q", bg.Stdout())
			}

			// run -i --rm: stdin from a here-string, a non-zero exit.
			pod := "interactive-" + name
			r := cli.RunStdin(t, "echo hello from the shell\necho to stderr >&2\nx=4; echo got $((x*2))\n",
				"run", "-i", "--rm", "--image=busybox", "--restart=Never", pod, "-n", ns, onNode, "--", "sh")
			if r.ExitCode != 0 {
				t.Fatalf("run -i --rm: %s", r)
			}
			for _, want := range []string{"hello from the shell", "got 8"} {
				if !strings.Contains(r.Stdout, want) {
					t.Errorf("run -i --rm stdout lacks %q: %s", want, r)
				}
			}
			if !strings.Contains(r.Stderr, "to stderr") {
				t.Errorf("run -i --rm stderr lacks the shell's: %s", r)
			}
			if !strings.Contains(r.Stdout, `pod "`+pod+`" deleted`) {
				t.Errorf("run --rm did not say the pod was deleted: %s", r)
			}
			eventually(t, 30*time.Second, func() string {
				if got := k.Run(t, "get", "pod", pod, "-n", ns, "--ignore-not-found", "-o", "name"); got.Stdout != "" {
					return "pod still there: " + got.String()
				}
				return ""
			})

			// -it with input that is not a terminal: the container gets a
			// terminal, the session works as with -i.
			pod = "tty-" + name
			r = cli.RunStdin(t, "echo from a terminal $(tty >/dev/null && echo yes)\nexit 0\n",
				"run", "-it", "--rm", "--image=busybox", "--restart=Never", pod, "-n", ns, onNode, "--", "sh")
			if r.ExitCode != 0 {
				t.Fatalf("run -it --rm: %s", r)
			}
			if !strings.Contains(r.Stdout, "from a terminal yes") {
				t.Errorf("run -it: the container had no terminal: %s", r)
			}

			// --leave-stdin-open: the end of the input ends the session
			// (kubectl returns) and leaves the container reading its
			// still open stdin, as the conformance suite's inline attach
			// spec expects.
			pod = "open-" + name
			r = cli.RunStdin(t, "abcd1234\n", "run", pod, "-n", ns, "--image=busybox", "--restart=OnFailure", onNode,
				"--attach=true", "--leave-stdin-open=true", "--stdin", "--", "sh", "-c", "cat && echo 'stdin closed'")
			if r.ExitCode != 0 {
				t.Fatalf("run --leave-stdin-open: %s", r)
			}
			eventually(t, 30*time.Second, func() string {
				logs := k.Run(t, "logs", pod, "-n", ns)
				if !strings.Contains(logs.Stdout, "abcd1234") || strings.Contains(logs.Stdout, "stdin closed") {
					return "logs of a container whose stdin stays open: " + logs.String()
				}
				return ""
			})
			if got := k.MustRun(t, "get", "pod", pod, "-n", ns, "-o", "jsonpath={.status.phase}"); got != "Running" {
				t.Errorf("the container with open stdin is %s", got)
			}

			// A failing command: run -i reports the exit code.
			pod = "failing-" + name
			r = cli.RunStdin(t, "exit 3\n", "run", "-i", "--rm", "--image=busybox", "--restart=Never", pod, "-n", ns, onNode, "--", "sh")
			if r.ExitCode != 3 {
				t.Errorf("run -i of a shell exiting 3: %s", r)
			}
		})
	}
}
