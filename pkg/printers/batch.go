package printers

import (
	"fmt"
	"time"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// batchTableConvertor returns the printers of the batch group's
// resources, nil for other resources.
func batchTableConvertor(gr schema.GroupResource, now func() time.Time) rest.TableConvertor {
	switch gr {
	case batchv1.Resource("jobs"):
		return newPrinter(now, batchv1.SchemeGroupVersion.WithKind("Job"), jobColumns(), printJob, func(l *batchv1.JobList) []batchv1.Job { return l.Items })
	case batchv1.Resource("cronjobs"):
		return newPrinter(now, batchv1.SchemeGroupVersion.WithKind("CronJob"), cronJobColumns(), printCronJob, func(l *batchv1.CronJobList) []batchv1.CronJob { return l.Items })
	}
	return nil
}

func jobColumns() []metav1.TableColumnDefinition {
	return append([]metav1.TableColumnDefinition{
		nameColumn(),
		column("Status", "string", "Status of the job: Running, Complete, Failed, Suspended, Terminating, or the interim FailureTarget and SuccessCriteriaMet."),
		column("Completions", "string", "Succeeded pods out of the desired completions."),
		column("Duration", "string", "Time the job ran, up to its completion."),
		ageColumn(),
	}, templateColumns(true)...)
}

func printJob(c *printContext, j *batchv1.Job) (row, error) {
	completions := fmt.Sprintf("%d/1", j.Status.Succeeded)
	switch {
	case j.Spec.Completions != nil:
		completions = fmt.Sprintf("%d/%d", j.Status.Succeeded, *j.Spec.Completions)
	case j.Spec.Parallelism != nil && *j.Spec.Parallelism > 1:
		completions = fmt.Sprintf("%d/1 of %d", j.Status.Succeeded, *j.Spec.Parallelism)
	}
	var duration string
	switch st := j.Status; {
	case st.StartTime == nil:
	case st.CompletionTime == nil:
		duration = HumanDuration(c.now.Sub(st.StartTime.Time))
	default:
		duration = HumanDuration(st.CompletionTime.Sub(st.StartTime.Time))
	}
	names, images := containerCells(j.Spec.Template.Spec.Containers)
	return row{cells: []any{
		j.Name, jobStatus(j), completions, duration, c.age(j.CreationTimestamp),
		names, images, formatSelector(j.Spec.Selector),
	}}, nil
}

// jobStatus is the Status cell: the first condition that holds, in
// kubectl's order of precedence.
func jobStatus(j *batchv1.Job) string {
	has := func(t batchv1.JobConditionType) bool {
		for _, c := range j.Status.Conditions {
			if c.Type == t && c.Status == corev1.ConditionTrue {
				return true
			}
		}
		return false
	}
	switch {
	case has(batchv1.JobComplete):
		return "Complete"
	case has(batchv1.JobFailed):
		return "Failed"
	case j.DeletionTimestamp != nil:
		return "Terminating"
	case has(batchv1.JobSuspended):
		return "Suspended"
	case has(batchv1.JobFailureTarget):
		return "FailureTarget"
	case has(batchv1.JobSuccessCriteriaMet):
		return "SuccessCriteriaMet"
	}
	return "Running"
}

func cronJobColumns() []metav1.TableColumnDefinition {
	return append([]metav1.TableColumnDefinition{
		nameColumn(),
		column("Schedule", "string", "The schedule, in cron format."),
		column("Timezone", "string", "The time zone the schedule is read in."),
		column("Suspend", "boolean", "Whether new runs are suspended."),
		column("Active", "integer", "Number of running jobs."),
		column("Last Schedule", "string", "Time since a job was last scheduled."),
		ageColumn(),
	}, templateColumns(true)...)
}

func printCronJob(c *printContext, cj *batchv1.CronJob) (row, error) {
	last := "<none>"
	if t := cj.Status.LastScheduleTime; t != nil {
		last = c.age(*t)
	}
	tz := "<none>"
	if cj.Spec.TimeZone != nil {
		tz = *cj.Spec.TimeZone
	}
	suspend := "<unset>"
	switch {
	case cj.Spec.Suspend == nil:
	case *cj.Spec.Suspend:
		suspend = "True"
	default:
		suspend = "False"
	}
	names, images := containerCells(cj.Spec.JobTemplate.Spec.Template.Spec.Containers)
	return row{cells: []any{
		cj.Name, cj.Spec.Schedule, tz, suspend, int64(len(cj.Status.Active)), last, c.age(cj.CreationTimestamp),
		names, images, formatSelector(cj.Spec.JobTemplate.Spec.Selector),
	}}, nil
}

// formatSelector renders a selector as kubectl's job and cronjob printers
// do: "<none>" when it is unset or empty.
func formatSelector(sel *metav1.LabelSelector) string {
	s, err := selectorString(sel)
	switch {
	case err != nil:
		return "<error>"
	case s == "":
		return "<none>"
	}
	return s
}
