// Package cronjob is the CronJob controller: at every start time of a
// CronJob's schedule (in its time zone) it makes a Job from the Job
// template, named after the scheduled minute, honouring the concurrency
// policy, the starting deadline and suspension; it tracks the active Jobs
// and the last schedule and success times, and deletes finished Jobs
// beyond the history limits.
package cronjob

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/controller"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/tools/record"
	"kubecore.io/client/typed"

	"k8s.io/klog/v2"

	"kubecore.io/kubecore/pkg/apis/batch/cron"
)

// Name is the controller's name in the controller-manager and its queue.
const Name = "cronjob"

// nextScheduleDelta is added to the wait for the next start time, so that
// the sync it triggers finds that time passed.
const nextScheduleDelta = 100 * time.Millisecond

var (
	controllerKind = batchv1.SchemeGroupVersion.WithKind("CronJob")
	jobKind        = batchv1.SchemeGroupVersion.WithKind("Job")
)

// JobClient creates, reads and deletes the Jobs of one namespace.
type JobClient interface {
	Create(ctx context.Context, job *batchv1.Job, opts metav1.CreateOptions) (*batchv1.Job, error)
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*batchv1.Job, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// CronJobClient writes the status of the CronJobs of one namespace.
type CronJobClient interface {
	UpdateStatus(ctx context.Context, cj *batchv1.CronJob, opts metav1.UpdateOptions) (*batchv1.CronJob, error)
}

// Client is what the controller asks of the API server; *typed.Clientset
// satisfies it.
type Client interface {
	BatchV1() typed.BatchV1
}

// Options tune a Controller.
type Options struct {
	// Recorder records the controller's Events; nil means none.
	Recorder record.EventRecorder
	// Now reads the clock the schedules are evaluated against; nil means
	// time.Now. Tests move a fake clock.
	Now func() time.Time
}

// Controller is the CronJob controller.
type Controller struct {
	*controller.Controller
	jobs      func(namespace string) JobClient
	cronJobs  func(namespace string) CronJobClient
	recorder  record.EventRecorder
	cjLister  cache.Lister[*batchv1.CronJob]
	jobLister cache.Lister[*batchv1.Job]
	now       func() time.Time
}

// New returns a CronJob controller working through client, fed by the
// informers of factory.
func New(client Client, factory *informers.SharedInformerFactory, opts Options) (*Controller, error) {
	c := newController(
		func(ns string) JobClient { return client.BatchV1().Jobs(ns) },
		func(ns string) CronJobClient { return client.BatchV1().CronJobs(ns) },
		opts.Recorder, cache.Lister[*batchv1.CronJob]{}, cache.Lister[*batchv1.Job]{}, opts)
	cjInformer := controller.Informer(c.Controller, factory, informers.CronJobs)
	jobInformer := controller.Informer(c.Controller, factory, informers.Jobs)
	c.cjLister, c.jobLister = cjInformer.Lister(), jobInformer.Lister()
	controller.Watch(c, cjInformer, controller.Upserts(controller.KeyOf[*batchv1.CronJob]))
	controller.Watch(c, jobInformer, controller.Owned[*batchv1.CronJob, *batchv1.Job]{Kind: controllerKind.GroupKind(), Owners: c.cjLister}.Handler(c))
	return c, c.Err()
}

func newController(jobs func(string) JobClient, cronJobs func(string) CronJobClient, recorder record.EventRecorder,
	cjLister cache.Lister[*batchv1.CronJob], jobLister cache.Lister[*batchv1.Job], opts Options) *Controller {
	opts.Now = controller.OrNow(opts.Now)
	c := &Controller{
		jobs:      jobs,
		cronJobs:  cronJobs,
		recorder:  record.OrDiscard(recorder),
		cjLister:  cjLister,
		jobLister: jobLister,
		now:       opts.Now,
	}
	c.Controller = controller.New(Name, c.sync)
	return c
}

// finishedType returns the condition that finished j, "" if it runs.
func finishedType(j *batchv1.Job) batchv1.JobConditionType {
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return c.Type
		}
	}
	return ""
}

