package job

import (
	"slices"
	"time"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/controller/podcontrol"
)

// The messages of the Job conditions, as Kubernetes writes them.
const (
	msgBackoffLimit = "Job has reached the specified backoff limit"
	msgDeadline     = "Job was active longer than specified deadline"
	msgCompletions  = "Reached expected number of succeeded pods"
	msgSuspended    = "Job suspended"
	msgResumed      = "Job resumed"
)

// observed is what one sync sees of a Job's pods, finished pods counted
// (those still uncounted included).
type observed struct {
	active      []*corev1.Pod // neither finished nor being deleted
	ready       int32         // active and Ready
	terminating int32         // being deleted, not finished
	succeeded   int32
	failed      int32
	completed   indexSet // Indexed Jobs: the completed indexes
	created     int32    // pods created by this sync
	// terminatingPods are the pods counted in terminating.
	terminatingPods []*corev1.Pod
	// failedIndexes and indexHistory: Jobs with backoffLimitPerIndex.
	failedIndexes indexSet
	indexHistory  map[int]indexHistory
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

func isIndexed(j *batchv1.Job) bool {
	return deref(j.Spec.CompletionMode, batchv1.NonIndexedCompletion) == batchv1.IndexedCompletion
}

// condition returns j's condition of type t that is True, or nil.
func condition(j *batchv1.Job, t batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range j.Status.Conditions {
		if c := &j.Status.Conditions[i]; c.Type == t && c.Status == corev1.ConditionTrue {
			return c
		}
	}
	return nil
}

// isFinished reports whether j is Complete or Failed.
func isFinished(j *batchv1.Job) bool {
	return condition(j, batchv1.JobComplete) != nil || condition(j, batchv1.JobFailed) != nil
}

// setCondition sets j's condition of type t, keeping its transition time
// when the status does not change; it reports whether anything changed.
func setCondition(j *batchv1.Job, t batchv1.JobConditionType, status corev1.ConditionStatus, reason, message string, now time.Time) bool {
	ts := metaTime(now)
	for i := range j.Status.Conditions {
		c := &j.Status.Conditions[i]
		if c.Type != t {
			continue
		}
		if c.Status == status && c.Reason == reason && c.Message == message {
			return false
		}
		if c.Status != status {
			c.LastTransitionTime = ts
		}
		c.Status, c.Reason, c.Message, c.LastProbeTime = status, reason, message, ts
		return true
	}
	j.Status.Conditions = append(j.Status.Conditions, batchv1.JobCondition{
		Type: t, Status: status, Reason: reason, Message: message, LastProbeTime: ts, LastTransitionTime: ts,
	})
	return true
}

// failureReason returns why j must fail now, if it must: too many failed
// pods (or container restarts, under restartPolicy OnFailure), or its
// active deadline passed.
func failureReason(j *batchv1.Job, o *observed, now time.Time) (reason, message string, fail bool) {
	limit := deref(j.Spec.BackoffLimit, 6)
	if o.failed > limit || pastBackoffLimitOnFailure(j, o.active, limit) {
		return batchv1.JobReasonBackoffLimitExceeded, msgBackoffLimit, true
	}
	if d := j.Spec.ActiveDeadlineSeconds; d != nil && j.Status.StartTime != nil && !deref(j.Spec.Suspend, false) {
		if !now.Before(j.Status.StartTime.Add(time.Duration(*d) * time.Second)) {
			return batchv1.JobReasonDeadlineExceeded, msgDeadline, true
		}
	}
	if hasBackoffLimitPerIndex(j) {
		failed := len(o.failedIndexes)
		if m := j.Spec.MaxFailedIndexes; m != nil && failed > int(*m) {
			return batchv1.JobReasonMaxFailedIndexesExceeded, msgMaxFailedIndexes, true
		}
		if failed > 0 && failed+len(o.completed) >= int(deref(j.Spec.Completions, 0)) {
			return batchv1.JobReasonFailedIndexes, msgFailedIndexes, true
		}
	}
	return "", "", false
}

// pastBackoffLimitOnFailure counts, for a template with restartPolicy
// OnFailure (whose failed containers restart in place rather than fail
// the pod), the container restarts of the active pods against the
// backoff limit, as Kubernetes does: any restart when the limit is 0,
// else as many restarts as the limit.
func pastBackoffLimitOnFailure(j *batchv1.Job, active []*corev1.Pod, limit int32) bool {
	if j.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyOnFailure {
		return false
	}
	var restarts int32
	for _, p := range active {
		if p.Status.Phase != corev1.PodPending && p.Status.Phase != corev1.PodRunning {
			continue
		}
		for _, cs := range slices.Concat(p.Status.InitContainerStatuses, p.Status.ContainerStatuses) {
			restarts += cs.RestartCount
		}
	}
	if limit == 0 {
		return restarts > 0
	}
	return restarts >= limit
}

// succeededEnough reports whether j met its completions: every index
// completed (Indexed), completions pods succeeded, or, without
// completions (a work queue), one pod succeeded and none is left running.
func succeededEnough(j *batchv1.Job, o *observed) bool {
	switch {
	case isIndexed(j):
		return len(o.completed) >= int(deref(j.Spec.Completions, 0))
	case j.Spec.Completions != nil:
		return o.succeeded >= *j.Spec.Completions
	}
	return o.succeeded > 0 && len(o.active) == 0
}

// wantActive is the number of pods a running NonIndexed Job should have:
// parallelism, bounded by the completions still missing; none once a
// pod of a work queue (no completions) succeeded.
func wantActive(j *batchv1.Job, o *observed) int32 {
	parallelism := deref(j.Spec.Parallelism, 1)
	if j.Spec.Completions == nil {
		if o.succeeded > 0 {
			return int32(len(o.active))
		}
		return parallelism
	}
	return max(0, min(parallelism, *j.Spec.Completions-o.succeeded))
}

// podsToDelete returns n of the active pods, those that lose least
// first: unscheduled, then pending, then not ready, then the newest.
func podsToDelete(active []*corev1.Pod, n int) []*corev1.Pod {
	sorted := slices.Clone(active)
	rank := func(p *corev1.Pod) int {
		switch {
		case p.Spec.NodeName == "":
			return 0
		case p.Status.Phase == corev1.PodPending:
			return 1
		case !podcontrol.IsPodReady(p):
			return 2
		}
		return 3
	}
	slices.SortStableFunc(sorted, func(a, b *corev1.Pod) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return b.CreationTimestamp.Compare(a.CreationTimestamp.Time)
	})
	return sorted[:min(n, len(sorted))]
}

