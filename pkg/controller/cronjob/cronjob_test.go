package cronjob

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/tools/cache"

	"kubecore.io/kubecore/pkg/apis/batch/cron"
)

func ptr[T any](v T) *T { return &v }

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// fakeCluster stands in for the API server, the informers' caches and the
// clock.
type fakeCluster struct {
	clock   time.Time
	cjs     *cache.Indexer[*batchv1.CronJob]
	jobs    *cache.Indexer[*batchv1.Job]
	deleted []string
	events  []string
	uid     int
	// conflicts is how many status updates to refuse, as the API server
	// does after a concurrent write.
	conflicts int
}

func (f *fakeCluster) Create(_ context.Context, j *batchv1.Job, _ metav1.CreateOptions) (*batchv1.Job, error) {
	if _, ok := f.jobs.GetByKey(cache.ObjectKey(j.Namespace, j.Name)); ok {
		return nil, apierrors.NewAlreadyExists(batchv1.Resource("jobs"), j.Name)
	}
	out := j.DeepCopy()
	f.uid++
	out.UID = types.UID(fmt.Sprintf("job-%d", f.uid))
	out.CreationTimestamp = metav1.NewTime(f.clock)
	return out, f.jobs.Add(out)
}

func (f *fakeCluster) Get(_ context.Context, name string, _ metav1.GetOptions) (*batchv1.Job, error) {
	if j, ok := f.jobs.GetByKey(cache.ObjectKey("ns", name)); ok {
		return j, nil
	}
	return nil, apierrors.NewNotFound(batchv1.Resource("jobs"), name)
}

func (f *fakeCluster) Delete(_ context.Context, name string, _ metav1.DeleteOptions) error {
	j, ok := f.jobs.GetByKey(cache.ObjectKey("ns", name))
	if !ok {
		return apierrors.NewNotFound(batchv1.Resource("jobs"), name)
	}
	f.deleted = append(f.deleted, name)
	return f.jobs.Delete(j)
}

func (f *fakeCluster) UpdateStatus(_ context.Context, cj *batchv1.CronJob, _ metav1.UpdateOptions) (*batchv1.CronJob, error) {
	if f.conflicts > 0 {
		f.conflicts--
		return nil, apierrors.NewConflict(batchv1.Resource("cronjobs"), cj.Name, fmt.Errorf("the object has been modified"))
	}
	return cj, f.cjs.Update(cj.DeepCopy())
}

func (f *fakeCluster) Event(_ runtime.Object, _, reason, message string) {
	f.events = append(f.events, reason+": "+message)
}
func (f *fakeCluster) Eventf(obj runtime.Object, eventType, reason, format string, args ...any) {
	f.Event(obj, eventType, reason, fmt.Sprintf(format, args...))
}
func (f *fakeCluster) AnnotatedEventf(obj runtime.Object, _ map[string]string, eventType, reason, format string, args ...any) {
	f.Eventf(obj, eventType, reason, format, args...)
}

func newFake(t *testing.T, cj *batchv1.CronJob, now string) (*fakeCluster, *Controller) {
	t.Helper()
	f := &fakeCluster{clock: at(now), cjs: cache.NewIndexer[*batchv1.CronJob](), jobs: cache.NewIndexer[*batchv1.Job]()}
	if err := f.cjs.Add(cj); err != nil {
		t.Fatal(err)
	}
	c := newController(func(string) JobClient { return f }, func(string) CronJobClient { return f }, f,
		cache.NewLister(f.cjs, batchv1.Resource("cronjobs")), cache.NewLister(f.jobs, batchv1.Resource("jobs")),
		Options{Now: func() time.Time { return f.clock }})
	return f, c
}

func newCronJob(schedule string, policy batchv1.ConcurrencyPolicy) *batchv1.CronJob {
	return &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "tick", UID: "cj-uid", CreationTimestamp: metav1.NewTime(at("2026-11-24T12:00:30Z"))},
		Spec: batchv1.CronJobSpec{
			Schedule: schedule, ConcurrencyPolicy: policy, SuccessfulJobsHistoryLimit: ptr[int32](3), FailedJobsHistoryLimit: ptr[int32](1),
			JobTemplate: batchv1.JobTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"team": "a"}},
				Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "i"}},
				}}},
			},
		},
	}
}

