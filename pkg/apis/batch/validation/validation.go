// Package validation checks batch/v1 objects (Jobs and CronJobs) as the
// Kubernetes API server does, returning field errors with Kubernetes' paths
// and messages.
package validation

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	apivalidation "kubecore.io/apimachinery/pkg/api/validation"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	utilvalidation "kubecore.io/apimachinery/pkg/util/validation"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/batch/cron"
	corevalidation "kubecore.io/kubecore/pkg/apis/core/validation"
)

// maxIndexedJobCompletions bounds the completions of an Indexed Job, whose
// completed indexes the status lists.
const maxIndexedJobCompletions = 100000

// Bounds of the failure and success policies, as Kubernetes has them.
const (
	maxFailedIndexes                 = 100000
	maxPodFailurePolicyRules         = 20
	maxOnPodConditionsPatterns       = 20
	maxOnExitCodesValues             = 255
	maxSuccessPolicyRules            = 20
	maxSuccessPolicyIndexesLength    = 64 * 1024
	maxPerIndexCompletionsForIndexed = 100000
)

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
	nonNegative(s.BackoffLimitPerIndex, "backoffLimitPerIndex")
	if s.MaxFailedIndexes != nil {
		nonNegative(s.MaxFailedIndexes, "maxFailedIndexes")
		if s.BackoffLimitPerIndex == nil {
			errs = append(errs, field.Required(p.Child("backoffLimitPerIndex"), "when maxFailedIndexes is specified"))
		}
	}
	if isIndexed(s) {
		if s.Completions != nil && s.MaxFailedIndexes != nil && *s.MaxFailedIndexes > *s.Completions {
			errs = append(errs, field.Invalid(p.Child("maxFailedIndexes"), *s.MaxFailedIndexes, "must be less than or equal to completions"))
		}
		if s.MaxFailedIndexes != nil && *s.MaxFailedIndexes > maxFailedIndexes {
			errs = append(errs, field.Invalid(p.Child("maxFailedIndexes"), *s.MaxFailedIndexes, fmt.Sprintf("must be less than or equal to %d", maxFailedIndexes)))
		}
	} else {
		if s.BackoffLimitPerIndex != nil {
			errs = append(errs, field.Invalid(p.Child("backoffLimitPerIndex"), *s.BackoffLimitPerIndex, "requires indexed completion mode"))
		}
		if s.MaxFailedIndexes != nil {
			errs = append(errs, field.Invalid(p.Child("maxFailedIndexes"), *s.MaxFailedIndexes, "requires indexed completion mode"))
		}
	}
	if s.PodFailurePolicy != nil {
		errs = append(errs, validatePodFailurePolicy(s, p.Child("podFailurePolicy"))...)
	}
	errs = append(errs, validateSuccessPolicy(s, p.Child("successPolicy"))...)
	errs = append(errs, validatePodReplacementPolicy(s, p.Child("podReplacementPolicy"))...)
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
	switch rp := s.Template.Spec.RestartPolicy; {
	case rp != corev1.RestartPolicyOnFailure && rp != corev1.RestartPolicyNever:
		errs = append(errs, field.NotSupported(p.Child("template", "spec", "restartPolicy"), rp, []corev1.RestartPolicy{corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}))
	case s.PodFailurePolicy != nil && rp != corev1.RestartPolicyNever:
		errs = append(errs, field.Invalid(p.Child("template", "spec", "restartPolicy"), rp, fmt.Sprintf("only %q is supported when podFailurePolicy is specified", corev1.RestartPolicyNever)))
	}
	return errs
}

func isIndexed(s *batchv1.JobSpec) bool {
	return s.CompletionMode != nil && *s.CompletionMode == batchv1.IndexedCompletion
}

