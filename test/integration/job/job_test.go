package job

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/informers"

	"kubecore.io/kubecore/pkg/controller/job"
	"kubecore.io/kubecore/test/integration/framework"
)

// fast makes the failure back-off short enough for tests.
var fast = job.Options{PodFailureBackOff: 200 * time.Millisecond, MaxPodFailureBackOff: 2 * time.Second}

// TestCompletions runs 5 completions 2 at a time: never more than 2 pods
// run, every success is counted once, SuccessCriteriaMet comes with
// Complete, and no pod keeps the tracking finalizer.
func TestCompletions(t *testing.T) {
	e := start(t, fast)
	peak := e.watchActive(t)
	created := e.create(t, e.newJob("five", "succeed", ptr[int32](5), ptr[int32](2)))
	// The strategy generated the selector and labels, and defaults applied.
	if got := created.Spec.Selector.MatchLabels[batchv1.ControllerUIDLabel]; got != string(created.UID) {
		t.Errorf("selector %v, want controller-uid %s", created.Spec.Selector, created.UID)
	}
	for _, k := range []string{batchv1.ControllerUIDLabel, batchv1.LegacyControllerUIDLabel, batchv1.JobNameLabel, batchv1.LegacyJobNameLabel} {
		if created.Spec.Template.Labels[k] == "" || created.Labels[k] == "" {
			t.Errorf("label %s missing: template %v, job %v", k, created.Spec.Template.Labels, created.Labels)
		}
	}
	if *created.Spec.BackoffLimit != 6 || *created.Spec.CompletionMode != batchv1.NonIndexedCompletion || *created.Spec.Suspend || created.Generation != 1 {
		t.Errorf("defaults: %+v generation %d", created.Spec, created.Generation)
	}
	j := e.waitCondition(t, "five", batchv1.JobComplete, 60*time.Second)
	st := j.Status
	if st.Succeeded != 5 || st.Failed != 0 || st.Active != 0 || st.CompletionTime == nil || st.StartTime == nil ||
		st.UncountedTerminatedPods == nil || len(st.UncountedTerminatedPods.Succeeded)+len(st.UncountedTerminatedPods.Failed) != 0 ||
		st.Ready == nil || *st.Ready != 0 || st.Terminating == nil || *st.Terminating != 0 {
		t.Errorf("status %+v", st)
	}
	c := conditionOf(j, batchv1.JobSuccessCriteriaMet)
	if c == nil || c.Status != corev1.ConditionTrue || c.Reason != "CompletionsReached" {
		t.Errorf("SuccessCriteriaMet: %+v", c)
	}
	if c := conditionOf(j, batchv1.JobComplete); c.Reason != "CompletionsReached" || c.Message != "Reached expected number of succeeded pods" {
		t.Errorf("Complete: %+v", c)
	}
	pods := e.pods(t, "five")
	if len(pods) != 5 {
		t.Errorf("%d pods, want 5", len(pods))
	}
	for _, p := range pods {
		if slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer) || p.Status.Phase != corev1.PodSucceeded {
			t.Errorf("pod %s: phase %s finalizers %v", p.Name, p.Status.Phase, p.Finalizers)
		}
	}
	if m := peak(); m > 2 {
		t.Errorf("%d pods ran at once, parallelism is 2", m)
	}
}

// TestBackoffLimit fails every pod: the Job retries with a doubling delay
// and fails with BackoffLimitExceeded after backoffLimit+1 failures.
func TestBackoffLimit(t *testing.T) {
	e := start(t, fast)
	creations := e.watchCreations(t)
	j := e.newJob("doomed", "fail", nil, nil)
	j.Spec.BackoffLimit = ptr[int32](3)
	e.create(t, j)
	got := e.waitCondition(t, "doomed", batchv1.JobFailed, 60*time.Second)
	if got.Status.Failed != 4 || got.Status.Succeeded != 0 || got.Status.CompletionTime != nil {
		t.Errorf("status %+v", got.Status)
	}
	for _, ct := range []batchv1.JobConditionType{batchv1.JobFailureTarget, batchv1.JobFailed} {
		c := conditionOf(got, ct)
		if c == nil || c.Reason != "BackoffLimitExceeded" || c.Message != "Job has reached the specified backoff limit" {
			t.Errorf("%s: %+v", ct, c)
		}
	}
	created := creations()
	if len(created) != 4 {
		t.Fatalf("%d pods created, want 4", len(created))
	}
	// Each retry waits at least twice as long as the one before: 0.2,
	// 0.4, 0.8 s after the failure that came after the previous creation.
	for i := 1; i < len(created); i++ {
		gap, min := created[i].Sub(created[i-1]), fast.PodFailureBackOff<<(i-1)
		if gap < min {
			t.Errorf("attempt %d came %s after the previous one, want at least %s", i+1, gap, min)
		}
	}
}