// step moves the clock to now and syncs.
func (f *fakeCluster) step(t *testing.T, c *Controller, now string) *batchv1.CronJob {
	t.Helper()
	f.clock = at(now)
	if err := c.sync(context.Background(), "ns/tick"); err != nil {
		t.Fatalf("sync at %s: %v", now, err)
	}
	cj, _ := f.cjs.GetByKey("ns/tick")
	return cj
}

func (f *fakeCluster) jobNames() []string {
	var out []string
	for _, j := range f.jobs.List() {
		out = append(out, j.Name)
	}
	slices.Sort(out)
	return out
}

func (f *fakeCluster) finish(t *testing.T, name string, ct batchv1.JobConditionType, when string) {
	t.Helper()
	j, ok := f.jobs.GetByKey("ns/" + name)
	if !ok {
		t.Fatalf("no job %s", name)
	}
	j = j.DeepCopy()
	ts := metav1.NewTime(at(when))
	j.Status.Conditions = []batchv1.JobCondition{{Type: ct, Status: corev1.ConditionTrue}}
	j.Status.StartTime = &ts
	if ct == batchv1.JobComplete {
		j.Status.CompletionTime = &ts
	}
	if err := f.jobs.Update(j); err != nil {
		t.Fatal(err)
	}
}

// minute is the Job name suffix of a time.
func minute(s string) string { return fmt.Sprint(at(s).Unix() / 60) }

func TestScheduleForbid(t *testing.T) {
	f, c := newFake(t, newCronJob("*/5 * * * *", batchv1.ForbidConcurrent), "2026-11-24T12:03:00Z")
	if cj := f.step(t, c, "2026-11-24T12:03:00Z"); len(f.jobNames()) != 0 || cj.Status.LastScheduleTime != nil {
		t.Fatalf("a job before the first start time: %v", f.jobNames())
	}
	cj := f.step(t, c, "2026-11-24T12:05:10Z")
	first := "tick-" + minute("2026-11-24T12:05:00Z")
	if got := f.jobNames(); !slices.Equal(got, []string{first}) {
		t.Fatalf("jobs %v, want [%s]", got, first)
	}
	j, _ := f.jobs.GetByKey("ns/" + first)
	if j.Annotations[batchv1.CronJobScheduledTimestampAnnotation] != "2026-11-24T12:05:00Z" || j.Labels["team"] != "a" ||
		!metav1.IsControlledBy(j, cj) || j.Spec.Template.Spec.Containers[0].Image != "i" {
		t.Errorf("job %+v", j.ObjectMeta)
	}
	if len(cj.Status.Active) != 1 || cj.Status.Active[0].Name != first || !cj.Status.LastScheduleTime.Time.Equal(at("2026-11-24T12:05:00Z")) {
		t.Errorf("status %+v", cj.Status)
	}
	f.step(t, c, "2026-11-24T12:06:00Z")
	if n := len(f.jobNames()); n != 1 {
		t.Fatalf("%d jobs after a second sync in the same period", n)
	}
	// Forbid: the 12:10 run waits while the first one runs ...
	f.step(t, c, "2026-11-24T12:10:05Z")
	if n := len(f.jobNames()); n != 1 || !slices.ContainsFunc(f.events, func(e string) bool { return strings.HasPrefix(e, "JobAlreadyActive") }) {
		t.Fatalf("forbid started a job: %v, events %v", f.jobNames(), f.events)
	}
	// ... and starts once it finished, still within its period.
	f.finish(t, first, batchv1.JobComplete, "2026-11-24T12:11:00Z")
	cj = f.step(t, c, "2026-11-24T12:11:30Z")
	second := "tick-" + minute("2026-11-24T12:10:00Z")
	if got := f.jobNames(); !slices.Equal(got, []string{first, second}) {
		t.Fatalf("jobs %v", got)
	}
	if len(cj.Status.Active) != 1 || cj.Status.Active[0].Name != second || !cj.Status.LastSuccessfulTime.Time.Equal(at("2026-11-24T12:11:00Z")) {
		t.Errorf("status %+v", cj.Status)
	}
}