// sync brings the CronJob named by key up to date: its status from its
// Jobs, its history, and the Job of a start time that came.
func (c *Controller) sync(ctx context.Context, key string) error {
	shared, ok, err := controller.Get(ctx, c.cjLister, key)
	if !ok {
		return err
	}
	all, err := c.jobLister.Namespaced(shared.Namespace).List(labels.Everything())
	if err != nil {
		return err
	}
	var jobs []*batchv1.Job
	for _, j := range all {
		if ref := metav1.GetControllerOf(j); ref != nil && ref.UID == shared.UID {
			jobs = append(jobs, j)
		}
	}
	cj := shared.DeepCopy()
	now := c.now()
	if err := c.reconcileActive(ctx, cj, jobs); err != nil {
		return err
	}
	requeueAfter, syncErr := c.schedule(ctx, cj, jobs, now)
	if !equalStatus(&cj.Status, &shared.Status) {
		if _, err := c.cronJobs(cj.Namespace).UpdateStatus(ctx, cj, metav1.UpdateOptions{}); err != nil {
			return fmt.Errorf("update status of cronjob %s: %w", key, err)
		}
	}
	if syncErr != nil {
		return syncErr
	}
	if cj.DeletionTimestamp == nil {
		if err := c.cleanupHistory(ctx, cj, jobs); err != nil {
			return err
		}
	}
	if requeueAfter > 0 {
		c.Queue().AddAfter(key, requeueAfter)
	}
	return nil
}

func equalStatus(a, b *batchv1.CronJobStatus) bool {
	timeEq := func(x, y *metav1.Time) bool { return x == nil && y == nil || x != nil && y != nil && x.Equal(y) }
	return timeEq(a.LastScheduleTime, b.LastScheduleTime) && timeEq(a.LastSuccessfulTime, b.LastSuccessfulTime) &&
		slices.EqualFunc(a.Active, b.Active, func(x, y corev1.ObjectReference) bool { return x.UID == y.UID })
}

// reconcileActive drops finished and vanished Jobs from status.active and
// advances lastSuccessfulTime.
func (c *Controller) reconcileActive(ctx context.Context, cj *batchv1.CronJob, jobs []*batchv1.Job) error {
	byUID := map[types.UID]*batchv1.Job{}
	for _, j := range jobs {
		byUID[j.UID] = j
		ft := finishedType(j)
		if ft == batchv1.JobComplete && j.Status.CompletionTime != nil &&
			(cj.Status.LastSuccessfulTime == nil || j.Status.CompletionTime.After(cj.Status.LastSuccessfulTime.Time)) {
			t := *j.Status.CompletionTime
			cj.Status.LastSuccessfulTime = &t
		}
		inActive := slices.ContainsFunc(cj.Status.Active, func(r corev1.ObjectReference) bool { return r.UID == j.UID })
		switch {
		case inActive && ft != "":
			c.recorder.Eventf(cj, corev1.EventTypeNormal, "SawCompletedJob", "Saw completed job: %s, condition: %s", j.Name, ft)
		case !inActive && ft == "":
			klog.FromContext(ctx).V(4).Info("A running job is not in the active list", "cronJob", klog.KObj(cj), "job", j.Name)
		}
	}
	var keep []corev1.ObjectReference
	for _, ref := range cj.Status.Active {
		if j, ok := byUID[ref.UID]; ok {
			if finishedType(j) == "" {
				keep = append(keep, ref)
			}
			continue
		}
		// Not in the cache: ask the server before dropping it.
		j, err := c.jobs(cj.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err) || err == nil && j.UID != ref.UID:
			c.recorder.Eventf(cj, corev1.EventTypeNormal, "MissingJob", "Active job went missing: %v", ref.Name)
		case err != nil:
			return fmt.Errorf("get job %s/%s: %w", cj.Namespace, ref.Name, err)
		case finishedType(j) == "":
			keep = append(keep, ref)
		}
	}
	cj.Status.Active = keep
	return nil
}

