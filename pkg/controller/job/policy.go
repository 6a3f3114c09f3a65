package job

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
)

// The messages of the failure and success conditions the policies give,
// as Kubernetes writes them.
const (
	msgMaxFailedIndexes = "Job has exceeded the specified maximal number of failed indexes"
	msgFailedIndexes    = "Job has failed indexes"
)

// onlyReplaceFailedPods reports whether a pod of j is replaced only once it
// has failed (podReplacementPolicy Failed, implied by a pod failure policy)
// rather than as soon as it is being deleted.
func onlyReplaceFailedPods(j *batchv1.Job) bool {
	return j.Spec.PodFailurePolicy != nil || deref(j.Spec.PodReplacementPolicy, batchv1.TerminatingOrFailed) == batchv1.Failed
}

// hasBackoffLimitPerIndex reports whether j counts failures per index.
func hasBackoffLimitPerIndex(j *batchv1.Job) bool {
	return isIndexed(j) && j.Spec.BackoffLimitPerIndex != nil
}

// failureAction is what the pod failure policy of j makes of the failed
// pod p: the action of the first rule that matches, with the message a
// FailJob gives; Count when no rule (or no policy) matches.
func failureAction(j *batchv1.Job, p *corev1.Pod) (batchv1.PodFailurePolicyAction, string) {
	if j.Spec.PodFailurePolicy == nil {
		return batchv1.PodFailurePolicyActionCount, ""
	}
	for i, r := range j.Spec.PodFailurePolicy.Rules {
		if r.OnExitCodes != nil {
			if cs := matchingContainer(r.OnExitCodes, p); cs != nil {
				return r.Action, fmt.Sprintf("Container %s for pod %s/%s failed with exit code %v matching %v rule at index %d",
					cs.Name, p.Namespace, p.Name, cs.State.Terminated.ExitCode, r.Action, i)
			}
		}
		for _, pat := range r.OnPodConditions {
			if slices.ContainsFunc(p.Status.Conditions, func(c corev1.PodCondition) bool { return c.Type == pat.Type && c.Status == pat.Status }) {
				return r.Action, fmt.Sprintf("Pod %s/%s has condition %v matching %v rule at index %d", p.Namespace, p.Name, pat.Type, r.Action, i)
			}
		}
	}
	return batchv1.PodFailurePolicyActionCount, ""
}

// matchingContainer returns the first terminated container (or init
// container) of p whose non-zero exit code meets req, or nil.
func matchingContainer(req *batchv1.PodFailurePolicyOnExitCodesRequirement, p *corev1.Pod) *corev1.ContainerStatus {
	for _, list := range [][]corev1.ContainerStatus{p.Status.ContainerStatuses, p.Status.InitContainerStatuses} {
		for i := range list {
			cs := &list[i]
			t := cs.State.Terminated
			if t == nil || t.ExitCode == 0 || req.ContainerName != nil && *req.ContainerName != cs.Name {
				continue
			}
			in := slices.Contains(req.Values, t.ExitCode)
			if in == (req.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn) {
				return cs
			}
		}
	}
	return nil
}

// annotationCount reads a non-negative counter annotation of p; 0 when
// absent or invalid.
func annotationCount(p *corev1.Pod, key string) int32 {
	v, err := strconv.ParseInt(p.Annotations[key], 10, 32)
	if err != nil || v < 0 {
		return 0
	}
	return int32(v)
}

// indexFailed reports whether the failure of p, a pod of a Job with
// backoffLimitPerIndex, fails its index: the policy says FailIndex, or a
// counted failure leaves no retry (the pod already carries as many
// failures as the limit).
func indexFailed(j *batchv1.Job, p *corev1.Pod, action batchv1.PodFailurePolicyAction) bool {
	switch action {
	case batchv1.PodFailurePolicyActionFailIndex:
		return true
	case batchv1.PodFailurePolicyActionCount:
		return annotationCount(p, batchv1.JobIndexFailureCountAnnotation) >= *j.Spec.BackoffLimitPerIndex
	}
	return false
}

// indexHistory is what the pods of one index of a Job with
// backoffLimitPerIndex say of its failures: the counters its next pod
// carries and when the last failed pod finished.
type indexHistory struct {
	failures, ignored int32
	lastFailure       time.Time
	newest            time.Time // creation of the pod the counters come from
}

// noteFailedPod updates the history of p's index with the failed pod p:
// the newest failed pod of an index carries the counts of all the
// failures before it, so its counts plus its own failure are the index's.
func (h *indexHistory) noteFailedPod(j *batchv1.Job, p *corev1.Pod) {
	created := p.CreationTimestamp.Time
	if !h.newest.IsZero() && created.Before(h.newest) {
		return
	}
	h.newest = created
	h.failures = annotationCount(p, batchv1.JobIndexFailureCountAnnotation)
	h.ignored = annotationCount(p, batchv1.JobIndexIgnoredFailureCountAnnotation)
	if action, _ := failureAction(j, p); action == batchv1.PodFailurePolicyActionIgnore {
		h.ignored++
	} else {
		h.failures++
	}
	h.lastFailure = finishTime(p)
}

// finishTime is when the failed pod p finished: the latest exit of its
// containers, else its deletion, else its creation.
func finishTime(p *corev1.Pod) time.Time {
	var t time.Time
	for _, cs := range slices.Concat(p.Status.InitContainerStatuses, p.Status.ContainerStatuses) {
		if term := cs.State.Terminated; term != nil && term.FinishedAt.After(t) {
			t = term.FinishedAt.Time
		}
	}
	switch {
	case !t.IsZero():
		return t
	case p.DeletionTimestamp != nil:
		return p.DeletionTimestamp.Time
	}
	return p.CreationTimestamp.Time
}

// successPolicyMet returns the message of the first rule of j's success
// policy that the completed indexes meet.
func successPolicyMet(j *batchv1.Job, completed indexSet) (string, bool) {
	if j.Spec.SuccessPolicy == nil {
		return "", false
	}
	completions := int(deref(j.Spec.Completions, 0))
	for i, r := range j.Spec.SuccessPolicy.Rules {
		var met bool
		switch {
		case r.SucceededIndexes != nil:
			want := parseIndexes(*r.SucceededIndexes, completions)
			n := 0
			for ix := range want {
				if _, ok := completed[ix]; ok {
					n++
				}
			}
			met = n == len(want)
			if r.SucceededCount != nil {
				met = n >= int(*r.SucceededCount)
			}
		case r.SucceededCount != nil:
			met = len(completed) >= int(*r.SucceededCount)
		}
		if met {
			return fmt.Sprintf("Matched rules at index %d", i), true
		}
	}
	return "", false
}
