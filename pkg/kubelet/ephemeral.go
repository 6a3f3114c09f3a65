package kubelet

import (
	"context"

	corev1 "kubecore.io/api/core/v1"
)

// Ephemeral containers (kubectl debug) are added to a running pod through
// pods/ephemeralcontainers. The kubelet starts each once, after the pod's
// init containers are done, and never restarts it; they have no probes,
// ports or lifecycle hooks, and do not count for the pod's phase or
// readiness. A targetContainerName asks to share the target's process
// namespace: the process runtime runs every container in the node's PID
// namespace, so the target's processes are always visible; the CRI runtime
// gets the same (the pod's namespaces are the node's here).

// ephemeralAsContainer is an ephemeral container as the container the
// kubelet runs.
func ephemeralAsContainer(ec *corev1.EphemeralContainer) corev1.Container {
	c := ec.EphemeralContainerCommon
	return corev1.Container{
		Name: c.Name, Image: c.Image, Command: c.Command, Args: c.Args, WorkingDir: c.WorkingDir,
		EnvFrom: c.EnvFrom, Env: c.Env, VolumeMounts: c.VolumeMounts, VolumeDevices: c.VolumeDevices,
		TerminationMessagePath: c.TerminationMessagePath, TerminationMessagePolicy: c.TerminationMessagePolicy,
		ImagePullPolicy: c.ImagePullPolicy, SecurityContext: c.SecurityContext,
		Stdin: c.Stdin, StdinOnce: c.StdinOnce, TTY: c.TTY,
	}
}

// syncEphemeralContainers starts the ephemeral containers that never ran.
func (s *podSync) syncEphemeralContainers(ctx context.Context) {
	for i := range s.pod.Spec.EphemeralContainers {
		c := ephemeralAsContainer(&s.pod.Spec.EphemeralContainers[i])
		if s.recs[c.Name].current == nil {
			s.startContainer(ctx, &c, 0)
		}
	}
}

// ephemeralContainerStatuses reports the ephemeral containers, never
// ready.
func (in *statusInput) ephemeralContainerStatuses(initDone bool) []corev1.ContainerStatus {
	var out []corev1.ContainerStatus
	for i := range in.pod.Spec.EphemeralContainers {
		c := ephemeralAsContainer(&in.pod.Spec.EphemeralContainers[i])
		cs := in.containerStatus(&c, initDone)
		cs.Ready = false
		out = append(out, cs)
	}
	return out
}