// schedule makes the Job of the latest start time that came, if it is due
// and allowed; it returns when to look again.
func (c *Controller) schedule(ctx context.Context, cj *batchv1.CronJob, jobs []*batchv1.Job, now time.Time) (time.Duration, error) {
	if cj.DeletionTimestamp != nil || deref(cj.Spec.Suspend) {
		return 0, nil
	}
	loc, err := cron.LoadLocation(cj.Spec.TimeZone)
	if err != nil {
		c.recorder.Eventf(cj, corev1.EventTypeWarning, "UnknownTimeZone", "invalid timeZone: %v", err)
		return 0, nil
	}
	sched, err := cron.Parse(cj.Spec.Schedule)
	if err != nil {
		c.recorder.Eventf(cj, corev1.EventTypeWarning, "UnparseableSchedule", "unparseable schedule: %q : %s", cj.Spec.Schedule, err)
		return 0, nil
	}
	next := sched.Next(now.In(loc))
	requeue := time.Duration(0)
	if !next.IsZero() {
		requeue = next.Sub(now) + nextScheduleDelta
	}
	scheduled, missed := mostRecentSchedule(cj, sched, loc, now)
	if scheduled.IsZero() {
		return requeue, nil
	}
	if missed > tooManyMissed {
		c.recorder.Eventf(cj, corev1.EventTypeWarning, "TooManyMissedTimes", "too many missed start times: %d. Set or decrease .spec.startingDeadlineSeconds or check clock skew", missed)
	}
	if d := cj.Spec.StartingDeadlineSeconds; d != nil && scheduled.Add(time.Duration(*d)*time.Second).Before(now) {
		c.recorder.Eventf(cj, corev1.EventTypeWarning, "MissSchedule", "Missed scheduled time to start a job: %s", scheduled.UTC().Format(time.RFC1123Z))
		return requeue, nil
	}
	name := jobName(cj, scheduled)
	if i := slices.IndexFunc(jobs, func(j *batchv1.Job) bool { return j.Name == name }); i >= 0 {
		// Made already, by an earlier sync whose status update may have
		// been lost (a conflict with a concurrent write): record it.
		recordRun(cj, jobs[i], scheduled)
		return requeue, nil
	}
	switch cj.Spec.ConcurrencyPolicy {
	case batchv1.ForbidConcurrent:
		if len(cj.Status.Active) > 0 {
			c.recorder.Eventf(cj, corev1.EventTypeNormal, "JobAlreadyActive", "Not starting job because prior execution is running and concurrency policy is Forbid")
			return requeue, nil
		}
	case batchv1.ReplaceConcurrent:
		for _, ref := range cj.Status.Active {
			if err := c.deleteJob(ctx, cj, ref.Name); err != nil {
				return 0, err
			}
		}
		cj.Status.Active = nil
	}
	job, err := newJob(cj, name, scheduled)
	if err != nil {
		return 0, err
	}
	created, err := c.jobs(cj.Namespace).Create(ctx, job, metav1.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err):
		// Made by an earlier sync the cache does not show yet.
		if created, err = c.jobs(cj.Namespace).Get(ctx, name, metav1.GetOptions{}); err != nil {
			return 0, fmt.Errorf("get job %s/%s: %w", cj.Namespace, name, err)
		}
		if !metav1.IsControlledBy(created, cj) {
			c.recorder.Eventf(cj, corev1.EventTypeWarning, "FailedCreate", "Error creating job: a job %s not controlled by this cronjob exists", name)
			return requeue, nil
		}
	case err != nil:
		c.recorder.Eventf(cj, corev1.EventTypeWarning, "FailedCreate", "Error creating job: %v", err)
		return 0, fmt.Errorf("create job %s/%s: %w", cj.Namespace, name, err)
	default:
		c.recorder.Eventf(cj, corev1.EventTypeNormal, "SuccessfulCreate", "Created job %v", created.Name)
	}
	klog.FromContext(ctx).V(2).Info("Created a scheduled job", "cronJob", klog.KObj(cj), "job", created.Name, "scheduled", scheduled)
	recordRun(cj, created, scheduled)
	return requeue, nil
}

