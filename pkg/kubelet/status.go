package kubelet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/apis/core/helper"
	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
)

// probeResults answers what the probes say about a container.
type probeResults interface {
	// ready is the readiness probe's verdict (true without one).
	ready(podUID, name, containerID string) bool
	// started is the startup probe's verdict (true without one).
	started(podUID, name, containerID string) bool
}

// statusInput is everything a pod's status is computed from.
type statusInput struct {
	pod              *corev1.Pod
	now              time.Time
	runtimeType      string
	hostIP, podIP    string
	startTime        time.Time
	sandboxReady     bool
	records          map[string]containerRecords
	waiting          map[string]waitingInfo
	probes           probeResults
	deadlineExceeded bool
	// terminating: the pod is being deleted and its containers were
	// stopped; nothing will restart.
	terminating bool
	// written holds the conditions of the status last written for the
	// pod (nil before the first write). The kubelet's own conditions keep
	// their transition times from it rather than from pod, which may be a
	// version from before that write (the watch delivers it later than a
	// relist or resync wakes the pod), as Kubernetes' status manager
	// keeps them from its cache.
	written []corev1.PodCondition
	// allocated is the resources allocated to the containers (nil: none
	// reported); resizePending, why a resize waits.
	allocated     allocation
	resizePending *resizePending
}

// Condition reasons and messages, as Kubernetes writes them.
const (
	reasonContainersNotInitialized = "ContainersNotInitialized"
	reasonContainersNotReady       = "ContainersNotReady"
	reasonPodCompleted             = "PodCompleted"
	reasonReadinessGatesNotReady   = "ReadinessGatesNotReady"
)

// buildPodStatus computes the status the kubelet reports for a pod.
func buildPodStatus(in statusInput) corev1.PodStatus {
	pod := in.pod
	start := metav1.NewTime(in.startTime)
	st := corev1.PodStatus{
		ObservedGeneration: pod.Generation,
		HostIP:             in.hostIP, HostIPs: []corev1.HostIP{{IP: in.hostIP}},
		StartTime: &start,
		QOSClass:  qosClass(pod),
	}
	if in.podIP != "" && (in.sandboxReady || in.terminating) {
		st.PodIP, st.PodIPs = in.podIP, []corev1.PodIP{{IP: in.podIP}}
	}

	// Init containers.
	initDone, initFailed := true, false
	var incompleteInit []string
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		cs := in.containerStatus(c, initDone)
		st.InitContainerStatuses = append(st.InitContainerStatuses, cs)
		rec := in.records[c.Name].current
		switch {
		case isSidecar(c) && rec != nil && rec.State == kruntime.ContainerRunning:
		case !isSidecar(c) && rec != nil && rec.State == kruntime.ContainerExited && rec.ExitCode == 0:
			st.InitContainerStatuses[i].Ready = true
		default:
			if rec != nil && rec.State == kruntime.ContainerExited && !shouldRestart(pod.Spec.RestartPolicy, rec.ExitCode) {
				initFailed = true
			}
			// Every init container not done yet, as Kubernetes lists them.
			incompleteInit = append(incompleteInit, c.Name)
			initDone = false
		}
	}

	// App containers and the phase.
	var running, waiting, stopped, succeeded int
	var unready []string
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		cs := in.containerStatus(c, initDone)
		st.ContainerStatuses = append(st.ContainerStatuses, cs)
		if !cs.Ready {
			unready = append(unready, c.Name)
		}
		switch {
		case cs.State.Running != nil:
			running++
		case cs.State.Terminated != nil:
			stopped++
			if cs.State.Terminated.ExitCode == 0 {
				succeeded++
			}
		case cs.LastTerminationState.Terminated != nil:
			stopped++
		default:
			waiting++
		}
	}
	st.EphemeralContainerStatuses = in.ephemeralContainerStatuses(initDone)
	n := len(pod.Spec.Containers)
	switch {
	case in.deadlineExceeded:
		st.Phase, st.Reason, st.Message = corev1.PodFailed, reasonDeadlineExceeded, messageDeadlineExceeded
	case initFailed:
		st.Phase = corev1.PodFailed
	case in.terminating && stopped == n:
		if succeeded == n {
			st.Phase = corev1.PodSucceeded
		} else {
			st.Phase = corev1.PodFailed
		}
	case !initDone || waiting > 0:
		st.Phase = corev1.PodPending
	case running > 0:
		st.Phase = corev1.PodRunning
	case stopped == n && pod.Spec.RestartPolicy == corev1.RestartPolicyAlways:
		st.Phase = corev1.PodRunning
	case stopped == n && succeeded == n:
		st.Phase = corev1.PodSucceeded
	case stopped == n && pod.Spec.RestartPolicy == corev1.RestartPolicyNever:
		st.Phase = corev1.PodFailed
	case stopped == n:
		st.Phase = corev1.PodRunning
	default:
		st.Phase = corev1.PodPending
	}
	if in.terminating && st.Phase == corev1.PodPending {
		st.Phase = pod.Status.Phase
		if st.Phase == "" {
			st.Phase = corev1.PodPending
		}
	}

	// Conditions.
	now := metav1.NewTime(in.now)
	conds := conditionSet{old: pod.Status.Conditions, now: now}
	if in.written != nil {
		conds.old = in.written
	}
	if c := findCondition(pod.Status.Conditions, corev1.PodScheduled); c != nil {
		conds.keep(*c)
	} else {
		conds.set(corev1.PodScheduled, true, "", "")
	}
	conds.set(corev1.PodReadyToStartContainers, in.sandboxReady && !isTerminal(st.Phase), "", "")
	if initDone {
		conds.set(corev1.PodInitialized, true, "", "")
	} else {
		conds.set(corev1.PodInitialized, false, reasonContainersNotInitialized, fmt.Sprintf("containers with incomplete status: [%s]", strings.Join(incompleteInit, " ")))
	}
	switch {
	case isTerminal(st.Phase):
		conds.set(corev1.ContainersReady, false, reasonPodCompleted, "")
		conds.set(corev1.PodReady, false, reasonPodCompleted, "")
	case len(unready) > 0:
		msg := fmt.Sprintf("containers with unready status: [%s]", strings.Join(unready, " "))
		conds.set(corev1.ContainersReady, false, reasonContainersNotReady, msg)
		conds.set(corev1.PodReady, false, reasonContainersNotReady, msg)
	default:
		conds.set(corev1.ContainersReady, true, "", "")
		if gate := unreadyGate(pod); gate != "" {
			conds.set(corev1.PodReady, false, reasonReadinessGatesNotReady, fmt.Sprintf("corresponding condition of pod readiness gate %q does not exist.", gate))
		} else {
			conds.set(corev1.PodReady, true, "", "")
		}
	}
	if p := in.resizePending; p != nil {
		conds.set(corev1.PodResizePending, true, p.reason, p.message)
	}
	// Conditions others own (readiness gates, DisruptionTarget) stay.
	for _, c := range pod.Status.Conditions {
		if !slices.Contains(kubeletConditions, c.Type) {
			conds.keep(c)
		}
	}
	st.Conditions = conds.out
	return st
}

