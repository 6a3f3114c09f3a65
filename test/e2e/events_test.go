package e2e

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
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
