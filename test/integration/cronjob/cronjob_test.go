// Package cronjob tests the CronJob controller against an in-process API
// server, on a fake clock, with the Job controller and the fake node agent
// running the Jobs it makes.
package cronjob

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/informers"

	"kubecore.io/kubecore/pkg/controller/cronjob"
	"kubecore.io/kubecore/pkg/controller/job"
	"kubecore.io/kubecore/test/integration/fakenode"
	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }

// fakeClock is the time the CronJob controller reads.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

func ptr[T any](v T) *T { return &v }

// TestScheduledRuns makes a CronJob run every minute of a fake clock: each
// run is a Job named after its minute, with the scheduled-timestamp
// annotation and the CronJob as controller, that runs to completion; the
// status follows; only the last successful Job is kept.
func TestScheduledRuns(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	cs := s.Clientset(t)
	ns := s.CreateNamespace(t, "cronjob")
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	node := ns + "-node"
	t.Cleanup(func() { _ = cs.CoreV1().Nodes().Delete(context.Background(), node, metav1.DeleteOptions{}) })
	agent, err := fakenode.Start(ctx, cs, fakenode.Options{Nodes: []string{node}, Bind: true, LeaseRenewInterval: -1,
		Finish: func(*corev1.Pod) corev1.PodPhase { return corev1.PodSucceeded }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Stop() })

	clock := &fakeClock{now: time.Now().Truncate(time.Minute).Add(30 * time.Second)}
	factory := informers.NewSharedInformerFactory(cs)
	cjc, err := cronjob.New(cs, factory, cronjob.Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	jc, err := job.New(cs, factory, job.Options{})
	if err != nil {
		t.Fatal(err)
	}
	framework.RunControllers(t, factory,
		func(ctx context.Context) error { return cjc.Run(ctx, 2) },
		func(ctx context.Context) error { return jc.Run(ctx, 2) })

	cj := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "every-minute"},
		Spec: batchv1.CronJobSpec{
			Schedule:                   "*/1 * * * *",
			SuccessfulJobsHistoryLimit: ptr[int32](1),
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyOnFailure,
				Containers:    []corev1.Container{{Name: "c", Image: "busybox", Command: []string{"date"}}},
			}}}},
		},
	}
	created, err := cs.BatchV1().CronJobs(ns).Create(ctx, cj, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.Spec.ConcurrencyPolicy != batchv1.AllowConcurrent || *created.Spec.Suspend || *created.Spec.FailedJobsHistoryLimit != 1 {
		t.Errorf("defaults: %+v", created.Spec)
	}
	// The clock starts 30 s into a minute, before the CronJob existed: no
	// run is due.
	clock.Set(time.Now().Truncate(time.Minute).Add(30 * time.Second))
	tick := func(n int) {
		t.Helper()
		patch := fmt.Appendf(nil, `{"metadata":{"annotations":{"test.kubecore.io/tick":"%d"}}}`, n)
		if _, err := cs.BatchV1().CronJobs(ns).Patch(ctx, cj.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var runs []string
	for i := 1; i <= 2; i++ {
		scheduled := clock.Now().Truncate(time.Minute).Add(time.Minute)
		clock.Set(scheduled.Add(5 * time.Second))
		tick(i)
		name := fmt.Sprintf("every-minute-%d", scheduled.Unix()/60)
		runs = append(runs, name)
		var j *batchv1.Job
		framework.WaitFor(t, 30*time.Second, "job "+name+" complete", func() (bool, error) {
			got, err := cs.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return false, nil
			}
			j = got
			return err == nil && got.Status.Succeeded == 1 && got.Status.CompletionTime != nil, err
		})
		if got := j.Annotations[batchv1.CronJobScheduledTimestampAnnotation]; got != scheduled.UTC().Format(time.RFC3339) {
			t.Errorf("run %d: scheduled timestamp %q, want %s", i, got, scheduled.UTC().Format(time.RFC3339))
		}
		if ref := metav1.GetControllerOf(j); ref == nil || ref.Kind != "CronJob" || ref.UID != created.UID {
			t.Errorf("run %d: controller %+v", i, ref)
		}
		framework.WaitFor(t, 30*time.Second, "the cronjob status after run "+name, func() (bool, error) {
			got, err := cs.BatchV1().CronJobs(ns).Get(ctx, cj.Name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			return len(got.Status.Active) == 0 && got.Status.LastScheduleTime != nil && got.Status.LastScheduleTime.Time.Equal(scheduled) &&
				got.Status.LastSuccessfulTime != nil, nil
		})
	}
	// A sync after the second run deletes the first: one successful Job
	// is kept.
	tick(3)
	framework.WaitFor(t, 30*time.Second, "the history trimmed to the last run", func() (bool, error) {
		list, err := cs.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		return len(list.Items) == 1 && list.Items[0].Name == runs[1], nil
	})
}

// TestValidation refuses bad CronJobs with 422 and the field path.
func TestValidation(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	cs := s.Clientset(t)
	ns := s.CreateNamespace(t, "cronjob")
	for _, tc := range []struct {
		schedule, timeZone, name, want string
	}{
		{"* * * *", "", "c", "spec.schedule: Invalid value: \"* * * *\": expected exactly 5 fields, found 4"},
		{"61 * * * *", "", "c", "minute 61 out of range"},
		{"@fortnightly", "", "c", "unrecognized descriptor"},
		{"TZ=UTC * * * * *", "", "c", "cannot use TZ or CRON_TZ in schedule"},
		{"@hourly", "Mars/Olympus", "c", "spec.timeZone: Invalid value: \"Mars/Olympus\": unknown time zone Mars/Olympus"},
		{"@hourly", "", "a-name-that-is-much-too-long-for-a-cronjob-of-kubernetes", "must be no more than 52 characters"},
	} {
		cj := &batchv1.CronJob{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: tc.name},
			Spec: batchv1.CronJobSpec{Schedule: tc.schedule, JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "i"}},
			}}}}},
		}
		if tc.timeZone != "" {
			cj.Spec.TimeZone = &tc.timeZone
		}
		_, err := cs.BatchV1().CronJobs(ns).Create(context.Background(), cj, metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("schedule %q tz %q: err = %v, want Invalid with %q", tc.schedule, tc.timeZone, err, tc.want)
		}
	}
	ok := &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ok"},
		Spec: batchv1.CronJobSpec{Schedule: "30 9 * * MON-FRI", TimeZone: ptr("Europe/Paris"), JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "i"}},
		}}}}},
	}
	if _, err := cs.BatchV1().CronJobs(ns).Create(context.Background(), ok, metav1.CreateOptions{}); err != nil {
		t.Errorf("a valid cronjob: %v", err)
	}
}
