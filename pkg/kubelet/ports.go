package kubelet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"syscall"

	corev1 "kubecore.io/api/core/v1"
)

// eventPortInUse is the Warning of a container port that is already taken
// on a node whose pods share its network.
const eventPortInUse = "PortInUse"

// warnPortConflicts: pods on the node's network (the process runtime, and
// every runtime until pods get networks of their own) share its ports. A
// TCP port of c that something on the node already listens on gets a
// Warning Event naming the pod that declares it, if one does, since the
// container will most likely fail with "address already in use" (a pod
// copied by `kubectl debug --copy-to --same-node`, a second replica). The
// container is started anyway: a declared port is informational, and the
// program may not listen on it.
func (s *podSync) warnPortConflicts(ctx context.Context, c *corev1.Container) {
	if s.ips.podIP == "" || s.ips.podIP != s.kl.cfg.NodeIP {
		return
	}
	for _, p := range c.Ports {
		if p.Protocol != "" && p.Protocol != corev1.ProtocolTCP {
			continue
		}
		port := strconv.Itoa(int(p.ContainerPort))
		l, err := net.Listen("tcp", net.JoinHostPort("", port))
		if err == nil {
			_ = l.Close()
			continue
		}
		if !errors.Is(err, syscall.EADDRINUSE) {
			continue
		}
		also := ""
		if other := s.kl.podDeclaringPort(s.pod, p.ContainerPort); other != nil {
			also = fmt.Sprintf(" (pod %s/%s declares it too)", other.Namespace, other.Name)
		}
		s.kl.events.container(ctx, s.pod, c.Name, corev1.EventTypeWarning, eventPortInUse,
			"Container port %s/TCP is already in use on node %s%s: pods of the %s runtime share the node's network, so the container may fail with \"address already in use\"",
			port, s.kl.cfg.NodeName, also, s.kl.runtime.Type())
	}
}

// podDeclaringPort is another pod of the node that is not finished and
// declares a TCP containerPort of port.
func (kl *Kubelet) podDeclaringPort(self *corev1.Pod, port int32) *corev1.Pod {
	for _, pod := range kl.Pods() {
		if pod.UID == self.UID || isTerminal(pod.Status.Phase) || pod.DeletionTimestamp != nil {
			continue
		}
		for _, c := range pod.Spec.Containers {
			for _, p := range c.Ports {
				if p.ContainerPort == port && (p.Protocol == "" || p.Protocol == corev1.ProtocolTCP) {
					return pod
				}
			}
		}
	}
	return nil
}