var (
	podFailurePolicyActions = []batchv1.PodFailurePolicyAction{batchv1.PodFailurePolicyActionCount, batchv1.PodFailurePolicyActionFailIndex,
		batchv1.PodFailurePolicyActionFailJob, batchv1.PodFailurePolicyActionIgnore}
	exitCodesOperators     = []batchv1.PodFailurePolicyOnExitCodesOperator{batchv1.PodFailurePolicyOnExitCodesOpIn, batchv1.PodFailurePolicyOnExitCodesOpNotIn}
	podConditionStatuses   = []corev1.ConditionStatus{corev1.ConditionFalse, corev1.ConditionTrue, corev1.ConditionUnknown}
	podReplacementPolicies = []batchv1.PodReplacementPolicy{batchv1.Failed, batchv1.TerminatingOrFailed}
)

// validatePodFailurePolicy checks the rules of a pod failure policy: at
// most 20, each with a known action (FailIndex only with
// backoffLimitPerIndex) and exactly one requirement.
func validatePodFailurePolicy(s *batchv1.JobSpec, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	rules := s.PodFailurePolicy.Rules
	rulesPath := p.Child("rules")
	if len(rules) > maxPodFailurePolicyRules {
		errs = append(errs, field.TooMany(rulesPath, len(rules), maxPodFailurePolicyRules))
	}
	containers := map[string]bool{}
	for _, c := range slices.Concat(s.Template.Spec.Containers, s.Template.Spec.InitContainers) {
		containers[c.Name] = true
	}
	for i := range rules {
		r, rp := &rules[i], rulesPath.Index(i)
		ap := rp.Child("action")
		switch {
		case r.Action == "":
			errs = append(errs, field.Required(ap, fmt.Sprintf("valid values: %q", podFailurePolicyActions)))
		case r.Action == batchv1.PodFailurePolicyActionFailIndex:
			if s.BackoffLimitPerIndex == nil {
				errs = append(errs, field.Invalid(ap, r.Action, "requires the backoffLimitPerIndex to be set"))
			}
		case !slices.Contains(podFailurePolicyActions, r.Action):
			errs = append(errs, field.NotSupported(ap, r.Action, podFailurePolicyActions))
		}
		if r.OnExitCodes != nil {
			errs = append(errs, validateOnExitCodes(r.OnExitCodes, rp.Child("onExitCodes"), containers)...)
		}
		if len(r.OnPodConditions) > 0 {
			errs = append(errs, validateOnPodConditions(r.OnPodConditions, rp.Child("onPodConditions"))...)
		}
		switch {
		case r.OnExitCodes != nil && len(r.OnPodConditions) > 0:
			errs = append(errs, field.Invalid(rp, field.OmitValueType{}, "specifying both OnExitCodes and OnPodConditions is not supported"))
		case r.OnExitCodes == nil && len(r.OnPodConditions) == 0:
			errs = append(errs, field.Invalid(rp, field.OmitValueType{}, "specifying one of OnExitCodes and OnPodConditions is required"))
		}
	}
	return errs
}

// validateOnExitCodes checks an exit code requirement: a known operator,
// a container of the template, and 1 to 255 sorted unique values, none 0
// with In.
func validateOnExitCodes(r *batchv1.PodFailurePolicyOnExitCodesRequirement, p *field.Path, containers map[string]bool) field.ErrorList {
	var errs field.ErrorList
	switch op := p.Child("operator"); {
	case r.Operator == "":
		errs = append(errs, field.Required(op, fmt.Sprintf("valid values: %q", exitCodesOperators)))
	case !slices.Contains(exitCodesOperators, r.Operator):
		errs = append(errs, field.NotSupported(op, r.Operator, exitCodesOperators))
	}
	if r.ContainerName != nil && !containers[*r.ContainerName] {
		errs = append(errs, field.Invalid(p.Child("containerName"), *r.ContainerName, "must be one of the container or initContainer names in the pod template"))
	}
	vp := p.Child("values")
	switch {
	case len(r.Values) == 0:
		errs = append(errs, field.Invalid(vp, r.Values, "at least one value is required"))
	case len(r.Values) > maxOnExitCodesValues:
		errs = append(errs, field.TooMany(vp, len(r.Values), maxOnExitCodesValues))
	default:
		seen := map[int32]bool{}
		for i, v := range r.Values {
			if r.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && v == 0 {
				errs = append(errs, field.Invalid(vp.Index(i), v, "must not be 0 for the In operator"))
			}
			if seen[v] {
				errs = append(errs, field.Duplicate(vp.Index(i), v))
			}
			seen[v] = true
		}
		if !slices.IsSorted(r.Values) {
			errs = append(errs, field.Invalid(vp, r.Values, "must be ordered"))
		}
	}
	return errs
}

