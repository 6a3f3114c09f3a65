package v1

import (
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
)

// Job runs pods until a given number of them finish successfully.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Job struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Desired behaviour of the Job.
	Spec JobSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`

	// Most recently observed status of the Job. Written by the system.
	Status JobStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// CompletionMode says how the successful pods of a Job are counted.
type CompletionMode string

// The completion modes.
const (
	// NonIndexedCompletion: the Job is complete once spec.completions pods
	// have succeeded, any of them.
	NonIndexedCompletion CompletionMode = "NonIndexed"
	// IndexedCompletion: each pod gets a completion index in
	// [0, spec.completions); the Job is complete once a pod of every index
	// has succeeded.
	IndexedCompletion CompletionMode = "Indexed"
)

// JobSpec is the desired behaviour of a Job.
type JobSpec struct {
	// Most pods the Job runs at once. Defaults to 1; 0 pauses the Job.
	Parallelism *int32 `json:"parallelism,omitempty" protobuf:"varint,1,opt,name=parallelism"`

	// Number of pods that must succeed for the Job to be complete. Unset
	// means any one success completes the Job (a work queue); defaults to 1
	// when parallelism is unset too.
	Completions *int32 `json:"completions,omitempty" protobuf:"varint,2,opt,name=completions"`

	// Seconds, counted from startTime, the Job may run before it fails with
	// reason DeadlineExceeded and its running pods are stopped. Suspending
	// the Job resets the count.
	ActiveDeadlineSeconds *int64 `json:"activeDeadlineSeconds,omitempty" protobuf:"varint,3,opt,name=activeDeadlineSeconds"`

	// Number of retries (failed pods, or container restarts under
	// restartPolicy OnFailure) before the Job fails with reason
	// BackoffLimitExceeded. Defaults to 6.
	BackoffLimit *int32 `json:"backoffLimit,omitempty" protobuf:"varint,7,opt,name=backoffLimit"`

	// Label query over the pods the Job counts. Unless manualSelector is
	// true the API server sets it, to the Job's controller-uid label.
	Selector *metav1.LabelSelector `json:"selector,omitempty" protobuf:"bytes,4,opt,name=selector"`

	// True lets the user choose the selector and the template's labels;
	// otherwise the API server generates both from the Job's uid. Leave it
	// unset unless the labels are known to be unique.
	ManualSelector *bool `json:"manualSelector,omitempty" protobuf:"varint,5,opt,name=manualSelector"`

	// Pod template of the Job's pods. Its restartPolicy must be Never or
	// OnFailure.
	Template corev1.PodTemplateSpec `json:"template" protobuf:"bytes,6,opt,name=template"`

	// Seconds after the Job finished (Complete or Failed) after which it is
	// deleted, with its pods. Unset keeps it; 0 deletes it as soon as it
	// finishes.
	TTLSecondsAfterFinished *int32 `json:"ttlSecondsAfterFinished,omitempty" protobuf:"varint,8,opt,name=ttlSecondsAfterFinished"`

	// How pod completions are counted: NonIndexed (the default) or Indexed.
	// Indexed needs completions; its pods carry their index in the
	// batch.kubernetes.io/job-completion-index annotation and label and in
	// the JOB_COMPLETION_INDEX environment variable. Immutable.
	CompletionMode *CompletionMode `json:"completionMode,omitempty" protobuf:"bytes,9,opt,name=completionMode"`

	// True stops the Job: no pods are created and running ones are deleted,
	// and the active deadline is reset. Defaults to false.
	Suspend *bool `json:"suspend,omitempty" protobuf:"varint,10,opt,name=suspend"`
}

// JobStatus is the most recently observed state of a Job.
type JobStatus struct {
	// Latest observations of the Job's state: Suspended while suspended;
	// SuccessCriteriaMet then Complete, or FailureTarget then Failed, when
	// it finishes.
	// +listType=atomic
	Conditions []JobCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`

	// When the controller first started the Job (or resumed it last).
	StartTime *metav1.Time `json:"startTime,omitempty" protobuf:"bytes,2,opt,name=startTime"`

	// When the Job completed; set only on success.
	CompletionTime *metav1.Time `json:"completionTime,omitempty" protobuf:"bytes,3,opt,name=completionTime"`

	// Pods pending or running, not being deleted.
	Active int32 `json:"active,omitempty" protobuf:"varint,4,opt,name=active"`

	// Pods that reached phase Succeeded.
	Succeeded int32 `json:"succeeded,omitempty" protobuf:"varint,5,opt,name=succeeded"`

	// Pods that reached phase Failed.
	Failed int32 `json:"failed,omitempty" protobuf:"varint,6,opt,name=failed"`

	// Pods being deleted that have not yet finished.
	Terminating *int32 `json:"terminating,omitempty" protobuf:"varint,11,opt,name=terminating"`

	// Completed indexes of an Indexed Job, as comma-separated ranges in
	// increasing order ("1,3-5,7").
	CompletedIndexes string `json:"completedIndexes,omitempty" protobuf:"bytes,7,opt,name=completedIndexes"`

	// Uids of finished pods the controller has seen but not yet added to
	// succeeded and failed; their tracking finalizer is removed once they
	// are counted.
	UncountedTerminatedPods *UncountedTerminatedPods `json:"uncountedTerminatedPods,omitempty" protobuf:"bytes,8,opt,name=uncountedTerminatedPods"`

	// Active pods with a Ready condition.
	Ready *int32 `json:"ready,omitempty" protobuf:"varint,9,opt,name=ready"`
}

// UncountedTerminatedPods holds the uids of finished pods not yet counted
// in a Job's status.
type UncountedTerminatedPods struct {
	// Uids of succeeded pods.
	// +listType=set
	Succeeded []types.UID `json:"succeeded,omitempty" protobuf:"bytes,1,rep,name=succeeded"`

	// Uids of failed pods.
	// +listType=set
	Failed []types.UID `json:"failed,omitempty" protobuf:"bytes,2,rep,name=failed"`
}

// JobConditionType is the type of a JobCondition.
type JobConditionType string

// The condition types of a Job.
const (
	// JobSuspended is True while the Job is suspended.
	JobSuspended JobConditionType = "Suspended"
	// JobComplete is True once the Job has finished successfully.
	JobComplete JobConditionType = "Complete"
	// JobFailed is True once the Job has failed.
	JobFailed JobConditionType = "Failed"
	// JobSuccessCriteriaMet is True once the Job met its success criteria;
	// Complete follows once its pods are gone.
	JobSuccessCriteriaMet JobConditionType = "SuccessCriteriaMet"
	// JobFailureTarget is True once the Job is bound to fail; Failed
	// follows once its pods are gone.
	JobFailureTarget JobConditionType = "FailureTarget"
)

// JobCondition is one observation of a Job's state.
type JobCondition struct {
	// Type of the condition.
	Type JobConditionType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// True, False or Unknown.
	Status corev1.ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// Last time the condition was checked.
	LastProbeTime metav1.Time `json:"lastProbeTime,omitempty" protobuf:"bytes,3,opt,name=lastProbeTime"`
	// Last time the status changed from one value to another.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	// One-word CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	// Human-readable details of the last transition.
	Message string `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// JobList is a list of Jobs.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type JobList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// The Jobs.
	Items []Job `json:"items" protobuf:"bytes,2,rep,name=items"`
}
