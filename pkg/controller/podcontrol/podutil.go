package podcontrol

import (
	"time"

	corev1 "kubecore.io/api/core/v1"
)

// IsPodActive reports whether pod counts toward its controller's replicas:
// it has not finished and is not being deleted.
func IsPodActive(pod *corev1.Pod) bool {
	return pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed && pod.DeletionTimestamp == nil
}

// IsPodTerminating reports whether pod is being deleted and has not finished.
func IsPodTerminating(pod *corev1.Pod) bool {
	return pod.DeletionTimestamp != nil && pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed
}

// PodReadyCondition returns pod's Ready condition, or nil.
func PodReadyCondition(pod *corev1.Pod) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == corev1.PodReady {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

// IsPodReady reports whether pod's Ready condition is True.
func IsPodReady(pod *corev1.Pod) bool {
	c := PodReadyCondition(pod)
	return c != nil && c.Status == corev1.ConditionTrue
}

// IsPodAvailable reports whether pod has been ready for at least
// minReadySeconds at now.
func IsPodAvailable(pod *corev1.Pod, minReadySeconds int32, now time.Time) bool {
	c := PodReadyCondition(pod)
	if c == nil || c.Status != corev1.ConditionTrue {
		return false
	}
	if minReadySeconds <= 0 {
		return true
	}
	need := time.Duration(minReadySeconds) * time.Second
	return !c.LastTransitionTime.IsZero() && !c.LastTransitionTime.Add(need).After(now)
}

// AvailableAfter returns how long after an update from old to cur a pod
// owned by a controller with minReadySeconds becomes available, when the
// update made it ready: the owner should look again then (a second late,
// so that the pod is surely available). It is zero otherwise.
func AvailableAfter(minReadySeconds int32, old, cur *corev1.Pod) time.Duration {
	if minReadySeconds <= 0 || IsPodReady(old) || !IsPodReady(cur) {
		return 0
	}
	return time.Duration(minReadySeconds)*time.Second + time.Second
}