// A status update lost to a conflict after the Job was made: the next sync
// finds the Job in the cache and records the run all the same.
func TestRunRecordedAfterLostStatusUpdate(t *testing.T) {
	f, c := newFake(t, newCronJob("*/5 * * * *", batchv1.AllowConcurrent), "2026-11-24T12:03:00Z")
	f.conflicts = 1
	f.clock = at("2026-11-24T12:05:10Z")
	if err := c.sync(context.Background(), "ns/tick"); !apierrors.IsConflict(err) {
		t.Fatalf("sync with a refused status update: %v", err)
	}
	run := "tick-" + minute("2026-11-24T12:05:00Z")
	cj := f.step(t, c, "2026-11-24T12:05:20Z")
	if got := f.jobNames(); !slices.Equal(got, []string{run}) {
		t.Fatalf("jobs %v, want [%s]", got, run)
	}
	if len(cj.Status.Active) != 1 || cj.Status.Active[0].Name != run || cj.Status.LastScheduleTime == nil ||
		!cj.Status.LastScheduleTime.Time.Equal(at("2026-11-24T12:05:00Z")) {
		t.Fatalf("status after the retry %+v", cj.Status)
	}
	// Finished before the retry: not active, but scheduled all the same.
	f, c = newFake(t, newCronJob("*/5 * * * *", batchv1.AllowConcurrent), "2026-11-24T12:03:00Z")
	f.conflicts = 1
	f.clock = at("2026-11-24T12:05:10Z")
	_ = c.sync(context.Background(), "ns/tick")
	f.finish(t, run, batchv1.JobComplete, "2026-11-24T12:05:15Z")
	cj = f.step(t, c, "2026-11-24T12:05:20Z")
	if len(cj.Status.Active) != 0 || cj.Status.LastScheduleTime == nil || cj.Status.LastSuccessfulTime == nil {
		t.Fatalf("status after the retry of a finished run %+v", cj.Status)
	}
}

func TestScheduleReplaceAndAllow(t *testing.T) {
	f, c := newFake(t, newCronJob("* * * * *", batchv1.ReplaceConcurrent), "2026-11-24T12:01:00Z")
	f.step(t, c, "2026-11-24T12:01:00Z")
	cj := f.step(t, c, "2026-11-24T12:02:00Z")
	want := "tick-" + minute("2026-11-24T12:02:00Z")
	if got := f.jobNames(); !slices.Equal(got, []string{want}) || len(f.deleted) != 1 || len(cj.Status.Active) != 1 {
		t.Fatalf("replace: jobs %v deleted %v active %v", got, f.deleted, cj.Status.Active)
	}

	f, c = newFake(t, newCronJob("* * * * *", batchv1.AllowConcurrent), "2026-11-24T12:01:00Z")
	f.step(t, c, "2026-11-24T12:01:00Z")
	cj = f.step(t, c, "2026-11-24T12:02:00Z")
	if len(f.jobNames()) != 2 || len(cj.Status.Active) != 2 || len(f.deleted) != 0 {
		t.Fatalf("allow: jobs %v active %v", f.jobNames(), cj.Status.Active)
	}
}

func TestMissedSchedules(t *testing.T) {
	cj := newCronJob("* * * * *", batchv1.AllowConcurrent)
	// Down for three hours: only the latest missed run starts, with a
	// warning about the 180 missed ones.
	f, c := newFake(t, cj, "2026-11-24T15:00:30Z")
	f.step(t, c, "2026-11-24T15:00:30Z")
	if got := f.jobNames(); !slices.Equal(got, []string{"tick-" + minute("2026-11-24T15:00:00Z")}) {
		t.Fatalf("jobs %v", got)
	}
	if !slices.ContainsFunc(f.events, func(e string) bool { return strings.HasPrefix(e, "TooManyMissedTimes") }) {
		t.Errorf("no TooManyMissedTimes event: %v", f.events)
	}
	// With a starting deadline, start times older than it are skipped.
	cj = newCronJob("0 * * * *", batchv1.AllowConcurrent)
	cj.Spec.StartingDeadlineSeconds = ptr[int64](60)
	f, c = newFake(t, cj, "2026-11-24T13:05:00Z")
	f.step(t, c, "2026-11-24T13:05:00Z")
	if n := len(f.jobNames()); n != 0 {
		t.Fatalf("started %v past the deadline", f.jobNames())
	}
	f.step(t, c, "2026-11-24T14:00:59Z")
	if n := len(f.jobNames()); n != 1 {
		t.Fatalf("jobs %v within the deadline", f.jobNames())
	}
}

