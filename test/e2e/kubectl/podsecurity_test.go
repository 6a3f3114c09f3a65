package kubectl

import (
	"strings"
	"testing"
	"time"
)

// TestPodSecurity drives PodSecurity admission with the stock kubectl:
// enforce refuses a pod with Kubernetes' message, warn prints warnings
// (for a Deployment too), a bad label value is refused, and raising the
// enforce level warns about the pods already there.
func TestPodSecurity(t *testing.T) {
	t.Parallel()
	ns := "psa-e2e"
	suite.mustRun(t, "", "create", "namespace", ns)
	t.Cleanup(func() { suite.run(t, stock, "", "delete", "namespace", ns, "--wait=false") })

	// warn=baseline: a privileged pod is created, with a warning.
	suite.mustRun(t, "", "label", "namespace", ns, "pod-security.kubernetes.io/warn=baseline")
	waitFor(t, "the warn label in effect", func() (bool, string) {
		r := suite.run(t, stock, "", "run", "probe", "-n", ns, "--image=busybox", "--privileged", "--dry-run=server")
		return strings.Contains(r.Stderr, "Warning:"), r.String()
	})
	r := suite.run(t, stock, "", "run", "priv", "-n", ns, "--image=busybox", "--privileged")
	if r.ExitCode != 0 || strings.TrimSpace(r.Stdout) != "pod/priv created" ||
		strings.TrimSpace(r.Stderr) != `Warning: would violate PodSecurity "baseline:latest": privileged (container "priv" must not set securityContext.privileged=true)` {
		t.Errorf("run a privileged pod under warn=baseline:\n%s", r)
	}

	// A bad level is refused.
	r = suite.run(t, stock, "", "label", "namespace", ns, "pod-security.kubernetes.io/enforce=strict")
	if r.ExitCode == 0 || strings.TrimSpace(r.Stderr) != `The Namespace "`+ns+`" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted` {
		t.Errorf("label with a bad level:\n%s", r)
	}

	// enforce=restricted warns about the privileged pod already there.
	r = suite.run(t, stock, "", "label", "namespace", ns, "pod-security.kubernetes.io/enforce=restricted")
	wantStderr := `Warning: existing pods in namespace "` + ns + `" violate the new PodSecurity enforce level "restricted:latest"` + "\n" +
		`Warning: priv: allowPrivilegeEscalation != false, unrestricted capabilities, privileged, runAsNonRoot != true, seccompProfile`
	if r.ExitCode != 0 || strings.TrimSpace(r.Stderr) != wantStderr {
		t.Errorf("label enforce=restricted:\n%s\nwant stderr:\n%s", r, wantStderr)
	}

	// enforce refuses a bare pod.
	waitFor(t, "the enforce label in effect", func() (bool, string) {
		r := suite.run(t, stock, "", "run", "bare", "-n", ns, "--image=busybox", "--dry-run=server")
		return r.ExitCode != 0, r.String()
	})
	r = suite.run(t, stock, "", "run", "bare", "-n", ns, "--image=busybox")
	want := `Error from server (Forbidden): pods "bare" is forbidden: violates PodSecurity "restricted:latest": ` +
		`allowPrivilegeEscalation != false (container "bare" must set securityContext.allowPrivilegeEscalation=false), ` +
		`unrestricted capabilities (container "bare" must set securityContext.capabilities.drop=["ALL"]), ` +
		`runAsNonRoot != true (pod or container "bare" must set securityContext.runAsNonRoot=true), ` +
		`seccompProfile (pod or container "bare" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`
	if r.ExitCode == 0 || strings.TrimSpace(r.Stderr) != want {
		t.Errorf("run a bare pod under enforce=restricted:\n%s\nwant stderr:\n%s", r, want)
	}

	// A Deployment is stored (enforce does not apply to templates), with
	// the warn level's warning.
	suite.mustRun(t, "", "label", "namespace", ns, "pod-security.kubernetes.io/warn=restricted", "--overwrite")
	waitFor(t, "warn=restricted in effect", func() (bool, string) {
		r := suite.run(t, stock, "", "create", "deployment", "probe", "-n", ns, "--image=nginx", "--dry-run=server")
		return strings.Contains(r.Stderr, `"restricted:latest"`), r.String()
	})
	r = suite.run(t, stock, "", "create", "deployment", "web", "-n", ns, "--image=nginx")
	want = `Warning: would violate PodSecurity "restricted:latest": ` +
		`allowPrivilegeEscalation != false (container "nginx" must set securityContext.allowPrivilegeEscalation=false), ` +
		`unrestricted capabilities (container "nginx" must set securityContext.capabilities.drop=["ALL"]), ` +
		`runAsNonRoot != true (pod or container "nginx" must set securityContext.runAsNonRoot=true), ` +
		`seccompProfile (pod or container "nginx" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`
	if r.ExitCode != 0 || strings.TrimSpace(r.Stdout) != "deployment.apps/web created" || strings.TrimSpace(r.Stderr) != want {
		t.Errorf("create a Deployment:\n%s\nwant stderr:\n%s", r, want)
	}
}

// waitFor reruns f until it reports true; f describes its run for the
// failure message.
func waitFor(t *testing.T, what string, f func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok, last := f()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s; last run:\n%s", what, last)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