// validateOnPodConditions checks the condition patterns of a rule: at most
// 20, each a qualified type with a known status.
func validateOnPodConditions(pats []batchv1.PodFailurePolicyOnPodConditionsPattern, p *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(pats) > maxOnPodConditionsPatterns {
		errs = append(errs, field.TooMany(p, len(pats), maxOnPodConditionsPatterns))
	}
	for i, pat := range pats {
		pp := p.Index(i)
		for _, msg := range utilvalidation.IsQualifiedName(string(pat.Type)) {
			errs = append(errs, field.Invalid(pp.Child("type"), pat.Type, msg))
		}
		switch sp := pp.Child("status"); {
		case pat.Status == "":
			errs = append(errs, field.Required(sp, fmt.Sprintf("valid values: %q", podConditionStatuses)))
		case !slices.Contains(podConditionStatuses, pat.Status):
			errs = append(errs, field.NotSupported(sp, pat.Status, podConditionStatuses))
		}
	}
	return errs
}

// validateSuccessPolicy checks a success policy: Indexed Jobs only, 1 to 20
// rules, each naming valid indexes or a count within completions.
func validateSuccessPolicy(s *batchv1.JobSpec, p *field.Path) field.ErrorList {
	sp := s.SuccessPolicy
	if sp == nil {
		return nil
	}
	var errs field.ErrorList
	if !isIndexed(s) {
		errs = append(errs, field.Invalid(p, *sp, "requires indexed completion mode"))
	}
	rulesPath := p.Child("rules")
	switch {
	case len(sp.Rules) == 0:
		errs = append(errs, field.Required(rulesPath, "at least one rules must be specified when the successPolicy is specified"))
	case len(sp.Rules) > maxSuccessPolicyRules:
		errs = append(errs, field.TooMany(rulesPath, len(sp.Rules), maxSuccessPolicyRules))
	}
	completions := int32(0)
	if s.Completions != nil {
		completions = *s.Completions
	}
	for i, r := range sp.Rules {
		rp := rulesPath.Index(i)
		if r.SucceededCount == nil && r.SucceededIndexes == nil {
			errs = append(errs, field.Required(rp, "at least one of succeededCount or succeededIndexes must be specified"))
		}
		var total int32
		if r.SucceededIndexes != nil {
			ip := rp.Child("succeededIndexes")
			if len(*r.SucceededIndexes) > maxSuccessPolicyIndexesLength {
				errs = append(errs, field.TooLong(ip, *r.SucceededIndexes, maxSuccessPolicyIndexesLength))
			}
			var err error
			if total, err = ValidateIndexes(*r.SucceededIndexes, completions); err != nil {
				errs = append(errs, field.Invalid(ip, *r.SucceededIndexes, fmt.Sprintf("error parsing succeededIndexes: %s", err)))
			}
		}
		if r.SucceededCount != nil {
			cp := rp.Child("succeededCount")
			errs = append(errs, apivalidation.ValidateNonnegativeField(int64(*r.SucceededCount), cp)...)
			if *r.SucceededCount > completions {
				errs = append(errs, field.Invalid(cp, *r.SucceededCount, fmt.Sprintf("must be less than or equal to %d (the number of specified completions)", completions)))
			}
			if r.SucceededIndexes != nil && *r.SucceededCount > total {
				errs = append(errs, field.Invalid(cp, *r.SucceededCount, fmt.Sprintf("must be less than or equal to %d (the number of indexes in the specified succeededIndexes field)", total)))
			}
		}
	}
	return errs
}

