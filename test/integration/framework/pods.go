package framework

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/typed"
)

// WaitForPod polls pod ns/name until cond holds (the test observes; what
// it tests never polls) and returns it; past timeout it fails tb with the
// pod's last status.
func WaitForPod(ctx context.Context, tb testing.TB, cs *typed.Clientset, ns, name string, timeout time.Duration, what string, cond func(*corev1.Pod) bool) *corev1.Pod {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	var last *corev1.Pod
	for time.Now().Before(deadline) {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			last = p
			if cond(p) {
				return p
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	if last == nil {
		tb.Fatalf("pod %s: not %s after %s; never read", name, what, timeout)
	}
	tb.Fatalf("pod %s: not %s after %s; last status: %s", name, what, timeout, DescribePod(last))
	return nil
}

// WaitForPodGone polls until pod ns/name is deleted, failing tb past
// timeout.
func WaitForPodGone(ctx context.Context, tb testing.TB, cs *typed.Clientset, ns, name string, timeout time.Duration) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if _, err := cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{}); apierrors.IsNotFound(err) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	tb.Fatalf("pod %s still exists after %s", name, timeout)
}

// DescribePod is a one-line summary of a pod's status for failure
// messages: phase, conditions, and each container's state.
func DescribePod(p *corev1.Pod) string {
	s := fmt.Sprintf("phase=%s", p.Status.Phase)
	for _, c := range p.Status.Conditions {
		s += fmt.Sprintf(" %s=%s", c.Type, c.Status)
	}
	for _, cs := range p.Status.ContainerStatuses {
		s += fmt.Sprintf(" [%s ready=%v restarts=%d", cs.Name, cs.Ready, cs.RestartCount)
		switch {
		case cs.State.Running != nil:
			s += " running"
		case cs.State.Waiting != nil:
			s += fmt.Sprintf(" waiting %s: %s", cs.State.Waiting.Reason, cs.State.Waiting.Message)
		case cs.State.Terminated != nil:
			s += fmt.Sprintf(" terminated %d %s", cs.State.Terminated.ExitCode, cs.State.Terminated.Reason)
		}
		s += "]"
	}
	return s
}
