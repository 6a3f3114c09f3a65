package disruption

import (
	"fmt"
	"maps"
	"time"

	corev1 "kubecore.io/api/core/v1"
	policyv1 "kubecore.io/api/policy/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"

	"kubecore.io/kubecore/pkg/controller/podcontrol"
)

// DeletionTimeout is how long after an eviction the controller waits for
// the evicted pod to go before it counts the pod as healthy again (and
// drops it from status.disruptedPods), as Kubernetes does.
const DeletionTimeout = 2 * time.Minute

// scaleFunc returns the number of pods the budget expects: the sum of
// the desired replicas of the controllers of pods, and the names of the
// pods without a controller (which it cannot account for).
type scaleFunc func(pods []*corev1.Pod) (expected int32, unmanaged []string, err error)

// desired computes expectedPods and desiredHealthy of a budget over pods,
// asking scale for the controllers' replicas when the budget is relative
// to them (maxUnavailable, or minAvailable as a percentage). An absolute
// minAvailable counts the pods selected as expected and needs no
// controller.
func desired(spec policyv1.PodDisruptionBudgetSpec, pods []*corev1.Pod, scale scaleFunc) (expected, desiredHealthy int32, unmanaged []string, err error) {
	switch {
	case spec.MaxUnavailable != nil:
		expected, unmanaged, err = scale(pods)
		if err != nil {
			return 0, 0, nil, err
		}
		maxUnavailable, err := intstr.GetScaledValueFromIntOrPercent(spec.MaxUnavailable, int(expected), true)
		if err != nil {
			return 0, 0, nil, fmt.Errorf("maxUnavailable: %w", err)
		}
		desiredHealthy = max(expected-int32(maxUnavailable), 0)
	case spec.MinAvailable != nil && spec.MinAvailable.Type == intstr.Int:
		desiredHealthy = spec.MinAvailable.IntVal
		expected = int32(len(pods))
	case spec.MinAvailable != nil:
		expected, unmanaged, err = scale(pods)
		if err != nil {
			return 0, 0, nil, err
		}
		minAvailable, err := intstr.GetScaledValueFromIntOrPercent(spec.MinAvailable, int(expected), true)
		if err != nil {
			return 0, 0, nil, fmt.Errorf("minAvailable: %w", err)
		}
		desiredHealthy = int32(minAvailable)
	}
	return expected, desiredHealthy, unmanaged, nil
}

// disruptedPods keeps the entries of status.disruptedPods whose pod still
// exists, is not yet being deleted and was evicted less than
// DeletionTimeout before now. It also returns the pods that outlived
// their timeout, and when the earliest kept entry times out (zero when
// none is kept), at which the budget must be looked at again.
func disruptedPods(recorded map[string]metav1.Time, pods []*corev1.Pod, now time.Time) (kept map[string]metav1.Time, expired []*corev1.Pod, recheck time.Time) {
	kept = map[string]metav1.Time{}
	if len(recorded) == 0 {
		return kept, nil, time.Time{}
	}
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			continue
		}
		at, ok := recorded[pod.Name]
		if !ok {
			continue
		}
		deadline := at.Add(DeletionTimeout)
		if deadline.Before(now) {
			expired = append(expired, pod)
			continue
		}
		kept[pod.Name] = at
		if recheck.IsZero() || deadline.Before(recheck) {
			recheck = deadline
		}
	}
	return kept, expired, recheck
}

// currentHealthy counts the ready pods that are neither being deleted nor
// evicted (disrupted) within the last DeletionTimeout.
func currentHealthy(pods []*corev1.Pod, disrupted map[string]metav1.Time, now time.Time) int32 {
	var n int32
	for _, pod := range pods {
		if pod.DeletionTimestamp != nil {
			continue
		}
		if at, ok := disrupted[pod.Name]; ok && at.Add(DeletionTimeout).After(now) {
			continue
		}
		if podcontrol.IsPodReady(pod) {
			n++
		}
	}
	return n
}

