package job

import (
	"slices"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/types"

	"kubecore.io/kubecore/pkg/controller/podcontrol"
)

// tracker counts a Job's finished pods without losing or doubling any, as
// Kubernetes does with the tracking finalizer: a finished pod's uid is
// first written to status.uncountedTerminatedPods, then its finalizer is
// removed, then it moves from there to succeeded or failed.
type tracker struct {
	job         *batchv1.Job
	indexed     bool
	completions int
	// perIndex: the Job has backoffLimitPerIndex; failed holds the failed
	// indexes, written to status.failedIndexes with the uncounted uids.
	perIndex      bool
	failedIndexes indexSet
	// onlyFailed: a pod being deleted is not a failure until its phase is
	// Failed (podReplacementPolicy Failed); unless the Job is finishing,
	// it keeps its finalizer until then.
	onlyFailed, finishing bool
	// failJob is the message of a FailJob rule a newly failed pod matched.
	failJob string
	// succeeded and failed are the uncounted uids.
	succeeded, failed []types.UID
	completed         indexSet
	// recorded says observe added uids that must be written before any
	// finalizer is removed.
	recorded bool
	// noFailures: pods being deleted are not failures while the Job is
	// suspended or already succeeded (the controller deletes them).
	noFailures bool
}

func newTracker(job *batchv1.Job) *tracker {
	t := &tracker{
		job:        job,
		indexed:    isIndexed(job),
		perIndex:   hasBackoffLimitPerIndex(job),
		onlyFailed: onlyReplaceFailedPods(job),
		finishing: job.DeletionTimestamp != nil || condition(job, batchv1.JobFailureTarget) != nil ||
			condition(job, batchv1.JobSuccessCriteriaMet) != nil,
		completions: int(deref(job.Spec.Completions, 0)),
		noFailures:  deref(job.Spec.Suspend, false) || condition(job, batchv1.JobSuccessCriteriaMet) != nil,
	}
	if u := job.Status.UncountedTerminatedPods; u != nil {
		t.succeeded, t.failed = slices.Clone(u.Succeeded), slices.Clone(u.Failed)
	}
	t.completed = parseIndexes(job.Status.CompletedIndexes, t.completions)
	t.failedIndexes = parseIndexes(deref(job.Status.FailedIndexes, ""), t.completions)
	return t
}

// observe records the pods that finished since the last sync and returns
// the pods whose finalizer is to go: those finished, recorded before, or
// deleted without counting. removed says a pod's finalizer is already
// gone; newlyFinished is told of each pod recorded.
func (t *tracker) observe(pods []*corev1.Pod, removed func(types.UID) bool, newlyFinished func(failed bool)) []*corev1.Pod {
	var release []*corev1.Pod
	for _, p := range pods {
		if !hasFinalizer(p) || removed(p.UID) {
			continue
		}
		switch {
		case slices.Contains(t.succeeded, p.UID) || slices.Contains(t.failed, p.UID):
		case p.Status.Phase == corev1.PodSucceeded:
			t.succeeded = append(t.succeeded, p.UID)
			if ix := podIndex(p); t.indexed && ix >= 0 && ix < t.completions {
				t.completed[ix] = struct{}{}
			}
			t.recorded = true
			newlyFinished(false)
		case p.Status.Phase == corev1.PodFailed || p.DeletionTimestamp != nil && !t.noFailures && !t.onlyFailed:
			if !t.recordFailure(p) {
				break // ignored by the pod failure policy: released uncounted
			}
			t.recorded = true
			newlyFinished(true)
		case p.DeletionTimestamp == nil || t.onlyFailed && !t.finishing:
			continue // running, or terminating and not yet failed: keep its finalizer
		}
		release = append(release, p)
	}
	return release
}

// recordFailure applies the pod failure policy to the failed pod p:
// FailJob keeps its message, FailIndex and exhausted retries fail p's
// index, and any action but Ignore counts p as failed (it reports
// whether it did).
func (t *tracker) recordFailure(p *corev1.Pod) bool {
	action, msg := failureAction(t.job, p)
	switch action {
	case batchv1.PodFailurePolicyActionIgnore:
		return false
	case batchv1.PodFailurePolicyActionFailJob:
		if t.failJob == "" {
			t.failJob = msg
		}
	}
	if ix := podIndex(p); t.perIndex && ix >= 0 && ix < t.completions && indexFailed(t.job, p, action) {
		t.failedIndexes[ix] = struct{}{}
	}
	t.failed = append(t.failed, p.UID)
	return true
}

// writeUncounted puts the recorded uids (and completed indexes) in job's
// status.
func (t *tracker) writeUncounted(job *batchv1.Job) {
	job.Status.UncountedTerminatedPods = &batchv1.UncountedTerminatedPods{Succeeded: slices.Clone(t.succeeded), Failed: slices.Clone(t.failed)}
	if t.indexed {
		job.Status.CompletedIndexes = t.completed.String()
	}
	if t.perIndex {
		failed := t.failedIndexes.String()
		job.Status.FailedIndexes = &failed
	}
}

// count moves the uncounted uids whose pod lost its finalizer (or is
// gone) to job's succeeded and failed counters.
func (t *tracker) count(job *batchv1.Job, pods []*corev1.Pod, removed func(types.UID) bool) {
	tracked := map[types.UID]bool{}
	for _, p := range pods {
		if hasFinalizer(p) && !removed(p.UID) {
			tracked[p.UID] = true
		}
	}
	keep := func(uids []types.UID, counter *int32) []types.UID {
		return slices.DeleteFunc(uids, func(uid types.UID) bool {
			if tracked[uid] {
				return false
			}
			*counter++
			return true
		})
	}
	t.succeeded = keep(t.succeeded, &job.Status.Succeeded)
	t.failed = keep(t.failed, &job.Status.Failed)
	t.writeUncounted(job)
	if t.indexed {
		job.Status.Succeeded = int32(len(t.completed))
	}
}

// observePods sorts job's pods into active and terminating, with the
// finished ones counted through t.
func observePods(job *batchv1.Job, pods []*corev1.Pod, t *tracker) *observed {
	o := &observed{completed: t.completed, failedIndexes: t.failedIndexes, failed: job.Status.Failed + int32(len(t.failed))}
	o.succeeded = job.Status.Succeeded + int32(len(t.succeeded))
	if t.indexed {
		o.succeeded = int32(len(t.completed))
	}
	if t.perIndex {
		o.indexHistory = map[int]indexHistory{}
	}
	for _, p := range pods {
		switch {
		case p.Status.Phase == corev1.PodFailed:
			if t.perIndex {
				if ix := podIndex(p); ix >= 0 && ix < t.completions {
					h := o.indexHistory[ix]
					h.noteFailedPod(job, p)
					o.indexHistory[ix] = h
				}
			}
		case p.Status.Phase == corev1.PodSucceeded:
		case p.DeletionTimestamp != nil:
			o.terminating++
			o.terminatingPods = append(o.terminatingPods, p)
		default:
			o.active = append(o.active, p)
			if podcontrol.IsPodReady(p) {
				o.ready++
			}
		}
	}
	return o
}
