package kubelet

import (
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
