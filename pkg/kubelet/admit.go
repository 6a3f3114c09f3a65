package kubelet

import (
	"context"
	"fmt"
	"sync"

	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/apis/core/helper"
)

// Admission of pods, as the kubelet of Kubernetes does before it runs a
// pod: a pod bound to the node without the scheduler (spec.nodeName set
// by its author, or a race) can ask for a host port another pod of the
// node holds; it is rejected, phase Failed, and never runs. Its owner (a
// StatefulSet, a DaemonSet) replaces it.
const (
	// reasonNodePorts and messageNodePorts are the status reason and
	// message of a pod rejected for its host ports, as Kubernetes words
	// them (the scheduler's NodePorts filter).
	reasonNodePorts  = "NodePorts"
	messageNodePorts = "Pod was rejected: Predicate NodePorts failed: node(s) didn't have free ports for the requested pod ports"
)

// admission is the state of a pod's admission in its worker.
type admission int

const (
	admissionPending admission = iota
	admissionAdmitted
	admissionRejected
)

// admitted holds the host ports of the pods admitted on the node that
// have not finished; safe for concurrent use by the pod workers.
type admitted struct {
	mu    sync.Mutex
	ports map[string][]helper.HostPort // by pod UID
}

func newAdmitted() *admitted { return &admitted{ports: map[string][]helper.HostPort{}} }

// admit admits pod unless one of its host ports conflicts with those of
// the admitted pods; force admits it whatever it asks (a pod already
// running, from before a restart of the kubelet). It returns the
// conflicting port when it refuses.
func (a *admitted) admit(pod *corev1.Pod, force bool) (helper.HostPort, bool) {
	uid := string(pod.UID)
	want := helper.PodHostPorts(pod)
	a.mu.Lock()
	defer a.mu.Unlock()
	if !force {
		for other, used := range a.ports {
			if other == uid {
				continue
			}
			if p, conflict := helper.HostPortConflict(want, used); conflict {
				return p, false
			}
		}
	}
	a.ports[uid] = want
	return helper.HostPort{}, true
}

// release forgets the host ports of a pod that finished or went away.
func (a *admitted) release(uid string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.ports, uid)
}

// admitPod decides, on a pod's first sync, whether it may run here; a
// rejected pod gets its Failed status and an event, and is not run.
func (kl *Kubelet) admitPod(ctx context.Context, st *podState, pod *corev1.Pod) (bool, error) {
	switch st.admission {
	case admissionAdmitted:
		return true, nil
	case admissionRejected:
		return false, nil
	}
	// A pod that already runs (an adopted sandbox, or Running in the API
	// before a restart of the kubelet) was admitted before.
	force := st.sandboxID != "" || pod.Status.Phase == corev1.PodRunning
	if why := forbiddenSysctl(pod, kl.cfg.AllowedUnsafeSysctls); why != "" && !force {
		st.admission = admissionRejected
		msg := "Pod was rejected: " + why
		kl.events.pod(ctx, pod, corev1.EventTypeWarning, reasonSysctlForbidden, "%s", msg)
		status := corev1.PodStatus{Phase: corev1.PodFailed, Reason: reasonSysctlForbidden, Message: msg, QOSClass: qosClass(pod)}
		if err := kl.setStatus(ctx, pod, status); err != nil {
			return false, fmt.Errorf("reject pod (%s): %w", why, err)
		}
		return false, nil
	}
	if p, ok := kl.admitted.admit(pod, force); !ok {
		st.admission = admissionRejected
		kl.events.pod(ctx, pod, corev1.EventTypeWarning, reasonNodePorts, "%s", messageNodePorts)
		status := corev1.PodStatus{Phase: corev1.PodFailed, Reason: reasonNodePorts, Message: messageNodePorts, QOSClass: qosClass(pod)}
		if err := kl.setStatus(ctx, pod, status); err != nil {
			return false, fmt.Errorf("reject pod (host port %s/%d taken): %w", p.Protocol, p.Port, err)
		}
		return false, nil
	}
	st.admission = admissionAdmitted
	return true, nil
}