var kubeletConditions = []corev1.PodConditionType{corev1.PodScheduled, corev1.PodReadyToStartContainers,
	corev1.PodInitialized, corev1.ContainersReady, corev1.PodReady, corev1.PodResizePending, corev1.PodResizeInProgress}

// unreadyGate names the first readiness gate whose condition is not True.
func unreadyGate(pod *corev1.Pod) string {
	for _, g := range pod.Spec.ReadinessGates {
		c := findCondition(pod.Status.Conditions, g.ConditionType)
		if c == nil || c.Status != corev1.ConditionTrue {
			return string(g.ConditionType)
		}
	}
	return ""
}

func findCondition(conds []corev1.PodCondition, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// conditionSet builds conditions, keeping a condition's transition time
// while its status does not change.
type conditionSet struct {
	old []corev1.PodCondition
	now metav1.Time
	out []corev1.PodCondition
}

func (s *conditionSet) keep(c corev1.PodCondition) { s.out = append(s.out, c) }

func (s *conditionSet) set(t corev1.PodConditionType, ok bool, reason, message string) {
	status := corev1.ConditionFalse
	if ok {
		status = corev1.ConditionTrue
	}
	c := corev1.PodCondition{Type: t, Status: status, Reason: reason, Message: message, LastTransitionTime: s.now}
	if old := findCondition(s.old, t); old != nil && old.Status == status {
		c.LastTransitionTime = old.LastTransitionTime
	}
	s.out = append(s.out, c)
}

// containerStatus reports one container from its newest and previous
// runtime containers and the sync's waiting reason.
func (in *statusInput) containerStatus(c *corev1.Container, initDone bool) corev1.ContainerStatus {
	cs := corev1.ContainerStatus{Name: c.Name, Image: c.Image, Started: new(bool)}
	if r, ok := in.allocated[c.Name]; ok {
		cs.AllocatedResources = r.DeepCopy().Requests
		cs.Resources = r.DeepCopy()
	}
	rec := in.records[c.Name]
	cur := rec.current
	w, hasWaiting := in.waiting[c.Name]
	if cur == nil {
		reason := reasonContainerCreating
		if !initDone {
			reason = reasonPodInitializing
		}
		if hasWaiting {
			cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: w.reason, Message: w.message}
		} else {
			cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: reason}
		}
		return cs
	}
	cs.RestartCount = int32(cur.Attempt)
	cs.ContainerID = in.runtimeType + "://" + cur.ID
	if rec.previous != nil {
		cs.LastTerminationState.Terminated = terminatedState(rec.previous, in.runtimeType)
	}
	switch cur.State {
	case kruntime.ContainerRunning:
		cs.State.Running = &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(cur.StartedAt)}
		uid := string(in.pod.UID)
		started := in.probes == nil || in.probes.started(uid, c.Name, cur.ID)
		cs.Started = &started
		cs.Ready = started && (in.probes == nil || in.probes.ready(uid, c.Name, cur.ID))
	case kruntime.ContainerExited:
		term := terminatedState(cur, in.runtimeType)
		if hasWaiting && !in.terminating {
			cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: w.reason, Message: w.message}
			cs.LastTerminationState.Terminated = term
		} else {
			cs.State.Terminated = term
		}
	default:
		reason := reasonContainerCreating
		if hasWaiting {
			reason = w.reason
		}
		cs.State.Waiting = &corev1.ContainerStateWaiting{Reason: reason, Message: w.message}
	}
	return cs
}

