package job

import (
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	policyv1 "kubecore.io/api/policy/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/util/retry"

	"kubecore.io/kubecore/test/integration/framework"
)

// TestPodFailurePolicyFailJob: a pod exiting with a code a FailJob rule
// lists fails the Job at once (FailureTarget, then Failed once no pod
// runs), far below its backoff limit; the defaults make pods be replaced
// only once failed.
func TestPodFailurePolicyFailJob(t *testing.T) {
	e := start(t, fast)
	j := e.newJob("failjob", "fail", ptr[int32](4), ptr[int32](2))
	j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
		Action:      batchv1.PodFailurePolicyActionFailJob,
		OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{1}},
	}}}
	created := e.create(t, j)
	if got := created.Spec.PodReplacementPolicy; got == nil || *got != batchv1.Failed {
		t.Errorf("podReplacementPolicy %v, want the default Failed with a podFailurePolicy", got)
	}
	got := e.waitCondition(t, "failjob", batchv1.JobFailed, 60*time.Second)
	for _, ct := range []batchv1.JobConditionType{batchv1.JobFailureTarget, batchv1.JobFailed} {
		c := conditionOf(got, ct)
		if c == nil || c.Reason != "PodFailurePolicy" || !strings.Contains(c.Message, "failed with exit code 1 matching FailJob rule at index 0") {
			t.Errorf("%s: %+v", ct, c)
		}
	}
	if got.Status.Failed == 0 || got.Status.Failed > 2 || got.Status.Active != 0 || deref(got.Status.Terminating) != 0 {
		t.Errorf("status %+v: want 1 or 2 failed pods (parallelism 2), no retry", got.Status)
	}
}

// TestBackoffLimitPerIndex runs every index: odd ones fail twice
// (backoffLimitPerIndex 1) and are listed in failedIndexes, even ones
// succeed; the Job then fails with FailedIndexes. Each retry carries the
// failures of its index in its annotation.
func TestBackoffLimitPerIndex(t *testing.T) {
	e := start(t, fast)
	j := e.newJob("perindex", "failOdd", ptr[int32](4), ptr[int32](2))
	j.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
	j.Spec.BackoffLimitPerIndex = ptr[int32](1)
	created := e.create(t, j)
	if *created.Spec.BackoffLimit != 1<<31-1 {
		t.Errorf("backoffLimit %d, want MaxInt32 with backoffLimitPerIndex", *created.Spec.BackoffLimit)
	}
	got := e.waitCondition(t, "perindex", batchv1.JobFailed, 60*time.Second)
	if c := conditionOf(got, batchv1.JobFailed); c.Reason != "FailedIndexes" || c.Message != "Job has failed indexes" {
		t.Errorf("Failed: %+v", c)
	}
	st := got.Status
	if deref(st.FailedIndexes) != "1,3" || st.CompletedIndexes != "0,2" || st.Failed != 4 || st.Succeeded != 2 {
		t.Errorf("status %+v failedIndexes %q", st, deref(st.FailedIndexes))
	}
	counts := map[string][]string{}
	for _, p := range e.pods(t, "perindex") {
		ix := p.Annotations[batchv1.JobCompletionIndexAnnotation]
		counts[ix] = append(counts[ix], p.Annotations[batchv1.JobIndexFailureCountAnnotation])
	}
	for ix, want := range map[string][]string{"0": {"0"}, "1": {"0", "1"}, "2": {"0"}, "3": {"0", "1"}} {
		got := counts[ix]
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("index %s: failure counts %v, want %v", ix, got, want)
		}
	}
}

// TestMaxFailedIndexes: the first failed index beyond maxFailedIndexes 0
// fails the Job; no other index runs.
func TestMaxFailedIndexes(t *testing.T) {
	e := start(t, fast)
	j := e.newJob("maxfailed", "fail", ptr[int32](4), ptr[int32](1))
	j.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
	j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes = ptr[int32](0), ptr[int32](0)
	e.create(t, j)
	got := e.waitCondition(t, "maxfailed", batchv1.JobFailed, 60*time.Second)
	if c := conditionOf(got, batchv1.JobFailed); c.Reason != "MaxFailedIndexesExceeded" || c.Message != "Job has exceeded the specified maximal number of failed indexes" {
		t.Errorf("Failed: %+v", c)
	}
	if deref(got.Status.FailedIndexes) != "0" || got.Status.Failed != 1 || len(e.pods(t, "maxfailed")) != 1 {
		t.Errorf("status %+v, %d pods", got.Status, len(e.pods(t, "maxfailed")))
	}
}

// TestSuccessPolicy: once index 0 succeeded the succeededIndexes rule is
// met; the pods of the other indexes are stopped and the Job completes
// with reason SuccessPolicy.
func TestSuccessPolicy(t *testing.T) {
	e := start(t, fast)
	j := e.newJob("early", "succeed0", ptr[int32](5), ptr[int32](2))
	j.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
	j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededIndexes: ptr("0")}}}
	e.create(t, j)
	got := e.waitCondition(t, "early", batchv1.JobComplete, 60*time.Second)
	for _, ct := range []batchv1.JobConditionType{batchv1.JobSuccessCriteriaMet, batchv1.JobComplete} {
		if c := conditionOf(got, ct); c == nil || c.Reason != "SuccessPolicy" || c.Message != "Matched rules at index 0" {
			t.Errorf("%s: %+v", ct, c)
		}
	}
	st := got.Status
	if st.CompletedIndexes != "0" || st.Succeeded != 1 || st.Active != 0 || deref(st.Terminating) != 0 || st.Ready == nil || *st.Ready != 0 {
		t.Errorf("status %+v", st)
	}
}