// budgetStatus is the status of pdb from the counts the controller
// computed: disruptionsAllowed is what the healthy pods exceed the
// desired ones by (none while no pod is expected), with the
// DisruptionAllowed condition that says so. The conditions are copied.
func budgetStatus(pdb *policyv1.PodDisruptionBudget, healthy, desiredHealthy, expected int32, disrupted map[string]metav1.Time) policyv1.PodDisruptionBudgetStatus {
	allowed := healthy - desiredHealthy
	if expected <= 0 || allowed <= 0 {
		allowed = 0
	}
	st := policyv1.PodDisruptionBudgetStatus{
		ObservedGeneration: pdb.Generation,
		DisruptedPods:      disrupted,
		DisruptionsAllowed: allowed,
		CurrentHealthy:     healthy,
		DesiredHealthy:     desiredHealthy,
		ExpectedPods:       expected,
		Conditions:         copyConditions(pdb.Status.Conditions),
	}
	setAllowedCondition(&st)
	return st
}

// setAllowedCondition sets the DisruptionAllowed condition from
// disruptionsAllowed: True with reason SufficientPods when a disruption is
// allowed, False with InsufficientPods otherwise.
func setAllowedCondition(st *policyv1.PodDisruptionBudgetStatus) {
	cond := metav1.Condition{Type: policyv1.DisruptionAllowedCondition, ObservedGeneration: st.ObservedGeneration,
		Status: metav1.ConditionFalse, Reason: policyv1.InsufficientPodsReason}
	if st.DisruptionsAllowed > 0 {
		cond.Status, cond.Reason = metav1.ConditionTrue, policyv1.SufficientPodsReason
	}
	metav1.SetStatusCondition(&st.Conditions, cond)
}

// failedStatus is the status of a budget the controller could not
// compute: no disruption allowed, condition DisruptionAllowed False with
// reason SyncFailed and the error as its message. The rest is kept.
func failedStatus(pdb *policyv1.PodDisruptionBudget, cause error) policyv1.PodDisruptionBudgetStatus {
	st := *pdb.Status.DeepCopy()
	st.DisruptionsAllowed = 0
	metav1.SetStatusCondition(&st.Conditions, metav1.Condition{Type: policyv1.DisruptionAllowedCondition, ObservedGeneration: st.ObservedGeneration,
		Status: metav1.ConditionFalse, Reason: policyv1.SyncFailedReason, Message: cause.Error()})
	return st
}

// statusUpToDate reports whether pdb's status already says what st says,
// so that no write is needed. The condition's transition time is not
// compared: it moves only with its status.
func statusUpToDate(pdb *policyv1.PodDisruptionBudget, st policyv1.PodDisruptionBudgetStatus) bool {
	cur := pdb.Status
	if cur.ObservedGeneration != st.ObservedGeneration || cur.DisruptionsAllowed != st.DisruptionsAllowed ||
		cur.CurrentHealthy != st.CurrentHealthy || cur.DesiredHealthy != st.DesiredHealthy || cur.ExpectedPods != st.ExpectedPods {
		return false
	}
	if len(cur.DisruptedPods) != len(st.DisruptedPods) || !maps.EqualFunc(cur.DisruptedPods, st.DisruptedPods, func(a, b metav1.Time) bool { return a.Equal(&b) }) {
		return false
	}
	if len(cur.Conditions) != len(st.Conditions) {
		return false
	}
	for i := range cur.Conditions {
		a, b := cur.Conditions[i], st.Conditions[i]
		if a.Type != b.Type || a.Status != b.Status || a.Reason != b.Reason || a.Message != b.Message || a.ObservedGeneration != b.ObservedGeneration {
			return false
		}
	}
	return true
}

func copyConditions(in []metav1.Condition) []metav1.Condition {
	if in == nil {
		return []metav1.Condition{}
	}
	out := make([]metav1.Condition, len(in))
	copy(out, in)
	return out
}
