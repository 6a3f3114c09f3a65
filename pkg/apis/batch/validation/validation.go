// Package validation checks batch/v1 objects (Jobs and CronJobs) as the
// Kubernetes API server does, returning field errors with Kubernetes' paths
// and messages.
package validation

import (
	"fmt"
	"strings"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/batch/cron"
	corevalidation "kubecore.io/kubecore/pkg/apis/core/validation"
)

// maxIndexedJobCompletions bounds the completions of an Indexed Job, whose
// completed indexes the status lists.
const maxIndexedJobCompletions = 100000

// maxCronJobNameLength leaves room in a Job's name for the CronJob's name,
// a dash and the scheduled minute (11 characters), within 63.
const maxCronJobNameLength = 52

func validateMeta(m *metav1.ObjectMeta, p *field.Path) field.ErrorList {
	return apivalidation.ValidateObjectMeta(m, true, apivalidation.NameIsDNSSubdomain, p)
}

// ValidateJob checks a Job; its selector must be set (the strategy
// generates it unless manualSelector is true).
func ValidateJob(j *batchv1.Job) field.ErrorList {
	errs := validateMeta(&j.ObjectMeta, field.NewPath("metadata"))
	return append(errs, validateJobSpec(&j.Spec, field.NewPath("spec"), true)...)
}

// validateJobSpec checks a Job's spec; needSelector is false for the Job
// template of a CronJob, whose selector is made with each Job.
func validateJobSpec(s *batchv1.JobSpec, p *field.Path, needSelector bool) field.ErrorList {
	var errs field.ErrorList
	nonNegative := func(v *int32, name string) {
		if v != nil {
			errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*v), p.Child(name))...)
		}
	}
	nonNegative(s.Parallelism, "parallelism")
	nonNegative(s.Completions, "completions")
	nonNegative(s.BackoffLimit, "backoffLimit")
	nonNegative(s.TTLSecondsAfterFinished, "ttlSecondsAfterFinished")
	if s.ActiveDeadlineSeconds != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(*s.ActiveDeadlineSeconds, p.Child("activeDeadlineSeconds"))...)
	}
	if m := s.CompletionMode; m != nil {
		switch *m {
		case batchv1.NonIndexedCompletion:
		case batchv1.IndexedCompletion:
			switch {
			case s.Completions == nil:
				errs = append(errs, field.Required(p.Child("completions"), fmt.Sprintf("when completion mode is %s", batchv1.IndexedCompletion)))
			case *s.Completions > maxIndexedJobCompletions:
				errs = append(errs, field.Invalid(p.Child("completions"), *s.Completions, fmt.Sprintf("must be less than or equal to %d when completion mode is %s", maxIndexedJobCompletions, batchv1.IndexedCompletion)))
			}
			if s.Parallelism != nil && *s.Parallelism > maxIndexedJobCompletions {
				errs = append(errs, field.Invalid(p.Child("parallelism"), *s.Parallelism, fmt.Sprintf("must be less than or equal to %d when completion mode is %s", maxIndexedJobCompletions, batchv1.IndexedCompletion)))
			}
		default:
			errs = append(errs, field.NotSupported(p.Child("completionMode"), *m, []batchv1.CompletionMode{batchv1.NonIndexedCompletion, batchv1.IndexedCompletion}))
		}
	}
	switch {
	case s.Selector == nil:
		if needSelector {
			errs = append(errs, field.Required(p.Child("selector"), ""))
		}
	default:
		if selErrs := apivalidation.ValidateLabelSelector(s.Selector, p.Child("selector")); len(selErrs) > 0 {
			errs = append(errs, selErrs...)
		} else if sel, err := metav1.LabelSelectorAsSelector(s.Selector); err == nil && !sel.Matches(labels.Set(s.Template.Labels)) {
			errs = append(errs, field.Invalid(p.Child("template", "metadata", "labels"), s.Template.Labels, "`selector` does not match template `labels`"))
		}
	}
	errs = append(errs, corevalidation.ValidatePodTemplateSpec(&s.Template, p.Child("template"))...)
	if rp := s.Template.Spec.RestartPolicy; rp != corev1.RestartPolicyOnFailure && rp != corev1.RestartPolicyNever {
		errs = append(errs, field.NotSupported(p.Child("template", "spec", "restartPolicy"), rp, []corev1.RestartPolicy{corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}))
	}
	return errs
}

