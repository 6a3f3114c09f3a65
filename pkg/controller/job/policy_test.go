package job

import (
	"context"
	"slices"
	"testing"
	"time"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/tools/cache"
)

// harness runs the controller's sync against a fake API whose writes it
// feeds back into the caches, as the informers would.
type harness struct {
	t    *testing.T
	c    *Controller
	api  *fakeAPI
	jobs *cache.Indexer[*batchv1.Job]
	pods *cache.Indexer[*corev1.Pod]
	ref  *metav1.OwnerReference
}

func newHarness(t *testing.T, job *batchv1.Job) *harness {
	t.Helper()
	job.ResourceVersion = "1"
	job.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "pi"}}
	if job.Status.StartTime == nil {
		ts := metav1.NewTime(now)
		job.Status.StartTime = &ts
	}
	h := &harness{t: t, api: &fakeAPI{rv: 1}, jobs: cache.NewIndexer[*batchv1.Job](), pods: cache.NewIndexer[*corev1.Pod](),
		ref: metav1.NewControllerRef(job, controllerKind)}
	if err := h.jobs.Add(job); err != nil {
		t.Fatal(err)
	}
	patch := func(_ context.Context, ns, name string, _ types.PatchType, _ []byte) error {
		h.api.mu.Lock()
		h.api.patched = append(h.api.patched, name)
		h.api.mu.Unlock()
		if p, ok := h.pods.GetByKey(ns + "/" + name); ok {
			p = p.DeepCopy()
			p.Finalizers = slices.DeleteFunc(p.Finalizers, func(f string) bool { return f == batchv1.JobTrackingFinalizer })
			return h.pods.Update(p)
		}
		return nil
	}
	h.c = newController(func(string) JobClient { return h.api }, patch, h.api, nil,
		cache.NewLister(h.jobs, batchv1.Resource("jobs")), cache.NewLister(h.pods, corev1.Resource("pods")),
		Options{Now: func() time.Time { return now }})
	return h
}

// add puts pods of the Job in the cache.
func (h *harness) add(pods ...*corev1.Pod) {
	h.t.Helper()
	for _, p := range pods {
		p.Labels = map[string]string{"app": "pi"}
		p.OwnerReferences = []metav1.OwnerReference{*h.ref}
		if err := h.pods.Add(p); err != nil {
			h.t.Fatal(err)
		}
	}
}

// remove takes pods out of the cache, as when the kubelet deleted them.
func (h *harness) remove(names ...string) {
	h.t.Helper()
	for _, n := range names {
		if err := h.pods.Delete(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: n}}); err != nil {
			h.t.Fatal(err)
		}
	}
}

// sync runs one sync and returns the Job as last written.
func (h *harness) sync() *batchv1.Job {
	h.t.Helper()
	if err := h.c.sync(context.Background(), "ns/pi"); err != nil {
		h.t.Fatalf("sync: %v", err)
	}
	h.c.expectations.DeleteExpectations("ns/pi")
	if h.api.last != nil {
		if err := h.jobs.Update(h.api.last.DeepCopy()); err != nil {
			h.t.Fatal(err)
		}
	}
	return h.api.last
}

func exited(code int32) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", State: corev1.ContainerState{
			Terminated: &corev1.ContainerStateTerminated{ExitCode: code, FinishedAt: metav1.NewTime(now.Add(-time.Hour))}}}}
	}
}

func withCondition(t corev1.PodConditionType) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: t, Status: corev1.ConditionTrue})
	}
}

func annotated(key, value string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[key] = value
	}
}

func policy(rules ...batchv1.PodFailurePolicyRule) *batchv1.PodFailurePolicy {
	return &batchv1.PodFailurePolicy{Rules: rules}
}

func onExitCodes(action batchv1.PodFailurePolicyAction, op batchv1.PodFailurePolicyOnExitCodesOperator, values ...int32) batchv1.PodFailurePolicyRule {
	return batchv1.PodFailurePolicyRule{Action: action, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: op, Values: values}}
}