// recordRun notes in cj's status the Job j made for the start time
// scheduled: active while it runs, and the latest start time.
func recordRun(cj *batchv1.CronJob, j *batchv1.Job, scheduled time.Time) {
	if finishedType(j) == "" && !slices.ContainsFunc(cj.Status.Active, func(r corev1.ObjectReference) bool { return r.UID == j.UID }) {
		cj.Status.Active = append(cj.Status.Active, corev1.ObjectReference{
			Kind: jobKind.Kind, APIVersion: jobKind.GroupVersion().String(), Namespace: j.Namespace,
			Name: j.Name, UID: j.UID, ResourceVersion: j.ResourceVersion,
		})
	}
	if cj.Status.LastScheduleTime == nil || cj.Status.LastScheduleTime.Time.Before(scheduled) {
		ts := metav1.NewTime(scheduled)
		cj.Status.LastScheduleTime = &ts
	}
}

// newJob makes the Job of cj for the start time scheduled.
func newJob(cj *batchv1.CronJob, name string, scheduled time.Time) (*batchv1.Job, error) {
	// The annotation is in the CronJob's time zone, UTC without one.
	loc := time.UTC
	if cj.Spec.TimeZone != nil {
		var err error
		if loc, err = cron.LoadLocation(cj.Spec.TimeZone); err != nil {
			return nil, err
		}
	}
	annotations := maps.Clone(cj.Spec.JobTemplate.Annotations)
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[batchv1.CronJobScheduledTimestampAnnotation] = scheduled.In(loc).Format(time.RFC3339)
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name:            name,
			Namespace:       cj.Namespace,
			Labels:          maps.Clone(cj.Spec.JobTemplate.Labels),
			Annotations:     annotations,
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cj, controllerKind)},
		},
		Spec: *cj.Spec.JobTemplate.Spec.DeepCopy(),
	}, nil
}

// deleteJob deletes a Job of cj with its pods.
func (c *Controller) deleteJob(ctx context.Context, cj *batchv1.CronJob, name string) error {
	background := metav1.DeletePropagationBackground
	err := c.jobs(cj.Namespace).Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &background})
	if err != nil && !apierrors.IsNotFound(err) {
		c.recorder.Eventf(cj, corev1.EventTypeWarning, "FailedDelete", "Deleted job: %v", err)
		return fmt.Errorf("delete job %s/%s: %w", cj.Namespace, name, err)
	}
	c.recorder.Eventf(cj, corev1.EventTypeNormal, "SuccessfulDelete", "Deleted job %v", name)
	return nil
}

// cleanupHistory deletes the oldest finished Jobs beyond the history
// limits of successful and failed ones.
func (c *Controller) cleanupHistory(ctx context.Context, cj *batchv1.CronJob, jobs []*batchv1.Job) error {
	var succeeded, failed []*batchv1.Job
	for _, j := range jobs {
		switch finishedType(j) {
		case batchv1.JobComplete:
			succeeded = append(succeeded, j)
		case batchv1.JobFailed:
			failed = append(failed, j)
		}
	}
	for _, h := range []struct {
		jobs  []*batchv1.Job
		limit *int32
	}{{succeeded, cj.Spec.SuccessfulJobsHistoryLimit}, {failed, cj.Spec.FailedJobsHistoryLimit}} {
		if h.limit == nil || len(h.jobs) <= int(*h.limit) {
			continue
		}
		slices.SortFunc(h.jobs, olderFirst)
		for _, j := range h.jobs[:len(h.jobs)-int(*h.limit)] {
			if j.DeletionTimestamp != nil {
				continue
			}
			if err := c.deleteJob(ctx, cj, j.Name); err != nil {
				return err
			}
		}
	}
	return nil
}

// olderFirst orders Jobs by start time, then, for those started in the
// same second (the times' precision), by name: a CronJob's Job names
// carry their scheduled minute.
func olderFirst(a, b *batchv1.Job) int {
	if c := startTime(a).Compare(startTime(b)); c != 0 {
		return c
	}
	return cmp.Compare(a.Name, b.Name)
}

// startTime is when a Job started, else when it was created.
func startTime(j *batchv1.Job) time.Time {
	if j.Status.StartTime != nil {
		return j.Status.StartTime.Time
	}
	return j.CreationTimestamp.Time
}

func deref(b *bool) bool { return b != nil && *b }