// ValidateJobUpdate checks an update of a Job: the selector, completion
// mode and template are immutable, except that a suspended Job that never
// started may change where its pods run (node selector, affinity,
// tolerations, scheduling gates, template labels and annotations), and
// that an Indexed Job may change completions together with parallelism.
func ValidateJobUpdate(j, old *batchv1.Job) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&j.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	errs = append(errs, validateJobSpec(&j.Spec, field.NewPath("spec"), true)...)
	p := field.NewPath("spec")
	errs = append(errs, apivalidation.ValidateImmutableField(j.Spec.Selector, old.Spec.Selector, p.Child("selector"))...)
	errs = append(errs, apivalidation.ValidateImmutableField(j.Spec.CompletionMode, old.Spec.CompletionMode, p.Child("completionMode"))...)
	if !equalInt32(j.Spec.Completions, old.Spec.Completions) {
		indexed := j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion
		if !indexed || !equalInt32(j.Spec.Completions, j.Spec.Parallelism) {
			errs = append(errs, field.Invalid(p.Child("completions"), j.Spec.Completions, "field is immutable"+
				"; only an Indexed Job may change it, and only to the new value of parallelism"))
		}
	}
	tmpl, oldTmpl := j.Spec.Template.DeepCopy(), old.Spec.Template.DeepCopy()
	if isTrue(old.Spec.Suspend) && old.Status.StartTime == nil {
		for _, t := range []*corev1.PodTemplateSpec{tmpl, oldTmpl} {
			t.Labels, t.Annotations = nil, nil
			t.Spec.NodeSelector, t.Spec.Tolerations, t.Spec.SchedulingGates = nil, nil, nil
			if t.Spec.Affinity != nil {
				t.Spec.Affinity.NodeAffinity = nil
			}
		}
	}
	errs = append(errs, apivalidation.ValidateImmutableField(tmpl, oldTmpl, p.Child("template"))...)
	return errs
}

// ValidateJobStatusUpdate checks a status update: the counters are never
// negative.
func ValidateJobStatusUpdate(j, old *batchv1.Job) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&j.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	p := field.NewPath("status")
	st := &j.Status
	for name, v := range map[string]*int32{"active": &st.Active, "succeeded": &st.Succeeded, "failed": &st.Failed, "ready": st.Ready, "terminating": st.Terminating} {
		if v != nil {
			errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*v), p.Child(name))...)
		}
	}
	return errs
}

// ValidateCronJob checks a CronJob: its name leaves room for the suffix of
// its Jobs' names, its schedule and time zone parse, and its Job template is
// a valid Job spec.
func ValidateCronJob(cj *batchv1.CronJob) field.ErrorList {
	errs := validateMeta(&cj.ObjectMeta, field.NewPath("metadata"))
	if len(cj.Name) > maxCronJobNameLength {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), cj.Name, fmt.Sprintf("must be no more than %d characters", maxCronJobNameLength)))
	}
	return append(errs, validateCronJobSpec(&cj.Spec, field.NewPath("spec"))...)
}

func validateCronJobSpec(s *batchv1.CronJobSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch {
	case s.Schedule == "":
		errs = append(errs, field.Required(p.Child("schedule"), ""))
	case strings.Contains(s.Schedule, "TZ"):
		errs = append(errs, field.Invalid(p.Child("schedule"), s.Schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"))
	default:
		if _, err := cron.Parse(s.Schedule); err != nil {
			errs = append(errs, field.Invalid(p.Child("schedule"), s.Schedule, err.Error()))
		}
	}
	if tz := s.TimeZone; tz != nil {
		if _, err := cron.LoadLocation(tz); err != nil {
			errs = append(errs, field.Invalid(p.Child("timeZone"), *tz, err.Error()))
		}
	}
	if s.StartingDeadlineSeconds != nil {
		errs = append(errs, apivalidation.ValidateNonnegativeField(*s.StartingDeadlineSeconds, p.Child("startingDeadlineSeconds"))...)
	}
	switch s.ConcurrencyPolicy {
	case batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent:
	case "":
		errs = append(errs, field.Required(p.Child("concurrencyPolicy"), ""))
	default:
		errs = append(errs, field.NotSupported(p.Child("concurrencyPolicy"), s.ConcurrencyPolicy,
			[]batchv1.ConcurrencyPolicy{batchv1.AllowConcurrent, batchv1.ForbidConcurrent, batchv1.ReplaceConcurrent}))
	}
	for name, v := range map[string]*int32{"successfulJobsHistoryLimit": s.SuccessfulJobsHistoryLimit, "failedJobsHistoryLimit": s.FailedJobsHistoryLimit} {
		if v != nil {
			errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*v), p.Child(name))...)
		}
	}
	jt := p.Child("jobTemplate")
	errs = append(errs, apivalidation.ValidateLabels(s.JobTemplate.Labels, jt.Child("metadata", "labels"))...)
	errs = append(errs, apivalidation.ValidateAnnotations(s.JobTemplate.Annotations, jt.Child("metadata", "annotations"))...)
	return append(errs, validateJobSpec(&s.JobTemplate.Spec, jt.Child("spec"), false)...)
}

// ValidateCronJobUpdate checks an update of a CronJob.
func ValidateCronJobUpdate(cj, old *batchv1.CronJob) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(&cj.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	return append(errs, validateCronJobSpec(&cj.Spec, field.NewPath("spec"))...)
}

func equalInt32(a, b *int32) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

func isTrue(b *bool) bool { return b != nil && *b }