func TestSuspendAndTimeZone(t *testing.T) {
	cj := newCronJob("0 9 * * *", batchv1.AllowConcurrent)
	cj.Spec.Suspend = ptr(true)
	cj.Spec.TimeZone = ptr("Asia/Tokyo")
	f, c := newFake(t, cj, "2026-11-25T00:00:30Z")
	f.step(t, c, "2026-11-25T00:00:30Z")
	if n := len(f.jobNames()); n != 0 {
		t.Fatalf("a suspended cronjob started %v", f.jobNames())
	}
	cj, _ = f.cjs.GetByKey("ns/tick")
	cj = cj.DeepCopy()
	cj.Spec.Suspend = ptr(false)
	if err := f.cjs.Update(cj); err != nil {
		t.Fatal(err)
	}
	f.step(t, c, "2026-11-25T00:00:40Z")
	name := "tick-" + minute("2026-11-25T00:00:00Z")
	j, ok := f.jobs.GetByKey("ns/" + name)
	if !ok {
		t.Fatalf("jobs %v, want %s (09:00 in Tokyo)", f.jobNames(), name)
	}
	if got := j.Annotations[batchv1.CronJobScheduledTimestampAnnotation]; got != "2026-11-25T09:00:00+09:00" {
		t.Errorf("scheduled timestamp %q", got)
	}
}

func TestHistoryLimits(t *testing.T) {
	f, c := newFake(t, newCronJob("* * * * *", batchv1.AllowConcurrent), "2026-11-24T12:01:00Z")
	var names []string
	for i := 1; i <= 7; i++ {
		now := fmt.Sprintf("2026-11-24T12:%02d:00Z", i)
		f.step(t, c, now)
		name := "tick-" + minute(now)
		names = append(names, name)
		outcome := batchv1.JobComplete
		if i >= 6 {
			outcome = batchv1.JobFailed
		}
		f.finish(t, name, outcome, now)
	}
	f.step(t, c, "2026-11-24T12:07:30Z")
	// 5 succeeded (keep 3), 2 failed (keep 1): the oldest go.
	want := []string{names[2], names[3], names[4], names[6]}
	slices.Sort(want)
	if got := f.jobNames(); !slices.Equal(got, want) {
		t.Fatalf("jobs %v, want %v (deleted %v)", got, want, f.deleted)
	}
}

// Jobs that started within the same second (a catch-up, or a clock that
// jumped) are told apart by their scheduled minute: the older goes.
func TestHistoryLimitsSameSecond(t *testing.T) {
	for range 10 { // the lister's order varies
		f, c := newFake(t, newCronJob("* * * * *", batchv1.AllowConcurrent), "2026-11-24T12:01:00Z")
		var names []string
		for i := 1; i <= 5; i++ {
			now := fmt.Sprintf("2026-11-24T12:%02d:00Z", i)
			f.step(t, c, now)
			names = append(names, "tick-"+minute(now))
		}
		for _, name := range names {
			f.finish(t, name, batchv1.JobComplete, "2026-11-24T12:05:00Z")
		}
		f.step(t, c, "2026-11-24T12:05:30Z")
		// Keep 3: the last three scheduled.
		if got := f.jobNames(); !slices.Equal(got, names[2:]) {
			t.Fatalf("jobs %v, want %v", got, names[2:])
		}
	}
}

func TestMostRecentSchedule(t *testing.T) {
	sched, err := cron.Parse("*/15 * * * *")
	if err != nil {
		t.Fatal(err)
	}
	cj := newCronJob("*/15 * * * *", batchv1.AllowConcurrent)
	last := metav1.NewTime(at("2026-11-24T12:15:00Z"))
	cj.Status.LastScheduleTime = &last
	for now, want := range map[string]struct {
		at     string
		missed int
	}{
		"2026-11-24T12:29:59Z": {"", 0},
		"2026-11-24T12:30:00Z": {"2026-11-24T12:30:00Z", 1},
		"2026-11-24T13:01:00Z": {"2026-11-24T13:00:00Z", 3},
	} {
		got, missed := mostRecentSchedule(cj, sched, time.UTC, at(now))
		if want.at == "" && !got.IsZero() || want.at != "" && !got.Equal(at(want.at)) || missed != want.missed {
			t.Errorf("at %s: %s (%d missed), want %s (%d)", now, got, missed, want.at, want.missed)
		}
	}
}