func onDisruption(action batchv1.PodFailurePolicyAction) batchv1.PodFailurePolicyRule {
	return batchv1.PodFailurePolicyRule{Action: action, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}}
}

func wantCondition(t *testing.T, j *batchv1.Job, typ batchv1.JobConditionType, reason, message string) {
	t.Helper()
	c := condition(j, typ)
	switch {
	case c == nil:
		t.Errorf("no %s condition in %+v", typ, j.Status.Conditions)
	case c.Reason != reason || message != "" && c.Message != message:
		t.Errorf("%s condition %q %q, want %q %q", typ, c.Reason, c.Message, reason, message)
	}
}

func indexedJob(completions, parallelism int32) *batchv1.Job {
	j := newJob(ptr(completions), ptr(parallelism))
	j.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
	return j
}

func TestFailureAction(t *testing.T) {
	in, notIn := batchv1.PodFailurePolicyOnExitCodesOpIn, batchv1.PodFailurePolicyOnExitCodesOpNotIn
	named := func(name string, r batchv1.PodFailurePolicyRule) batchv1.PodFailurePolicyRule {
		r.OnExitCodes.ContainerName = &name
		return r
	}
	initExited := func(code int32) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "setup", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}}}
		}
	}
	for _, tc := range []struct {
		name    string
		rules   []batchv1.PodFailurePolicyRule
		pod     *corev1.Pod
		want    batchv1.PodFailurePolicyAction
		message string
	}{
		{"In matches", []batchv1.PodFailurePolicyRule{onExitCodes(batchv1.PodFailurePolicyActionFailJob, in, 1, 42)}, pod("p", corev1.PodFailed, exited(42)),
			batchv1.PodFailurePolicyActionFailJob, "Container c for pod ns/p failed with exit code 42 matching FailJob rule at index 0"},
		{"In misses", []batchv1.PodFailurePolicyRule{onExitCodes(batchv1.PodFailurePolicyActionFailJob, in, 1)}, pod("p", corev1.PodFailed, exited(2)), batchv1.PodFailurePolicyActionCount, ""},
		{"NotIn matches", []batchv1.PodFailurePolicyRule{onExitCodes(batchv1.PodFailurePolicyActionIgnore, notIn, 1)}, pod("p", corev1.PodFailed, exited(2)), batchv1.PodFailurePolicyActionIgnore,
			"Container c for pod ns/p failed with exit code 2 matching Ignore rule at index 0"},
		{"NotIn never matches 0", []batchv1.PodFailurePolicyRule{onExitCodes(batchv1.PodFailurePolicyActionIgnore, notIn, 1)}, pod("p", corev1.PodFailed, exited(0)), batchv1.PodFailurePolicyActionCount, ""},
		{"first rule wins", []batchv1.PodFailurePolicyRule{onExitCodes(batchv1.PodFailurePolicyActionIgnore, in, 3), onExitCodes(batchv1.PodFailurePolicyActionFailJob, in, 3)},
			pod("p", corev1.PodFailed, exited(3)), batchv1.PodFailurePolicyActionIgnore, ""},
		{"other container", []batchv1.PodFailurePolicyRule{named("sidecar", onExitCodes(batchv1.PodFailurePolicyActionFailJob, in, 3))}, pod("p", corev1.PodFailed, exited(3)), batchv1.PodFailurePolicyActionCount, ""},
		{"named container", []batchv1.PodFailurePolicyRule{named("c", onExitCodes(batchv1.PodFailurePolicyActionFailJob, in, 3))}, pod("p", corev1.PodFailed, exited(3)), batchv1.PodFailurePolicyActionFailJob, ""},
		{"init container", []batchv1.PodFailurePolicyRule{onExitCodes(batchv1.PodFailurePolicyActionFailJob, in, 5)}, pod("p", corev1.PodFailed, initExited(5)), batchv1.PodFailurePolicyActionFailJob,
			"Container setup for pod ns/p failed with exit code 5 matching FailJob rule at index 0"},
		{"condition", []batchv1.PodFailurePolicyRule{onExitCodes(batchv1.PodFailurePolicyActionFailJob, in, 5), onDisruption(batchv1.PodFailurePolicyActionIgnore)},
			pod("p", corev1.PodFailed, exited(137), withCondition(corev1.DisruptionTarget)), batchv1.PodFailurePolicyActionIgnore,
			"Pod ns/p has condition DisruptionTarget matching Ignore rule at index 1"},
		{"condition False", []batchv1.PodFailurePolicyRule{onDisruption(batchv1.PodFailurePolicyActionIgnore)},
			pod("p", corev1.PodFailed, func(p *corev1.Pod) {
				p.Status.Conditions = []corev1.PodCondition{{Type: corev1.DisruptionTarget, Status: corev1.ConditionFalse}}
			}), batchv1.PodFailurePolicyActionCount, ""},
	} {
		j := newJob(ptr[int32](1), ptr[int32](1))
		j.Spec.PodFailurePolicy = policy(tc.rules...)
		got, msg := failureAction(j, tc.pod)
		if got != tc.want || tc.message != "" && msg != tc.message {
			t.Errorf("%s: %q %q, want %q %q", tc.name, got, msg, tc.want, tc.message)
		}
	}
}