// TestActiveDeadline: pods that never end are stopped once the deadline
// passes, and the Job fails with DeadlineExceeded.
func TestActiveDeadline(t *testing.T) {
	e := start(t, fast)
	j := e.newJob("slow", "run", ptr[int32](2), ptr[int32](2))
	j.Spec.ActiveDeadlineSeconds = ptr[int64](2)
	e.create(t, j)
	got := e.waitCondition(t, "slow", batchv1.JobFailed, 30*time.Second)
	if c := conditionOf(got, batchv1.JobFailed); c.Reason != "DeadlineExceeded" || c.Message != "Job was active longer than specified deadline" {
		t.Errorf("Failed: %+v", c)
	}
	if d := conditionOf(got, batchv1.JobFailed).LastTransitionTime.Sub(got.Status.StartTime.Time); d < 2*time.Second {
		t.Errorf("failed %s after start, deadline is 2s", d)
	}
	if got.Status.Active != 0 || got.Status.Failed != 2 {
		t.Errorf("status %+v", got.Status)
	}
	framework.WaitFor(t, 20*time.Second, "the pods gone", func() (bool, error) {
		return len(e.pods(t, "slow")) == 0, nil
	})
}

// TestSuspend: a Job created suspended makes no pods; resumed it runs;
// suspended again its pods are deleted without counting as failures.
func TestSuspend(t *testing.T) {
	e := start(t, fast)
	j := e.newJob("paused", "run", ptr[int32](3), ptr[int32](3))
	j.Spec.Suspend = ptr(true)
	e.create(t, j)
	got := e.waitCondition(t, "paused", batchv1.JobSuspended, 20*time.Second)
	if c := conditionOf(got, batchv1.JobSuspended); c.Reason != "JobSuspended" || got.Status.StartTime != nil {
		t.Errorf("suspended: %+v start %v", c, got.Status.StartTime)
	}
	time.Sleep(500 * time.Millisecond)
	if n := len(e.pods(t, "paused")); n != 0 {
		t.Fatalf("a suspended job made %d pods", n)
	}
	setSuspend := func(v bool) {
		t.Helper()
		patch := []byte(`{"spec":{"suspend":` + strconv.FormatBool(v) + `}}`)
		if _, err := e.cs.BatchV1().Jobs(e.ns).Patch(e.ctx, "paused", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	setSuspend(false)
	framework.WaitFor(t, 20*time.Second, "3 ready pods after resuming", func() (bool, error) {
		j, err := e.cs.BatchV1().Jobs(e.ns).Get(e.ctx, "paused", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		got = j
		return j.Status.Ready != nil && *j.Status.Ready == 3 && j.Status.Active == 3, nil
	})
	if c := conditionOf(got, batchv1.JobSuspended); c.Status != corev1.ConditionFalse || c.Reason != "JobResumed" || got.Status.StartTime == nil {
		t.Errorf("resumed: %+v start %v", c, got.Status.StartTime)
	}
	setSuspend(true)
	framework.WaitFor(t, 20*time.Second, "pods gone after suspending again", func() (bool, error) {
		j, err := e.cs.BatchV1().Jobs(e.ns).Get(e.ctx, "paused", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		got = j
		return len(e.pods(t, "paused")) == 0 && j.Status.Active == 0 && hasCondition(j, batchv1.JobSuspended), nil
	})
	if got.Status.Failed != 0 {
		t.Errorf("suspending counted %d failures", got.Status.Failed)
	}
}

// TestIndexed runs an Indexed Job: one pod per index with the index in its
// annotation, label, hostname and environment; completedIndexes lists all.
func TestIndexed(t *testing.T) {
	e := start(t, fast)
	j := e.newJob("indexed", "succeed", ptr[int32](4), ptr[int32](2))
	j.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
	e.create(t, j)
	got := e.waitCondition(t, "indexed", batchv1.JobComplete, 60*time.Second)
	if got.Status.CompletedIndexes != "0-3" || got.Status.Succeeded != 4 {
		t.Errorf("status %+v", got.Status)
	}
	seen := map[string]bool{}
	for _, p := range e.pods(t, "indexed") {
		ix := p.Annotations[batchv1.JobCompletionIndexAnnotation]
		seen[ix] = true
		env := p.Spec.Containers[0].Env
		if p.Labels[batchv1.JobCompletionIndexLabel] != ix || p.Spec.Hostname != "indexed-"+ix || len(env) != 1 ||
			env[0].Name != "JOB_COMPLETION_INDEX" || env[0].ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
			t.Errorf("pod %s: labels %v hostname %q env %+v", p.Name, p.Labels, p.Spec.Hostname, env)
		}
	}
	if len(seen) != 4 || !seen["0"] || !seen["3"] {
		t.Errorf("indexes %v", seen)
	}
}

// TestDeletedPodCountsAsFailed: a running pod deleted by a user is counted
// as failed (once) and replaced; its finalizer goes so it disappears.
func TestDeletedPodCountsAsFailed(t *testing.T) {
	e := start(t, fast)
	e.create(t, e.newJob("victim", "run", ptr[int32](1), ptr[int32](1)))
	var first corev1.Pod
	framework.WaitFor(t, 20*time.Second, "a running pod", func() (bool, error) {
		for _, p := range e.pods(t, "victim") {
			if p.Status.Phase == corev1.PodRunning {
				first = p
				return true, nil
			}
		}
		return false, nil
	})
	if err := e.cs.CoreV1().Pods(e.ns).Delete(e.ctx, first.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 20*time.Second, "the deleted pod counted and replaced", func() (bool, error) {
		j, err := e.cs.BatchV1().Jobs(e.ns).Get(e.ctx, "victim", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		_, err = e.cs.CoreV1().Pods(e.ns).Get(e.ctx, first.Name, metav1.GetOptions{})
		return j.Status.Failed == 1 && j.Status.Active == 1 && apierrors.IsNotFound(err), nil
	})
	time.Sleep(500 * time.Millisecond)
	if j, err := e.cs.BatchV1().Jobs(e.ns).Get(e.ctx, "victim", metav1.GetOptions{}); err != nil || j.Status.Failed != 1 {
		t.Fatalf("failed counted again: %+v %v", j.Status, err)
	}
}

// TestTTLAndOrphans: a finished Job with ttlSecondsAfterFinished is
// deleted with its pods; a running Job deleted by a user leaves no pod
// stuck on the tracking finalizer.
func TestTTLAndOrphans(t *testing.T) {
	e := start(t, fast)
	j := e.newJob("short-lived", "succeed", ptr[int32](2), ptr[int32](2))
	j.Spec.TTLSecondsAfterFinished = ptr[int32](1)
	e.create(t, j)
	e.create(t, e.newJob("abandoned", "run", ptr[int32](2), ptr[int32](2)))
	e.waitCondition(t, "short-lived", batchv1.JobComplete, 30*time.Second)
	framework.WaitFor(t, 30*time.Second, "the finished job and its pods deleted", func() (bool, error) {
		_, err := e.cs.BatchV1().Jobs(e.ns).Get(e.ctx, "short-lived", metav1.GetOptions{})
		return apierrors.IsNotFound(err) && len(e.pods(t, "short-lived")) == 0, nil
	})
	framework.WaitFor(t, 20*time.Second, "2 running pods", func() (bool, error) {
		j, err := e.cs.BatchV1().Jobs(e.ns).Get(e.ctx, "abandoned", metav1.GetOptions{})
		return err == nil && j.Status.Ready != nil && *j.Status.Ready == 2, err
	})
	background := metav1.DeletePropagationBackground
	if err := e.cs.BatchV1().Jobs(e.ns).Delete(e.ctx, "abandoned", metav1.DeleteOptions{PropagationPolicy: &background}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "the deleted job's pods gone", func() (bool, error) {
		return len(e.pods(t, "abandoned")) == 0, nil
	})
}

// TestDeleteOrphansByDefault: batch/v1 keeps Kubernetes' old default, a
// Job deleted without a propagation policy leaves its pods behind, owned
// by nobody.
func TestDeleteOrphansByDefault(t *testing.T) {
	e := start(t, fast)
	e.create(t, e.newJob("left", "run", ptr[int32](2), ptr[int32](2)))
	framework.WaitFor(t, 20*time.Second, "2 running pods", func() (bool, error) {
		j, err := e.cs.BatchV1().Jobs(e.ns).Get(e.ctx, "left", metav1.GetOptions{})
		return err == nil && j.Status.Ready != nil && *j.Status.Ready == 2, err
	})
	if err := e.cs.BatchV1().Jobs(e.ns).Delete(e.ctx, "left", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, 30*time.Second, "the job gone and its pods orphaned", func() (bool, error) {
		if _, err := e.cs.BatchV1().Jobs(e.ns).Get(e.ctx, "left", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			return false, err
		}
		pods, err := e.cs.CoreV1().Pods(e.ns).List(e.ctx, metav1.ListOptions{LabelSelector: "job-name=left"})
		if err != nil {
			return false, err
		}
		for _, p := range pods.Items {
			if len(p.OwnerReferences) > 0 || p.DeletionTimestamp != nil {
				return false, nil
			}
		}
		return len(pods.Items) == 2, nil
	})
}

// TestValidation refuses bad Jobs with 422 and the field path.
func TestValidation(t *testing.T) {
	e := start(t, fast)
	for name, tc := range map[string]struct {
		mutate func(*batchv1.Job)
		want   string
	}{
		"restart always": {func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways }, "spec.template.spec.restartPolicy"},
		"negative":       {func(j *batchv1.Job) { j.Spec.Parallelism = ptr[int32](-1) }, "spec.parallelism"},
		"indexed no comp": {func(j *batchv1.Job) {
			j.Spec.CompletionMode, j.Spec.Parallelism = ptr(batchv1.IndexedCompletion), ptr[int32](2)
		}, "spec.completions"},
		"bad mode": {func(j *batchv1.Job) { j.Spec.CompletionMode = ptr(batchv1.CompletionMode("Sometimes")) }, "spec.completionMode"},
		"foreign selector": {func(j *batchv1.Job) {
			j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "other"}}
		}, "spec.template.metadata.labels"},
	} {
		j := e.newJob("bad", "run", nil, nil)
		tc.mutate(j)
		_, err := e.cs.BatchV1().Jobs(e.ns).Create(e.ctx, j, metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want Invalid naming %s", name, err, tc.want)
		}
	}
	j := e.create(t, e.newJob("good", "run", ptr[int32](1), nil))
	j.Spec.Template.Spec.Containers[0].Image = "other"
	if _, err := e.cs.BatchV1().Jobs(e.ns).Update(e.ctx, j, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.template") {
		t.Errorf("template update: %v, want Invalid", err)
	}
}

// TestCountsSurviveControllerRestart stops the Job controller while its
// pods finish and are deleted: the tracking finalizer keeps them until a
// new controller has counted them, so the Job completes with exactly its
// completions and no pod more.
func TestCountsSurviveControllerRestart(t *testing.T) {
	e, factory := startCluster(t)
	first := e.newController(t, factory, fast)
	ctx, stop := context.WithCancel(context.Background())
	factory.Start(ctx)
	done := make(chan error, 1)
	go func() { done <- first.Run(ctx, 2) }()
	e.create(t, e.newJob("resilient", "run", ptr[int32](6), ptr[int32](3)))
	framework.WaitFor(t, 20*time.Second, "3 pods created", func() (bool, error) { return len(e.pods(t, "resilient")) == 3, nil })
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	factory.Shutdown()
	// While no controller runs, the pods succeed and a user deletes them.
	for _, p := range e.pods(t, "resilient") {
		e.succeed(t, p.Name)
	}
	framework.WaitFor(t, 20*time.Second, "the pods succeeded", func() (bool, error) {
		for _, p := range e.pods(t, "resilient") {
			if p.Status.Phase != corev1.PodSucceeded {
				return false, nil
			}
		}
		return true, nil
	})
	if err := e.cs.CoreV1().Pods(e.ns).DeleteCollection(e.ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	pods := e.pods(t, "resilient")
	if len(pods) != 3 || slices.ContainsFunc(pods, func(p corev1.Pod) bool { return p.DeletionTimestamp == nil }) {
		t.Fatalf("the finalizer did not hold the deleted pods: %d left", len(pods))
	}
	factory2 := informers.NewSharedInformerFactory(e.cs)
	second := e.newController(t, factory2, fast)
	framework.RunControllers(t, factory2, func(ctx context.Context) error { return second.Run(ctx, 2) })
	framework.WaitFor(t, 20*time.Second, "the 3 deleted pods counted", func() (bool, error) {
		j, err := e.cs.BatchV1().Jobs(e.ns).Get(e.ctx, "resilient", metav1.GetOptions{})
		return err == nil && j.Status.Succeeded == 3 && j.Status.Active == 3, err
	})
	for _, p := range e.pods(t, "resilient") {
		if p.DeletionTimestamp == nil {
			e.succeed(t, p.Name)
		}
	}
	got := e.waitCondition(t, "resilient", batchv1.JobComplete, 30*time.Second)
	if got.Status.Succeeded != 6 || got.Status.Failed != 0 {
		t.Errorf("status %+v", got.Status)
	}
	if pods := e.pods(t, "resilient"); len(pods) != 3 {
		for _, p := range pods {
			t.Logf("pod %s %s deleting=%v finalizers=%v created=%s", p.Name, p.Status.Phase, p.DeletionTimestamp != nil, p.Finalizers, p.CreationTimestamp)
		}
		t.Errorf("%d pods left, want the 3 of the second half", len(pods))
	}
}

// succeed tells the fake node to end the named pod successfully.
func (e *env) succeed(t *testing.T, pod string) {
	t.Helper()
	patch := []byte(`{"metadata":{"annotations":{"` + outcomeAnnotation + `":"succeed"}}}`)
	if _, err := e.cs.CoreV1().Pods(e.ns).Patch(e.ctx, pod, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
}