func terminatedState(c *kruntime.ContainerStatus, runtimeType string) *corev1.ContainerStateTerminated {
	return &corev1.ContainerStateTerminated{
		ExitCode: c.ExitCode, Signal: c.Signal, Reason: c.Reason, Message: c.Message,
		StartedAt: metav1.NewTime(c.StartedAt), FinishedAt: metav1.NewTime(c.FinishedAt),
		ContainerID: runtimeType + "://" + c.ID,
	}
}

// qosClass is a pod's QoS class, as the apiserver computes it.
func qosClass(pod *corev1.Pod) corev1.PodQOSClass { return helper.PodQOSClass(&pod.Spec) }

// statusManager writes pod statuses through pods/status, only when they
// changed since the last write, as JSON merge patches that carry the pod's
// UID so that a pod re-created under the same name is never overwritten.
type statusManager struct {
	cs *typed.Clientset

	mu   sync.Mutex
	last map[string]writtenStatus // by pod UID
}

// writtenStatus is a status last written (or found already in the API).
type writtenStatus struct {
	json       []byte
	conditions []corev1.PodCondition
}

func newStatusManager(cs *typed.Clientset) *statusManager {
	return &statusManager{cs: cs, last: map[string]writtenStatus{}}
}

// conditions returns the conditions of the status last written for the
// pod, nil when none was.
func (m *statusManager) conditions(uid string) []corev1.PodCondition {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.last[uid].conditions
}

func (m *statusManager) set(ctx context.Context, pod *corev1.Pod, status corev1.PodStatus) error {
	uid := string(pod.UID)
	b, err := json.Marshal(status)
	if err != nil {
		return fmt.Errorf("encode pod status: %w", err)
	}
	m.mu.Lock()
	same := bytes.Equal(m.last[uid].json, b)
	m.mu.Unlock()
	if same {
		return nil
	}
	if cur, err := json.Marshal(pod.Status); err == nil && bytes.Equal(cur, b) {
		m.remember(uid, b, status.Conditions)
		return nil
	}
	var fields map[string]any
	if err := json.Unmarshal(b, &fields); err != nil {
		return fmt.Errorf("encode pod status: %w", err)
	}
	for _, k := range []string{"reason", "message", "podIP", "podIPs"} {
		if _, ok := fields[k]; !ok {
			fields[k] = nil
		}
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"uid": types.UID(uid)}, "status": fields})
	if err != nil {
		return fmt.Errorf("encode pod status patch: %w", err)
	}
	_, err = m.cs.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "status")
	switch {
	case apierrors.IsNotFound(err), apierrors.IsConflict(err):
		// The pod is gone, or another pod now has its name.
		return nil
	case apierrors.IsInvalid(err):
		// Another pod has the name (its UID differs), or the status broke
		// a rule, such as leaving a terminal phase: not worth a retry.
		klog.FromContext(ctx).V(2).Info("Pod status rejected", "pod", klog.KObj(pod), "podUID", uid, "err", err)
		return nil
	case err != nil:
		return fmt.Errorf("patch status of pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	m.remember(uid, b, status.Conditions)
	return nil
}

func (m *statusManager) remember(uid string, b []byte, conditions []corev1.PodCondition) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.last[uid] = writtenStatus{json: b, conditions: conditions}
}

func (m *statusManager) forget(uid string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.last, uid)
}