// TestFailJob: a pod matching a FailJob rule sets FailureTarget at once,
// in the write that records the pod; the running pods are deleted, and
// the Job is Failed only once they are gone.
func TestFailJob(t *testing.T) {
	j := newJob(ptr[int32](4), ptr[int32](2))
	j.Spec.BackoffLimit = ptr[int32](6)
	j.Spec.PodFailurePolicy = policy(onExitCodes(batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyOnExitCodesOpIn, 1))
	h := newHarness(t, j)
	h.add(pod("bad", corev1.PodFailed, exited(1)), pod("running", corev1.PodRunning))
	got := h.sync()
	first := h.api.statuses[0]
	if len(first.UncountedTerminatedPods.Failed) != 1 || condition(&batchv1.Job{Status: first}, batchv1.JobFailureTarget) == nil {
		t.Errorf("first write %+v: want the failed pod and FailureTarget together", first)
	}
	wantCondition(t, got, batchv1.JobFailureTarget, batchv1.JobReasonPodFailurePolicy, "Container c for pod ns/bad failed with exit code 1 matching FailJob rule at index 0")
	if condition(got, batchv1.JobFailed) != nil {
		t.Errorf("Failed set while a pod terminates")
	}
	if !slices.Equal(h.api.deleted, []string{"running"}) || h.api.created != 0 {
		t.Errorf("deleted %v, created %d; want the running pod deleted and none created", h.api.deleted, h.api.created)
	}
	if got.Status.Failed != 1 || deref(got.Status.Terminating, 0) != 1 {
		t.Errorf("failed %d terminating %v, want 1 and 1", got.Status.Failed, deref(got.Status.Terminating, 0))
	}
	h.remove("running")
	got = h.sync()
	wantCondition(t, got, batchv1.JobFailed, batchv1.JobReasonPodFailurePolicy, "Container c for pod ns/bad failed with exit code 1 matching FailJob rule at index 0")
}

// TestIgnoreDisruption: an evicted pod matching an Ignore rule is not
// counted (not even against backoffLimit 0), is released and replaced.
func TestIgnoreDisruption(t *testing.T) {
	j := indexedJob(3, 3)
	j.Spec.BackoffLimit = ptr[int32](0)
	j.Spec.PodFailurePolicy = policy(onDisruption(batchv1.PodFailurePolicyActionIgnore))
	h := newHarness(t, j)
	h.add(pod("evicted", corev1.PodFailed, index("0"), exited(143), withCondition(corev1.DisruptionTarget)),
		pod("p1", corev1.PodRunning, index("1")), pod("p2", corev1.PodRunning, index("2")))
	got := h.sync()
	if got.Status.Failed != 0 || condition(got, batchv1.JobFailureTarget) != nil {
		t.Errorf("failed %d, conditions %+v: an ignored failure must not count", got.Status.Failed, got.Status.Conditions)
	}
	if !slices.Equal(h.api.patched, []string{"evicted"}) {
		t.Errorf("finalizers removed from %v, want [evicted]", h.api.patched)
	}
	if h.api.created != 1 || h.api.pods[0].Annotations[batchv1.JobCompletionIndexAnnotation] != "0" {
		t.Errorf("created %d pods, want a replacement of index 0", h.api.created)
	}
}

