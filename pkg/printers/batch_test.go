package printers

import (
	"testing"
	"time"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func TestPrintJob(t *testing.T) {
	i32 := func(v int32) *int32 { return &v }
	ts := func(ago time.Duration) *metav1.Time { t := metav1.NewTime(now.Add(-ago)); return &t }
	cond := func(ct batchv1.JobConditionType) []batchv1.JobCondition {
		return []batchv1.JobCondition{{Type: ct, Status: corev1.ConditionTrue}}
	}
	tests := []struct {
		name                           string
		spec                           batchv1.JobSpec
		status                         batchv1.JobStatus
		deleting                       bool
		status_, completions, duration string
	}{
		{"running", batchv1.JobSpec{Completions: i32(3)}, batchv1.JobStatus{Succeeded: 1, StartTime: ts(90 * time.Second)}, false, "Running", "1/3", "90s"},
		{"complete", batchv1.JobSpec{Completions: i32(1)}, batchv1.JobStatus{Succeeded: 1, StartTime: ts(time.Hour), CompletionTime: ts(time.Hour - 5*time.Second), Conditions: cond(batchv1.JobComplete)}, false, "Complete", "1/1", "5s"},
		{"failed", batchv1.JobSpec{Completions: i32(1)}, batchv1.JobStatus{Conditions: cond(batchv1.JobFailed)}, false, "Failed", "0/1", ""},
		{"work queue", batchv1.JobSpec{Parallelism: i32(4)}, batchv1.JobStatus{}, false, "Running", "0/1 of 4", ""},
		{"work queue of one", batchv1.JobSpec{Parallelism: i32(1)}, batchv1.JobStatus{}, false, "Running", "0/1", ""},
		{"suspended", batchv1.JobSpec{Completions: i32(2)}, batchv1.JobStatus{Conditions: cond(batchv1.JobSuspended)}, false, "Suspended", "0/2", ""},
		{"terminating", batchv1.JobSpec{Completions: i32(2)}, batchv1.JobStatus{Conditions: cond(batchv1.JobSuspended)}, true, "Terminating", "0/2", ""},
		{"failure target", batchv1.JobSpec{Completions: i32(2)}, batchv1.JobStatus{Conditions: cond(batchv1.JobFailureTarget)}, false, "FailureTarget", "0/2", ""},
		{"success criteria met", batchv1.JobSpec{Completions: i32(2)}, batchv1.JobStatus{Succeeded: 2, Conditions: cond(batchv1.JobSuccessCriteriaMet)}, false, "SuccessCriteriaMet", "2/2", ""},
	}
	c := &printContext{now: now}
	for _, tt := range tests {
		j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j", CreationTimestamp: metav1.NewTime(now.Add(-2 * time.Hour))}, Spec: tt.spec, Status: tt.status}
		if tt.deleting {
			j.DeletionTimestamp = ts(0)
		}
		r, err := printJob(c, j)
		if err != nil {
			t.Fatal(err)
		}
		if r.cells[1] != tt.status_ || r.cells[2] != tt.completions || r.cells[3] != tt.duration || r.cells[4] != "120m" || r.cells[7] != "<none>" {
			t.Errorf("%s: cells %v, want status %q completions %q duration %q", tt.name, r.cells, tt.status_, tt.completions, tt.duration)
		}
	}
}

func TestPrintCronJob(t *testing.T) {
	yes, tz := true, "Europe/Paris"
	last := metav1.NewTime(now.Add(-3 * time.Minute))
	c := &printContext{now: now}
	for _, tt := range []struct {
		cj   batchv1.CronJob
		want []any
	}{
		{batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "a", CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))}, Spec: batchv1.CronJobSpec{Schedule: "@hourly"}},
			[]any{"a", "@hourly", "<none>", "<unset>", int64(0), "<none>", "60m"}},
		{batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "b", CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))},
			Spec:   batchv1.CronJobSpec{Schedule: "0 3 * * *", Suspend: &yes, TimeZone: &tz},
			Status: batchv1.CronJobStatus{Active: []corev1.ObjectReference{{Name: "x"}}, LastScheduleTime: &last}},
			[]any{"b", "0 3 * * *", "Europe/Paris", "True", int64(1), "3m", "60m"}},
	} {
		r, err := printCronJob(c, &tt.cj)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range tt.want {
			if r.cells[i] != w {
				t.Errorf("%s: cell %d = %v, want %v (cells %v)", tt.cj.Name, i, r.cells[i], w, r.cells)
			}
		}
	}
}