// TestIgnoreDisruption evicts a pod of a Job whose policy ignores
// failures with the DisruptionTarget condition: while the pod terminates
// it keeps its index and is not replaced (podReplacementPolicy Failed);
// once it has failed (the status a kubelet writes) it is not counted,
// even with backoffLimit 0, and its index runs again.
func TestIgnoreDisruption(t *testing.T) {
	e := start(t, fast)
	j := e.newJob("evicted", "run", ptr[int32](2), ptr[int32](2))
	j.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
	j.Spec.BackoffLimit = ptr[int32](0)
	j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
		Action:          batchv1.PodFailurePolicyActionIgnore,
		OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}},
	}}}
	e.create(t, j)
	framework.WaitFor(t, 30*time.Second, "2 ready pods", func() (bool, error) {
		j, err := e.cs.BatchV1().Jobs(e.ns).Get(e.ctx, "evicted", metav1.GetOptions{})
		return err == nil && j.Status.Ready != nil && *j.Status.Ready == 2, err
	})
	var victim corev1.Pod
	for _, p := range e.pods(t, "evicted") {
		if p.Annotations[batchv1.JobCompletionIndexAnnotation] == "0" {
			victim = p
		}
	}
	if err := e.cs.CoreV1().Pods(e.ns).Evict(e.ctx, &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: victim.Name}}); err != nil {
		t.Fatalf("evict %s: %v", victim.Name, err)
	}
	var got *batchv1.Job
	framework.WaitFor(t, 30*time.Second, "the evicted pod counted as terminating", func() (bool, error) {
		j, err := e.cs.BatchV1().Jobs(e.ns).Get(e.ctx, "evicted", metav1.GetOptions{})
		got = j
		return err == nil && deref(j.Status.Terminating) == 1, err
	})
	if got.Status.Active != 1 || got.Status.Failed != 0 {
		t.Errorf("status %+v while the pod terminates: want 1 active (no replacement yet), 0 failed", got.Status)
	}
	// What the kubelet writes once the container is killed, retried on
	// a conflict as a kubelet's write is (the Job controller writes the
	// pod too: its finalizer).
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		p, err := e.cs.CoreV1().Pods(e.ns).Get(e.ctx, victim.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(p.Status.Conditions, func(c corev1.PodCondition) bool { return c.Type == corev1.DisruptionTarget }) {
			t.Fatalf("evicted pod conditions %+v: no DisruptionTarget", p.Status.Conditions)
		}
		p.Status.Phase = corev1.PodFailed
		for i := range p.Status.ContainerStatuses {
			p.Status.ContainerStatuses[i].State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 143, Reason: "Error"}}
		}
		_, err = e.cs.CoreV1().Pods(e.ns).UpdateStatus(e.ctx, p, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "index 0 running again and the evicted pod gone", func() (bool, error) {
		var again, old bool
		for _, p := range e.pods(t, "evicted") {
			again = again || p.Name != victim.Name && p.Annotations[batchv1.JobCompletionIndexAnnotation] == "0"
			old = old || p.Name == victim.Name
		}
		return again && !old, nil
	})
	got, err = e.cs.BatchV1().Jobs(e.ns).Get(e.ctx, "evicted", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Status.Failed != 0 || hasCondition(got, batchv1.JobFailureTarget) || hasCondition(got, batchv1.JobFailed) {
		t.Errorf("status %+v: an ignored failure must not count", got.Status)
	}
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// TestInvalidPolicies: the API server refuses bad policies with 422
// Invalid naming the field, and keeps the immutable ones.
func TestInvalidPolicies(t *testing.T) {
	e, _ := startCluster(t)
	j := e.newJob("bad", "run", ptr[int32](2), ptr[int32](2))
	j.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
	j.Spec.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
		Action:      batchv1.PodFailurePolicyActionFailIndex,
		OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{0}},
	}}}
	j.Spec.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededIndexes: ptr("2")}}}
	_, err := e.cs.BatchV1().Jobs(e.ns).Create(e.ctx, j, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("create: %v, want 422 Invalid", err)
	}
	var fields []string
	if st, ok := err.(apierrors.APIStatus); ok && st.Status().Details != nil {
		for _, c := range st.Status().Details.Causes {
			fields = append(fields, c.Field)
		}
	}
	for _, want := range []string{"spec.podFailurePolicy.rules[0].action", "spec.podFailurePolicy.rules[0].onExitCodes.values[0]", "spec.successPolicy.rules[0].succeededIndexes"} {
		if !slices.Contains(fields, want) {
			t.Errorf("causes %v lack %s", fields, want)
		}
	}

	ok := e.newJob("ok", "run", ptr[int32](2), ptr[int32](2))
	ok.Spec.Suspend = ptr(true)
	ok.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
	ok.Spec.BackoffLimitPerIndex = ptr[int32](1)
	e.create(t, ok)
	patch := []byte(`{"spec":{"backoffLimitPerIndex":2}}`)
	if _, err := e.cs.BatchV1().Jobs(e.ns).Patch(e.ctx, "ok", types.MergePatchType, patch, metav1.PatchOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.backoffLimitPerIndex: Invalid value: 2: field is immutable") {
		t.Errorf("patch backoffLimitPerIndex: %v, want field is immutable", err)
	}
	patch = []byte(`{"spec":{"maxFailedIndexes":1}}`)
	if _, err := e.cs.BatchV1().Jobs(e.ns).Patch(e.ctx, "ok", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Errorf("patch maxFailedIndexes: %v, want it mutable", err)
	}
}