// TestCountAction: a failure no rule matches counts against backoffLimit.
func TestCountAction(t *testing.T) {
	j := newJob(ptr[int32](1), ptr[int32](1))
	j.Spec.BackoffLimit = ptr[int32](0)
	j.Spec.PodFailurePolicy = policy(onExitCodes(batchv1.PodFailurePolicyActionIgnore, batchv1.PodFailurePolicyOnExitCodesOpIn, 42))
	h := newHarness(t, j)
	h.add(pod("bad", corev1.PodFailed, exited(1)))
	got := h.sync()
	if got.Status.Failed != 1 {
		t.Errorf("failed %d, want 1", got.Status.Failed)
	}
	wantCondition(t, got, batchv1.JobFailed, batchv1.JobReasonBackoffLimitExceeded, msgBackoffLimit)
}

// TestPodReplacementPolicy: with Failed a pod being deleted keeps its
// finalizer, is not a failure and is not replaced until it has failed;
// with TerminatingOrFailed it counts as failed at once (and is replaced
// after the failure back-off).
func TestPodReplacementPolicy(t *testing.T) {
	for _, tc := range []struct {
		policy                 batchv1.PodReplacementPolicy
		failed, created, terms int32
		released               bool
	}{
		{batchv1.Failed, 0, 0, 1, false},
		{batchv1.TerminatingOrFailed, 1, 0, 1, true},
	} {
		j := newJob(ptr[int32](1), ptr[int32](1))
		j.Spec.PodReplacementPolicy = ptr(tc.policy)
		h := newHarness(t, j)
		h.add(pod("going", corev1.PodRunning, deleting))
		got := h.sync()
		if got.Status.Failed != tc.failed || int32(h.api.created) != tc.created || deref(got.Status.Terminating, 0) != tc.terms || got.Status.Active != tc.created {
			t.Errorf("%s: failed %d created %d terminating %d active %d, want %d %d %d %d", tc.policy, got.Status.Failed, h.api.created,
				deref(got.Status.Terminating, 0), got.Status.Active, tc.failed, tc.created, tc.terms, tc.created)
		}
		if released := len(h.api.patched) > 0; released != tc.released {
			t.Errorf("%s: finalizer released %v, want %v", tc.policy, released, tc.released)
		}
		if tc.policy != batchv1.Failed {
			continue
		}
		// The pod has now terminated and failed: counted and replaced.
		p, _ := h.pods.GetByKey("ns/going")
		p = p.DeepCopy()
		p.Status.Phase = corev1.PodFailed
		if err := h.pods.Update(p); err != nil {
			t.Fatal(err)
		}
		got = h.sync()
		if got.Status.Failed != 1 || deref(got.Status.Terminating, 0) != 0 || !slices.Equal(h.api.patched, []string{"going"}) {
			t.Errorf("after failing: failed %d terminating %d released %v, want 1 0 [going]", got.Status.Failed, deref(got.Status.Terminating, 0), h.api.patched)
		}
		// Past the back-off the replacement comes.
		h.c.opts.Now = func() time.Time { return now.Add(time.Hour) }
		h.sync()
		if h.api.created != 1 {
			t.Errorf("created %d after the back-off, want 1", h.api.created)
		}
	}
}

