package replicaset

import (
	"slices"
	"sort"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"

	"kubecore.io/kubecore/pkg/controller/podcontrol"
)

// The reasons of the ReplicaFailure condition.
const (
	failedCreateReason = "FailedCreate"
	failedDeleteReason = "FailedDelete"
)

// calculateStatus returns rs's status for the active pods it controls and
// the error of the last attempt to create or delete pods.
func calculateStatus(rs *appsv1.ReplicaSet, pods []*corev1.Pod, manageErr error, now time.Time) appsv1.ReplicaSetStatus {
	st := appsv1.ReplicaSetStatus{
		Replicas:           int32(len(pods)),
		ObservedGeneration: rs.Generation,
		Conditions:         slices.Clone(rs.Status.Conditions),
	}
	templateLabels := labels.Set(rs.Spec.Template.Labels).AsSelectorPreValidated()
	for _, p := range pods {
		if templateLabels.Matches(labels.Set(p.Labels)) {
			st.FullyLabeledReplicas++
		}
		if podcontrol.IsPodReady(p) {
			st.ReadyReplicas++
			if podcontrol.IsPodAvailable(p, rs.Spec.MinReadySeconds, now) {
				st.AvailableReplicas++
			}
		}
	}
	i := slices.IndexFunc(st.Conditions, func(c appsv1.ReplicaSetCondition) bool { return c.Type == appsv1.ReplicaSetReplicaFailure })
	switch {
	case manageErr != nil && i < 0:
		reason := failedCreateReason
		if len(pods) > int(desiredReplicas(rs)) {
			reason = failedDeleteReason
		}
		st.Conditions = append(st.Conditions, appsv1.ReplicaSetCondition{
			Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
			LastTransitionTime: metav1.NewTime(now), Reason: reason, Message: manageErr.Error(),
		})
	case manageErr == nil && i >= 0:
		st.Conditions = slices.Delete(st.Conditions, i, i+1)
	}
	if len(st.Conditions) == 0 {
		st.Conditions = nil
	}
	return st
}

// statusEqual compares two statuses, conditions by type, status and reason.
func statusEqual(a, b appsv1.ReplicaSetStatus) bool {
	if a.Replicas != b.Replicas || a.FullyLabeledReplicas != b.FullyLabeledReplicas || a.ReadyReplicas != b.ReadyReplicas ||
		a.AvailableReplicas != b.AvailableReplicas || a.ObservedGeneration != b.ObservedGeneration {
		return false
	}
	return slices.EqualFunc(a.Conditions, b.Conditions, func(x, y appsv1.ReplicaSetCondition) bool {
		return x.Type == y.Type && x.Status == y.Status && x.Reason == y.Reason && x.Message == y.Message
	})
}

// podsToDelete returns the n pods best deleted first: unassigned before
// assigned; Pending before Unknown before Running; not ready before ready;
// ready for less time before longer; more container restarts first; newer
// before older.
func podsToDelete(pods []*corev1.Pod, n int) []*corev1.Pod {
	if n >= len(pods) {
		return slices.Clone(pods)
	}
	sorted := slices.Clone(pods)
	sort.SliceStable(sorted, func(i, j int) bool { return deleteFirst(sorted[i], sorted[j]) })
	return sorted[:n]
}

func phaseRank(p corev1.PodPhase) int {
	switch p {
	case corev1.PodPending:
		return 0
	case corev1.PodUnknown:
		return 1
	case corev1.PodRunning:
		return 2
	}
	return 0
}

func maxRestarts(p *corev1.Pod) int32 {
	var m int32
	for _, s := range p.Status.ContainerStatuses {
		m = max(m, s.RestartCount)
	}
	return m
}

// deleteFirst reports whether a should be deleted before b.
func deleteFirst(a, b *corev1.Pod) bool {
	if (a.Spec.NodeName == "") != (b.Spec.NodeName == "") {
		return a.Spec.NodeName == ""
	}
	if ra, rb := phaseRank(a.Status.Phase), phaseRank(b.Status.Phase); ra != rb {
		return ra < rb
	}
	readyA, readyB := podcontrol.IsPodReady(a), podcontrol.IsPodReady(b)
	if readyA != readyB {
		return !readyA
	}
	if readyA {
		ta := podcontrol.PodReadyCondition(a).LastTransitionTime
		tb := podcontrol.PodReadyCondition(b).LastTransitionTime
		if !ta.Equal(&tb) {
			return tb.Before(&ta)
		}
	}
	if ra, rb := maxRestarts(a), maxRestarts(b); ra != rb {
		return ra > rb
	}
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return b.CreationTimestamp.Before(&a.CreationTimestamp)
	}
	return a.Name < b.Name
}
