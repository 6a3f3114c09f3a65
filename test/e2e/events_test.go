package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"kubecore.io/kubecore/test/e2e/framework"
)

// TestPodEventsWithKubectl is issue 17's kubelet Events as a user sees
// them with the stock kubectl on all-in-one: `kubectl events --for` and
// `kubectl describe pod` tell a pod's life, from Scheduled (the
// scheduler) through the kubelet's Pulled (the process runtime pulls
// nothing, so the image is "already present"), Created and Started, to
// Killing when it is deleted; `kubectl describe node` shows the kubelet's
// start.
func TestPodEventsWithKubectl(t *testing.T) {
	s := framework.StartAllInOne(t, filepath.Join(t.TempDir(), "data"))
	k := s.Kubectl(t)
	var node string
	eventually(t, 30*time.Second, func() string {
		r := k.Run(t, "get", "nodes", "-o", "jsonpath={.items[0].metadata.name}")
		if node = strings.TrimSpace(r.Stdout); r.ExitCode != 0 || node == "" {
			return "no node registered: " + r.String()
		}
		return ""
	})
	ns := s.CreateNamespace(t, "events")
	k.MustRunStdin(t, podSpec{ns, "", "busybox"}.manifest("life", "exec sleep 1000", ""), "apply", "-f", "-")
	k.MustRun(t, "wait", "--for=condition=Ready", "pod/life", "-n", ns, "--timeout=60s")

	lifecycle := []string{
		"Scheduled .*Successfully assigned",
		`Pulled .*Container image "busybox" already present on machine`,
		"Created .*Created container: main",
		"Started .*Started container main",
	}
	eventually(t, 30*time.Second, func() string {
		r := k.Run(t, "events", "-n", ns, "--for", "pod/life")
		return missingLines(r, "", lifecycle)
	})
	eventually(t, 30*time.Second, func() string {
		r := k.Run(t, "events", "-n", ns, "--for", "pod/life", "-o", "jsonpath={range .items[*]}{.reason}/{.source.component}/{.involvedObject.fieldPath} {end}")
		for _, want := range []string{"Pulled/kubelet/spec.containers{main}", "Created/kubelet/spec.containers{main}", "Started/kubelet/spec.containers{main}"} {
			if !strings.Contains(r.Stdout, want) {
				return fmt.Sprintf("no %s in %s", want, r)
			}
		}
		return ""
	})
	describe := k.MustRun(t, "describe", "pod", "life", "-n", ns)
	t.Logf("kubectl describe pod life:\n%s", describe)
	if msg := missingLines(framework.Result{Stdout: describe}, "^Events:", lifecycle); msg != "" {
		t.Errorf("kubectl describe pod: %s", msg)
	}
	// The From column names the kubelet.
	if msg := missingLines(framework.Result{Stdout: describe}, "^Events:", []string{"Started +.*kubelet.* Started container main"}); msg != "" {
		t.Errorf("kubectl describe pod: %s", msg)
	}

	k.MustRun(t, "delete", "pod", "life", "-n", ns, "--wait", "--timeout=60s")
	eventually(t, 30*time.Second, func() string {
		return missingLines(k.Run(t, "events", "-n", ns, "--for", "pod/life"), "", []string{"Killing .*Stopping container main"})
	})

	eventually(t, 30*time.Second, func() string {
		r := k.Run(t, "describe", "node", node)
		return missingLines(r, "^Events:", []string{"Starting .*Starting kubelet.", "NodeReady .*status is now: NodeReady"})
	})
}

// missingLines says which of the patterns (regular expressions matched
// line by line, in any order: Events of one second may be listed in any)
// kubectl's output lacks after the first line matching after; "" when
// none.
func missingLines(r framework.Result, after string, patterns []string) string {
	lines := strings.Split(r.Stdout, "\n")
	if after != "" {
		i := slices.IndexFunc(lines, func(l string) bool { return regexp.MustCompile(after).MatchString(l) })
		if i < 0 {
			return fmt.Sprintf("no line matching %q in:\n%s", after, r)
		}
		lines = lines[i+1:]
	}
	for _, p := range patterns {
		re := regexp.MustCompile(p)
		if !slices.ContainsFunc(lines, re.MatchString) {
			return fmt.Sprintf("no line matching %q in:\n%s", p, r)
		}
	}
	return ""
}

// TestHollowNodeEvents: hollow nodes only log their Events unless
// --record-events, with which a pod's life shows in `kubectl events`.
func TestHollowNodeEvents(t *testing.T) {
	bin, err := framework.Binary()
	if err != nil {
		t.Fatal(err)
	}
	k := server.Kubectl(t)
	ns := server.CreateNamespace(t, "hollow-events")
	for i, record := range []bool{false, true} {
		prefix := fmt.Sprintf("hollow-events-%d-%d-", os.Getpid(), i)
		args := []string{"hollow-nodes", "--kubeconfig", server.Kubeconfig, "--count", "1", "--name-prefix", prefix, "--root-dir", t.TempDir()}
		if record {
			args = append(args, "--record-events")
		}
		cmd := exec.Command(bin, args...)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		node, pod := prefix+"0", fmt.Sprintf("p%d", i)
		stop := func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
			k.Run(t, "delete", "node", node)
		}
		eventually(t, 30*time.Second, func() string {
			if r := k.Run(t, "get", "node", node); r.ExitCode != 0 {
				return "hollow node not registered: " + r.String()
			}
			return ""
		})
		k.MustRunStdin(t, podSpec{ns, node, "pause"}.manifest(pod, "exec sleep 1000", ""), "apply", "-f", "-")
		k.MustRun(t, "wait", "--for=condition=Ready", "pod/"+pod, "-n", ns, "--timeout=60s")
		if record {
			eventually(t, 30*time.Second, func() string {
				return missingLines(k.Run(t, "events", "-n", ns, "--for", "pod/"+pod), "", []string{"Started .*Started container main"})
			})
			r := k.Run(t, "get", "events", "-n", "default", "-o", "jsonpath={range .items[*]}{.involvedObject.name}/{.reason} {end}")
			if !strings.Contains(r.Stdout, node+"/Starting") {
				t.Errorf("no Starting Event of hollow node %s: %s", node, r)
			}
		} else {
			// The Ready pod's kubelet has synced it: any Event of it is written by now.
			time.Sleep(2 * time.Second)
			if r := k.MustRun(t, "events", "-n", ns, "--for", "pod/"+pod); strings.Contains(r, "kubelet") || strings.Contains(r, "Started") {
				t.Errorf("a hollow node without --record-events wrote Events:\n%s", r)
			}
		}
		k.MustRun(t, "delete", "pod", pod, "-n", ns, "--wait", "--timeout=60s")
		stop()
		if t.Failed() {
			t.Logf("hollow-nodes output:\n%s", out.String())
		}
	}
}
