package validation

import (
	"strings"
	"testing"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

func ptr[T any](v T) *T { return &v }

func validJob() *batchv1.Job {
	labels := map[string]string{batchv1.ControllerUIDLabel: "uid"}
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pi"},
		Spec: batchv1.JobSpec{
			Completions: ptr[int32](2), Parallelism: ptr[int32](2), BackoffLimit: ptr[int32](6),
			CompletionMode: ptr(batchv1.NonIndexedCompletion), Suspend: ptr(false),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, DNSPolicy: corev1.DNSClusterFirst,
					Containers: []corev1.Container{{Name: "c", Image: "i", TerminationMessagePolicy: corev1.TerminationMessageReadFile, ImagePullPolicy: corev1.PullIfNotPresent}}},
			},
		},
	}
}

func expect(t *testing.T, what string, errs field.ErrorList, want string) {
	t.Helper()
	got := errs.ToAggregate()
	switch {
	case want == "" && got != nil:
		t.Errorf("%s: unexpected %v", what, got)
	case want != "" && (got == nil || !strings.Contains(got.Error(), want)):
		t.Errorf("%s: %v, want an error with %q", what, got, want)
	}
}

func TestValidateJob(t *testing.T) {
	for name, tc := range map[string]struct {
		mutate func(*batchv1.Job)
		want   string
	}{
		"valid":             {func(*batchv1.Job) {}, ""},
		"restart Always":    {func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways }, `spec.template.spec.restartPolicy: Unsupported value: "Always"`},
		"no selector":       {func(j *batchv1.Job) { j.Spec.Selector = nil }, "spec.selector: Required value"},
		"selector mismatch": {func(j *batchv1.Job) { j.Spec.Template.Labels = map[string]string{"x": "y"} }, "`selector` does not match template `labels`"},
		"negative backoff":  {func(j *batchv1.Job) { j.Spec.BackoffLimit = ptr[int32](-1) }, "spec.backoffLimit"},
		"negative ttl":      {func(j *batchv1.Job) { j.Spec.TTLSecondsAfterFinished = ptr[int32](-1) }, "spec.ttlSecondsAfterFinished"},
		"indexed without completions": {func(j *batchv1.Job) {
			j.Spec.CompletionMode, j.Spec.Completions = ptr(batchv1.IndexedCompletion), nil
		}, "spec.completions: Required value: when completion mode is Indexed"},
		"indexed too many": {func(j *batchv1.Job) {
			j.Spec.CompletionMode, j.Spec.Completions = ptr(batchv1.IndexedCompletion), ptr[int32](100001)
		}, "must be less than or equal to 100000"},
	} {
		j := validJob()
		tc.mutate(j)
		expect(t, name, ValidateJob(j), tc.want)
	}
}

func TestValidateJobUpdate(t *testing.T) {
	old := validJob()
	old.Spec.Suspend = ptr(true)
	for name, tc := range map[string]struct {
		old    *batchv1.Job
		mutate func(*batchv1.Job)
		want   string
	}{
		"parallelism":              {validJob(), func(j *batchv1.Job) { j.Spec.Parallelism = ptr[int32](5) }, ""},
		"image":                    {validJob(), func(j *batchv1.Job) { j.Spec.Template.Spec.Containers[0].Image = "j" }, "spec.template: Invalid value"},
		"node selector, running":   {validJob(), func(j *batchv1.Job) { j.Spec.Template.Spec.NodeSelector = map[string]string{"a": "b"} }, "spec.template"},
		"node selector, suspended": {old, func(j *batchv1.Job) { j.Spec.Template.Spec.NodeSelector = map[string]string{"a": "b"} }, ""},
		"selector":                 {validJob(), func(j *batchv1.Job) { j.Spec.Selector.MatchLabels["x"] = "y"; j.Spec.Template.Labels["x"] = "y" }, "spec.selector"},
		"completions, non indexed": {validJob(), func(j *batchv1.Job) { j.Spec.Completions = ptr[int32](3) }, "spec.completions"},
		"completion mode":          {validJob(), func(j *batchv1.Job) { j.Spec.CompletionMode = ptr(batchv1.IndexedCompletion) }, "spec.completionMode"},
	} {
		j := tc.old.DeepCopy()
		j.ResourceVersion, tc.old.ResourceVersion = "2", "1"
		tc.mutate(j)
		expect(t, name, ValidateJobUpdate(j, tc.old), tc.want)
	}
	indexed := validJob()
	indexed.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
	scaled := indexed.DeepCopy()
	scaled.Spec.Completions, scaled.Spec.Parallelism = ptr[int32](5), ptr[int32](5)
	indexed.ResourceVersion, scaled.ResourceVersion = "1", "2"
	expect(t, "indexed completions with parallelism", ValidateJobUpdate(scaled, indexed), "")
}

func TestValidateCronJob(t *testing.T) {
	valid := func() *batchv1.CronJob {
		j := validJob()
		j.Spec.Selector = nil
		return &batchv1.CronJob{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "nightly"},
			Spec: batchv1.CronJobSpec{Schedule: "0 3 * * *", ConcurrencyPolicy: batchv1.AllowConcurrent,
				JobTemplate: batchv1.JobTemplateSpec{Spec: j.Spec}},
		}
	}
	for name, tc := range map[string]struct {
		mutate func(*batchv1.CronJob)
		want   string
	}{
		"valid":        {func(*batchv1.CronJob) {}, ""},
		"macro":        {func(cj *batchv1.CronJob) { cj.Spec.Schedule = "@weekly" }, ""},
		"time zone":    {func(cj *batchv1.CronJob) { cj.Spec.TimeZone = ptr("America/New_York") }, ""},
		"no schedule":  {func(cj *batchv1.CronJob) { cj.Spec.Schedule = "" }, "spec.schedule: Required value"},
		"bad schedule": {func(cj *batchv1.CronJob) { cj.Spec.Schedule = "0 3 * *" }, "expected exactly 5 fields"},
		"CRON_TZ":      {func(cj *batchv1.CronJob) { cj.Spec.Schedule = "CRON_TZ=UTC 0 3 * * *" }, "use timeZone field instead"},
		"Local":        {func(cj *batchv1.CronJob) { cj.Spec.TimeZone = ptr("Local") }, "explicit time zone"},
		"empty zone":   {func(cj *batchv1.CronJob) { cj.Spec.TimeZone = ptr("") }, "timeZone must be nil or non-empty string"},
		"unknown zone": {func(cj *batchv1.CronJob) { cj.Spec.TimeZone = ptr("Nowhere/Land") }, "unknown time zone Nowhere/Land"},
		"policy":       {func(cj *batchv1.CronJob) { cj.Spec.ConcurrencyPolicy = "Sometimes" }, `spec.concurrencyPolicy: Unsupported value: "Sometimes"`},
		"long name":    {func(cj *batchv1.CronJob) { cj.Name = strings.Repeat("a", 53) }, "must be no more than 52 characters"},
		"deadline":     {func(cj *batchv1.CronJob) { cj.Spec.StartingDeadlineSeconds = ptr[int64](-1) }, "spec.startingDeadlineSeconds"},
		"history":      {func(cj *batchv1.CronJob) { cj.Spec.FailedJobsHistoryLimit = ptr[int32](-1) }, "spec.failedJobsHistoryLimit"},
		"restart Always": {func(cj *batchv1.CronJob) {
			cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways
		}, "spec.jobTemplate.spec.template.spec.restartPolicy"},
	} {
		cj := valid()
		tc.mutate(cj)
		expect(t, name, ValidateCronJob(cj), tc.want)
	}
}