// TestBackoffLimitPerIndex: an index is retried with its failure count in
// the new pod's annotation, then failed once the count reaches the limit;
// with every index finished and one failed, the Job fails.
func TestBackoffLimitPerIndex(t *testing.T) {
	j := indexedJob(2, 2)
	j.Spec.BackoffLimit = ptr[int32](1 << 30)
	j.Spec.BackoffLimitPerIndex = ptr[int32](1)
	h := newHarness(t, j)
	h.add(pod("i0", corev1.PodSucceeded, index("0")), pod("i1-a", corev1.PodFailed, index("1"), exited(1), annotated(batchv1.JobIndexFailureCountAnnotation, "0")))
	got := h.sync()
	if deref(got.Status.FailedIndexes, "<nil>") != "" || got.Status.CompletedIndexes != "0" {
		t.Errorf("failedIndexes %v completedIndexes %q, want \"\" and 0", deref(got.Status.FailedIndexes, "<nil>"), got.Status.CompletedIndexes)
	}
	if h.api.created != 1 {
		t.Fatalf("created %d pods, want the retry of index 1", h.api.created)
	}
	retry := h.api.pods[0]
	if retry.Annotations[batchv1.JobCompletionIndexAnnotation] != "1" || retry.Annotations[batchv1.JobIndexFailureCountAnnotation] != "1" {
		t.Errorf("retry annotations %v, want index 1 with failure count 1", retry.Annotations)
	}
	retry.Name, retry.UID, retry.Status = "i1-b", "i1-b", corev1.PodStatus{Phase: corev1.PodFailed}
	exited(1)(retry)
	h.add(retry)
	got = h.sync()
	if deref(got.Status.FailedIndexes, "") != "1" || got.Status.Failed != 2 || got.Status.Succeeded != 1 {
		t.Errorf("failedIndexes %q failed %d succeeded %d, want 1, 2, 1", deref(got.Status.FailedIndexes, ""), got.Status.Failed, got.Status.Succeeded)
	}
	wantCondition(t, got, batchv1.JobFailed, batchv1.JobReasonFailedIndexes, msgFailedIndexes)
	if h.api.created != 1 {
		t.Errorf("created %d pods in all; a failed index is not retried", h.api.created)
	}
}

// TestPerIndexBackoffDelay: a recent failure of an index delays its retry.
func TestPerIndexBackoffDelay(t *testing.T) {
	j := indexedJob(2, 2)
	j.Spec.BackoffLimitPerIndex = ptr[int32](3)
	h := newHarness(t, j)
	recent := func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, FinishedAt: metav1.NewTime(now)}}}}
	}
	h.add(pod("i0", corev1.PodRunning, index("0")), pod("i1", corev1.PodFailed, index("1"), recent))
	h.sync()
	if h.api.created != 0 {
		t.Errorf("created %d pods, want none within the back-off of index 1", h.api.created)
	}
}

// TestMaxFailedIndexes: more failed indexes than maxFailedIndexes fail the
// Job at once, stopping the other indexes.
func TestMaxFailedIndexes(t *testing.T) {
	j := indexedJob(4, 2)
	j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes = ptr[int32](0), ptr[int32](0)
	h := newHarness(t, j)
	h.add(pod("i0", corev1.PodFailed, index("0"), exited(1)), pod("i1", corev1.PodRunning, index("1")))
	got := h.sync()
	if deref(got.Status.FailedIndexes, "") != "0" || got.Status.Failed != 1 {
		t.Errorf("failedIndexes %q failed %d, want 0 and 1", deref(got.Status.FailedIndexes, ""), got.Status.Failed)
	}
	wantCondition(t, got, batchv1.JobFailureTarget, batchv1.JobReasonMaxFailedIndexesExceeded, msgMaxFailedIndexes)
	if h.api.created != 0 || !slices.Equal(h.api.deleted, []string{"i1"}) {
		t.Errorf("created %d, deleted %v; want none created and i1 deleted", h.api.created, h.api.deleted)
	}
}

