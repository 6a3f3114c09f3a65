package kubelet

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"

	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// Lifecycle hooks: postStart runs right after a container starts, and a
// container whose hook fails is killed (its restart policy then decides);
// preStop runs before the stop signal and uses up part of the grace period.
const (
	reasonPostStartHookError = "PostStartHookError"
	// minStopGrace is what a container still gets between SIGTERM and
	// SIGKILL after its preStop hook used the grace period up.
	minStopGrace = 2 * time.Second
)

// hookRunner runs lifecycle hooks: exec in the container through the
// runtime, httpGet from the kubelet against the pod's IP, sleep here.
type hookRunner struct {
	runtime kruntime.Runtime
	http    *runtimeProber
}

func newHookRunner(rt kruntime.Runtime) *hookRunner {
	return &hookRunner{runtime: rt, http: newRuntimeProber(rt)}
}

// run runs hook h of container c until it finishes or ctx ends; an error
// says why the hook failed, with its output.
func (r *hookRunner) run(ctx context.Context, h *corev1.LifecycleHandler, c *corev1.Container, containerID, podIP string) error {
	switch {
	case h.Exec != nil:
		var timeout time.Duration
		if d, ok := ctx.Deadline(); ok {
			timeout = max(time.Until(d), time.Millisecond)
		}
		res, err := r.runtime.ExecSync(ctx, containerID, h.Exec.Command, timeout)
		if err != nil {
			return fmt.Errorf("exec %q: %w", h.Exec.Command, err)
		}
		if res.ExitCode != 0 {
			return fmt.Errorf("command %q exited with %d: %s", h.Exec.Command, res.ExitCode,
				truncate(string(append(res.Stdout, res.Stderr...)), maxProbeOutput))
		}
		return nil
	case h.HTTPGet != nil:
		ok, out, err := r.http.httpGet(ctx, h.HTTPGet, probeTarget{containerID: containerID, podIP: podIP, ports: c.Ports})
		if err != nil {
			return fmt.Errorf("http get: %w", err)
		}
		if !ok {
			return fmt.Errorf("http get %s: %s", h.HTTPGet.Path, out)
		}
		return nil
	case h.Sleep != nil:
		t := time.NewTimer(time.Duration(h.Sleep.Seconds) * time.Second)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
		}
		return nil
	case h.TCPSocket != nil:
		// Accepted for compatibility; it does nothing.
		return nil
	}
	return errors.New("lifecycle hook has no action")
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// runPostStart runs the postStart hook of a container that just started,
// bounded by the pod's grace period. A failed hook is reported as an
// Event and the container is killed; the failure is returned.
func (kl *Kubelet) runPostStart(ctx context.Context, pod *corev1.Pod, c *corev1.Container, id, podIP string) error {
	if c.Lifecycle == nil || c.Lifecycle.PostStart == nil {
		return nil
	}
	hctx, cancel := context.WithTimeout(ctx, max(gracePeriod(pod), minStopGrace))
	err := kl.hooks.run(hctx, c.Lifecycle.PostStart, c, id, podIP)
	cancel()
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	// The hook's output stays out of the Event, as in Kubernetes: it may
	// hold secrets. The container's waiting message has it.
	kl.events.container(ctx, pod, c.Name, corev1.EventTypeWarning, eventFailedPostStartHook, "PostStartHook failed")
	klog.FromContext(ctx).V(2).Info("Killing container whose postStart hook failed", "pod", klog.KObj(pod), "container", c.Name, "err", err)
	if kerr := kl.stopContainer(ctx, pod, c.Name, id, podIP, true, gracePeriod(pod), eventFailedPostStartHook); kerr != nil {
		return errors.Join(err, kerr)
	}
	return err
}

// stopContainer stops a container within grace and reports it (Killing,
// with message, "Stopping container <name>" when empty): its preStop hook
// first when preStop, then SIGTERM and, after what is left of the grace
// period, SIGKILL. An httpGet preStop hook goes to podIP (the node's
// when ""), as a postStart one does.
func (kl *Kubelet) stopContainer(ctx context.Context, pod *corev1.Pod, name, id, podIP string, preStop bool, grace time.Duration, message string) error {
	if message == "" {
		message = "Stopping container " + name
	}
	kl.events.container(ctx, pod, name, corev1.EventTypeNormal, eventKilling, "%s", message)
	spec := containerSpec(pod, name)
	if preStop && spec != nil && spec.Lifecycle != nil && spec.Lifecycle.PreStop != nil && grace > 0 {
		start := time.Now()
		hctx, cancel := context.WithTimeout(ctx, grace)
		err := kl.hooks.run(hctx, spec.Lifecycle.PreStop, spec, id, cmp.Or(podIP, kl.cfg.NodeIP))
		cancel()
		if err != nil && ctx.Err() == nil {
			klog.FromContext(ctx).V(2).Info("PreStop hook failed", "pod", klog.KObj(pod), "container", name, "err", err)
			kl.events.container(ctx, pod, name, corev1.EventTypeWarning, eventFailedPreStopHook, "PreStopHook failed")
		}
		grace = max(grace-time.Since(start), minStopGrace)
	}
	return kl.runtime.StopContainer(ctx, id, grace)
}

// containerSpec finds a pod's container (app or init) by name.
func containerSpec(pod *corev1.Pod, name string) *corev1.Container {
	for _, cs := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range cs {
			if cs[i].Name == name {
				return &cs[i]
			}
		}
	}
	return nil
}
