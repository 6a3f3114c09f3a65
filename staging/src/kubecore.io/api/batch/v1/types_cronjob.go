package v1

import (
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// CronJob makes a Job from its template at every time its schedule names.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type CronJob struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Desired behaviour of the CronJob, its schedule included.
	Spec CronJobSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`

	// Most recently observed status of the CronJob. Written by the system.
	Status CronJobStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ConcurrencyPolicy says what a CronJob does when a run is due while an
// earlier one is still active.
type ConcurrencyPolicy string

// The concurrency policies.
const (
	// AllowConcurrent runs the Jobs side by side.
	AllowConcurrent ConcurrencyPolicy = "Allow"
	// ForbidConcurrent skips the new run.
	ForbidConcurrent ConcurrencyPolicy = "Forbid"
	// ReplaceConcurrent deletes the active Jobs and starts the new one.
	ReplaceConcurrent ConcurrencyPolicy = "Replace"
)

// CronJobSpec is the desired behaviour of a CronJob.
type CronJobSpec struct {
	// The schedule, in cron format: five fields (minute, hour, day of
	// month, month, day of week) or a macro such as @hourly.
	Schedule string `json:"schedule" protobuf:"bytes,1,opt,name=schedule"`

	// Time zone name (tz database, "Etc/UTC") the schedule is read in; the
	// controller's local time zone when unset.
	TimeZone *string `json:"timeZone,omitempty" protobuf:"bytes,8,opt,name=timeZone"`

	// Seconds after a scheduled time within which a missed run may still
	// start; later it is counted as missed. Unset means no deadline.
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty" protobuf:"varint,2,opt,name=startingDeadlineSeconds"`

	// What to do when a run is due while another is active: Allow (the
	// default), Forbid or Replace.
	ConcurrencyPolicy ConcurrencyPolicy `json:"concurrencyPolicy,omitempty" protobuf:"bytes,3,opt,name=concurrencyPolicy"`

	// True stops new runs; running Jobs are not affected. Defaults to
	// false.
	Suspend *bool `json:"suspend,omitempty" protobuf:"varint,4,opt,name=suspend"`

	// Template of the Jobs the CronJob makes.
	JobTemplate JobTemplateSpec `json:"jobTemplate" protobuf:"bytes,5,opt,name=jobTemplate"`

	// Successful finished Jobs to keep. Defaults to 3.
	SuccessfulJobsHistoryLimit *int32 `json:"successfulJobsHistoryLimit,omitempty" protobuf:"varint,6,opt,name=successfulJobsHistoryLimit"`

	// Failed finished Jobs to keep. Defaults to 1.
	FailedJobsHistoryLimit *int32 `json:"failedJobsHistoryLimit,omitempty" protobuf:"varint,7,opt,name=failedJobsHistoryLimit"`
}

// JobTemplateSpec is the template of a Job made by a CronJob.
type JobTemplateSpec struct {
	// Metadata of the Jobs made from the template.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec of the Jobs made from the template.
	Spec JobSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// CronJobStatus is the most recently observed state of a CronJob.
type CronJobStatus struct {
	// References to the CronJob's Jobs still running.
	// +listType=atomic
	Active []corev1.ObjectReference `json:"active,omitempty" protobuf:"bytes,1,rep,name=active"`

	// The last time a Job was scheduled.
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty" protobuf:"bytes,4,opt,name=lastScheduleTime"`

	// The last time a Job of the CronJob completed successfully.
	LastSuccessfulTime *metav1.Time `json:"lastSuccessfulTime,omitempty" protobuf:"bytes,5,opt,name=lastSuccessfulTime"`
}

// CronJobList is a list of CronJobs.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type CronJobList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// The CronJobs.
	Items []CronJob `json:"items" protobuf:"bytes,2,rep,name=items"`
}