// ValidateIndexes parses a list of indexes as completedIndexes writes it
// ("0,2-4,7": increasing intervals below completions) and returns how
// many indexes it holds.
func ValidateIndexes(s string, completions int32) (int32, error) {
	if s == "" {
		return 0, nil
	}
	var total int32
	last := int64(-1)
	for _, part := range strings.Split(s, ",") {
		bounds := strings.Split(part, "-")
		if len(bounds) > 2 {
			return 0, fmt.Errorf("the fragment %q violates the requirement that an index interval can have at most two parts separated by '-'", part)
		}
		var ends [2]int64
		for i, b := range bounds {
			v, err := strconv.ParseInt(b, 10, 32)
			if err != nil {
				return 0, fmt.Errorf("cannot convert string to integer for index: %q", b)
			}
			if v >= int64(completions) {
				return 0, fmt.Errorf("too large index: %q", b)
			}
			if v <= last {
				return 0, fmt.Errorf("non-increasing order, previous: %d, current: %d", last, v)
			}
			ends[i], last = v, v
		}
		if len(bounds) == 2 {
			total += int32(ends[1]-ends[0]) + 1
		} else {
			total++
		}
	}
	return total, nil
}

// validatePodReplacementPolicy: Failed or TerminatingOrFailed, and only
// Failed with a pod failure policy.
func validatePodReplacementPolicy(s *batchv1.JobSpec, p *field.Path) field.ErrorList {
	prp := s.PodReplacementPolicy
	switch {
	case prp == nil:
		return nil
	case s.PodFailurePolicy != nil && *prp != batchv1.Failed:
		return field.ErrorList{field.NotSupported(p, *prp, []batchv1.PodReplacementPolicy{batchv1.Failed})}
	case !slices.Contains(podReplacementPolicies, *prp):
		return field.ErrorList{field.NotSupported(p, *prp, podReplacementPolicies)}
	}
	return nil
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
	errs = append(errs, apivalidation.ValidateImmutableField(j.Spec.PodFailurePolicy, old.Spec.PodFailurePolicy, p.Child("podFailurePolicy"))...)
	errs = append(errs, apivalidation.ValidateImmutableField(j.Spec.BackoffLimitPerIndex, old.Spec.BackoffLimitPerIndex, p.Child("backoffLimitPerIndex"))...)
	errs = append(errs, apivalidation.ValidateImmutableField(j.Spec.SuccessPolicy, old.Spec.SuccessPolicy, p.Child("successPolicy"))...)
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
	completions := deref32(j.Spec.Completions)
	if isIndexed(&j.Spec) && st.CompletedIndexes != "" {
		if _, err := ValidateIndexes(st.CompletedIndexes, completions); err != nil {
			errs = append(errs, field.Invalid(p.Child("completedIndexes"), st.CompletedIndexes, fmt.Sprintf("error parsing completedIndexes: %s", err)))
		}
	}
	if st.FailedIndexes != nil {
		switch {
		case j.Spec.BackoffLimitPerIndex == nil:
			errs = append(errs, field.Invalid(p.Child("failedIndexes"), *st.FailedIndexes, "cannot set failedIndexes when backoffLimitPerIndex is nil"))
		default:
			if _, err := ValidateIndexes(*st.FailedIndexes, completions); err != nil {
				errs = append(errs, field.Invalid(p.Child("failedIndexes"), *st.FailedIndexes, fmt.Sprintf("error parsing failedIndexes: %s", err)))
			}
		}
	}
	return errs
}

func deref32(v *int32) int32 {
	if v == nil {
		return 0
	}
	return *v
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
