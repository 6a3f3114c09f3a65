package kubelet

import (
	"os"
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
)

func sysctls(s ...corev1.Sysctl) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Spec.SecurityContext = &corev1.PodSecurityContext{Sysctls: s} }
}

// TestSysctlAdmission: a pod asking for an unsafe sysctl the kubelet does
// not allow is rejected, phase Failed with reason SysctlForbidden and a
// Warning event, as Kubernetes' kubelet does ("Sysctls should not launch
// unsafe, but not explicitly enabled sysctls on the node"); a safe one
// runs.
func TestSysctlAdmission(t *testing.T) {
	e := newEnv(t, "fake")
	e.pod("unsafe", "exec sleep 1000", sysctls(corev1.Sysctl{Name: "kernel.msgmax", Value: "10000000000"}))
	p := e.waitFor("unsafe", 30*time.Second, "rejected", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodFailed })
	if p.Status.Reason != "SysctlForbidden" || !strings.Contains(p.Status.Message, `forbidden sysctl: "kernel.msgmax" not allowlisted`) {
		t.Errorf("rejected pod: reason %q message %q", p.Status.Reason, p.Status.Message)
	}
	if len(p.Status.ContainerStatuses) != 0 {
		t.Errorf("a rejected pod ran containers: %s", describe(p))
	}
	e.waitEvent(e.ns, "Pod", "unsafe", eventQuery{reason: "SysctlForbidden", eventType: "Warning"}, 30*time.Second)

	e.pod("safe", "exec sleep 1000", sysctls(corev1.Sysctl{Name: "kernel/shm_rmid_forced", Value: "1"}))
	e.waitFor("safe", 30*time.Second, "Running", func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
}

// TestContainerSecurityThroughKubelet: under the process runtime (as
// root) the security context the API holds reaches the container: the
// default capabilities (no CAP_NET_ADMIN, bit 12), added ones, every one
// when privileged, no_new_privs for allowPrivilegeEscalation false, a
// read-only root, and the pod's sysctls.
func TestContainerSecurityThroughKubelet(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("capabilities, mounts and namespaces need root")
	}
	hostShm, _ := os.ReadFile("/proc/sys/kernel/shm_rmid_forced")
	e := newEnv(t, "process")
	tr, f := true, false
	// capEff prints the effective capabilities as a number.
	const capEff = `$(( 0x$(sed -n 's/^CapEff:[[:space:]]*//p' /proc/self/status) ))`
	netAdmin := `[ $(( ` + capEff + ` >> 12 & 1 )) = `
	pods := map[string]struct {
		script string
		mutate func(*corev1.Pod)
	}{
		"default": {netAdmin + `0 ] && [ $(( ` + capEff + ` )) = $(( 0xa80425fb )) ]`, nil},
		"add": {netAdmin + `1 ]`, func(p *corev1.Pod) {
			p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN"}}}
		}},
		"privileged": {netAdmin + `1 ]`, func(p *corev1.Pod) { p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: &tr} }},
		"nnp": {`grep -q '^NoNewPrivs:[[:space:]]*1' /proc/self/status`, func(p *corev1.Pod) {
			p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{AllowPrivilegeEscalation: &f}
		}},
		"readonly": {`! touch ./f 2>/dev/null`, func(p *corev1.Pod) {
			p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{ReadOnlyRootFilesystem: &tr}
		}},
		"sysctl": {`[ "$(cat /proc/sys/kernel/shm_rmid_forced)" = 1 ]`, func(p *corev1.Pod) {
			p.Spec.SecurityContext = &corev1.PodSecurityContext{Sysctls: []corev1.Sysctl{{Name: "kernel.shm_rmid_forced", Value: "1"}}}
		}},
	}
	for name, pod := range pods {
		e.pod(name, pod.script+` || { grep -E '^(Cap|NoNew)' /proc/self/status; exit 1; }`, func(p *corev1.Pod) {
			p.Spec.RestartPolicy = corev1.RestartPolicyNever
			if pod.mutate != nil {
				pod.mutate(p)
			}
		})
	}
	for name := range pods {
		p := e.waitFor(name, 60*time.Second, "finished", func(p *corev1.Pod) bool {
			return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
		})
		if p.Status.Phase != corev1.PodSucceeded {
			t.Errorf("pod %s: %s", name, describe(p))
		}
	}
	if b, _ := os.ReadFile("/proc/sys/kernel/shm_rmid_forced"); string(b) != string(hostShm) {
		t.Errorf("the host's kernel.shm_rmid_forced became %q", b)
	}
}