// indexedExcess returns the active pods of an Indexed Job that must go:
// without a valid index, of a completed index, or a second pod of an
// index (the newer one); and the indexes the remaining pods hold.
func indexedExcess(j *batchv1.Job, active []*corev1.Pod, completed indexSet) (excess []*corev1.Pod, held indexSet) {
	completions := int(deref(j.Spec.Completions, 0))
	held = indexSet{}
	sorted := slices.Clone(active)
	slices.SortStableFunc(sorted, func(a, b *corev1.Pod) int { return a.CreationTimestamp.Compare(b.CreationTimestamp.Time) })
	for _, p := range sorted {
		ix := podIndex(p)
		_, done := completed[ix]
		_, dup := held[ix]
		if ix < 0 || ix >= completions || done || dup {
			excess = append(excess, p)
			continue
		}
		held[ix] = struct{}{}
	}
	return excess, held
}

// backoffDelay is how long to wait before creating pods after failures
// consecutive pod failures: base doubled per failure after the first, at
// most maxDelay.
func backoffDelay(failures int, base, maxDelay time.Duration) time.Duration {
	if failures <= 0 {
		return 0
	}
	d := base
	for range failures - 1 {
		d *= 2
		if d >= maxDelay {
			return maxDelay
		}
	}
	return min(d, maxDelay)
}