// TestFailIndex: a FailIndex rule fails the index on its first failure,
// whatever retries backoffLimitPerIndex leaves.
func TestFailIndex(t *testing.T) {
	j := indexedJob(2, 2)
	j.Spec.BackoffLimitPerIndex = ptr[int32](1)
	j.Spec.PodFailurePolicy = policy(onExitCodes(batchv1.PodFailurePolicyActionFailIndex, batchv1.PodFailurePolicyOnExitCodesOpIn, 1))
	h := newHarness(t, j)
	h.add(pod("i0", corev1.PodSucceeded, index("0")), pod("i1", corev1.PodFailed, index("1"), exited(1)))
	got := h.sync()
	if deref(got.Status.FailedIndexes, "") != "1" || got.Status.Failed != 1 || got.Status.Succeeded != 1 || h.api.created != 0 {
		t.Errorf("failedIndexes %q failed %d succeeded %d created %d, want 1, 1, 1, 0", deref(got.Status.FailedIndexes, ""), got.Status.Failed, got.Status.Succeeded, h.api.created)
	}
	wantCondition(t, got, batchv1.JobFailed, batchv1.JobReasonFailedIndexes, msgFailedIndexes)
}

// TestSuccessPolicy: a met rule gives SuccessCriteriaMet (reason
// SuccessPolicy), the remaining pods are deleted, and Complete follows
// with the same reason once they are gone.
func TestSuccessPolicy(t *testing.T) {
	for _, tc := range []struct {
		name string
		rule batchv1.SuccessPolicyRule
	}{
		{"succeededIndexes", batchv1.SuccessPolicyRule{SucceededIndexes: ptr("0")}},
		{"succeededCount", batchv1.SuccessPolicyRule{SucceededCount: ptr[int32](1)}},
		{"both", batchv1.SuccessPolicyRule{SucceededIndexes: ptr("0-2"), SucceededCount: ptr[int32](1)}},
	} {
		j := indexedJob(5, 2)
		j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededIndexes: ptr("3-4")}, tc.rule}}
		h := newHarness(t, j)
		h.add(pod("i0", corev1.PodSucceeded, index("0")), pod("i1", corev1.PodRunning, index("1")))
		got := h.sync()
		wantCondition(t, got, batchv1.JobSuccessCriteriaMet, batchv1.JobReasonSuccessPolicy, "Matched rules at index 1")
		if condition(got, batchv1.JobComplete) != nil || !slices.Equal(h.api.deleted, []string{"i1"}) || h.api.created != 0 {
			t.Errorf("%s: deleted %v created %d conditions %+v; want i1 deleted and not yet Complete", tc.name, h.api.deleted, h.api.created, got.Status.Conditions)
		}
		h.remove("i1")
		got = h.sync()
		wantCondition(t, got, batchv1.JobComplete, batchv1.JobReasonSuccessPolicy, "Matched rules at index 1")
		if got.Status.CompletedIndexes != "0" || got.Status.Active != 0 || deref(got.Status.Terminating, 1) != 0 {
			t.Errorf("%s: status %+v", tc.name, got.Status)
		}
	}
}

// TestSuccessPolicyNotMet: a rule whose indexes did not all succeed is not
// met; with every index done the Job completes as usual.
func TestSuccessPolicyNotMet(t *testing.T) {
	j := indexedJob(2, 2)
	j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededIndexes: ptr("0-1")}}}
	h := newHarness(t, j)
	h.add(pod("i0", corev1.PodSucceeded, index("0")), pod("i1", corev1.PodRunning, index("1")))
	got := h.sync()
	if condition(got, batchv1.JobSuccessCriteriaMet) != nil {
		t.Errorf("SuccessCriteriaMet with index 1 running")
	}
	if _, ok := successPolicyMet(got, indexSet{0: {}, 1: {}}); !ok {
		t.Errorf("rule 0-1 not met with both indexes completed")
	}
	for i := range 3 {
		if msg, ok := successPolicyMet(&batchv1.Job{Spec: batchv1.JobSpec{Completions: ptr[int32](3),
			SuccessPolicy: &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededCount: ptr(int32(i + 1))}}}}}, indexSet{2: {}, 0: {}}); ok != (i+1 <= 2) {
			t.Errorf("succeededCount %d with 2 completed: met %v %q", i+1, ok, msg)
		}
	}
}
