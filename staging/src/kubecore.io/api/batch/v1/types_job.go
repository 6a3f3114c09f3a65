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

	// How failed pods are handled: the first rule matching a failed pod
	// (on its containers' exit codes or its conditions) decides whether the
	// failure fails the Job, fails the pod's index, is ignored or counts
	// against backoffLimit (the default, when no rule matches). Needs
	// restartPolicy Never. Immutable.
	PodFailurePolicy *PodFailurePolicy `json:"podFailurePolicy,omitempty" protobuf:"bytes,11,opt,name=podFailurePolicy"`

	// When an Indexed Job may be declared succeeded before every index
	// succeeded: once any rule is met the Job gets SuccessCriteriaMet, its
	// remaining pods are stopped, then it is Complete. Immutable.
	SuccessPolicy *SuccessPolicy `json:"successPolicy,omitempty" protobuf:"bytes,16,opt,name=successPolicy"`

	// Retries of each index of an Indexed Job before that index is marked
	// failed (status.failedIndexes); the failures of an index are counted in
	// its pods' batch.kubernetes.io/job-index-failure-count annotation.
	// Immutable.
	BackoffLimitPerIndex *int32 `json:"backoffLimitPerIndex,omitempty" protobuf:"varint,12,opt,name=backoffLimitPerIndex"`

	// With backoffLimitPerIndex: the number of failed indexes past which the
	// Job fails (reason MaxFailedIndexesExceeded) and its pods are stopped.
	// At most completions and 100000.
	MaxFailedIndexes *int32 `json:"maxFailedIndexes,omitempty" protobuf:"varint,13,opt,name=maxFailedIndexes"`

	// When a replacement pod is created: TerminatingOrFailed (as soon as a
	// pod is being deleted) or Failed (only once it is fully terminated and
	// failed). Defaults to Failed with a podFailurePolicy, which only allows
	// Failed, and to TerminatingOrFailed otherwise.
	PodReplacementPolicy *PodReplacementPolicy `json:"podReplacementPolicy,omitempty" protobuf:"bytes,14,opt,name=podReplacementPolicy"`
}

// PodReplacementPolicy says when a Job creates the replacement of a pod.
type PodReplacementPolicy string

// The pod replacement policies.
const (
	// TerminatingOrFailed replaces a pod once it is being deleted or has
	// failed.
	TerminatingOrFailed PodReplacementPolicy = "TerminatingOrFailed"
	// Failed replaces a pod only once it has terminated and failed.
	Failed PodReplacementPolicy = "Failed"
)

// PodFailurePolicyAction is what a matching rule of a pod failure policy
// does.
type PodFailurePolicyAction string

// The pod failure policy actions.
const (
	// PodFailurePolicyActionFailJob fails the Job and stops its pods.
	PodFailurePolicyActionFailJob PodFailurePolicyAction = "FailJob"
	// PodFailurePolicyActionFailIndex marks the pod's index failed without
	// retrying it; needs backoffLimitPerIndex.
	PodFailurePolicyActionFailIndex PodFailurePolicyAction = "FailIndex"
	// PodFailurePolicyActionIgnore replaces the pod without counting the
	// failure.
	PodFailurePolicyActionIgnore PodFailurePolicyAction = "Ignore"
	// PodFailurePolicyActionCount counts the failure against the backoff
	// limit, as when no rule matches.
	PodFailurePolicyActionCount PodFailurePolicyAction = "Count"
)

// PodFailurePolicyOnExitCodesOperator says how exit codes are compared with
// a rule's values.
type PodFailurePolicyOnExitCodesOperator string

// The exit code operators.
const (
	// PodFailurePolicyOnExitCodesOpIn matches a non-zero exit code among the
	// values.
	PodFailurePolicyOnExitCodesOpIn PodFailurePolicyOnExitCodesOperator = "In"
	// PodFailurePolicyOnExitCodesOpNotIn matches a non-zero exit code not
	// among the values.
	PodFailurePolicyOnExitCodesOpNotIn PodFailurePolicyOnExitCodesOperator = "NotIn"
)

// PodFailurePolicyOnExitCodesRequirement matches a failed pod by the exit
// codes of its terminated containers.
type PodFailurePolicyOnExitCodesRequirement struct {
	// Only the container (or init container) of this name is looked at;
	// unset means all of them.
	ContainerName *string `json:"containerName,omitempty" protobuf:"bytes,1,opt,name=containerName"`

	// In or NotIn.
	Operator PodFailurePolicyOnExitCodesOperator `json:"operator" protobuf:"bytes,2,opt,name=operator"`

	// The exit codes, sorted, unique, at most 255; 0 is not allowed with In.
	// +listType=set
	Values []int32 `json:"values" protobuf:"varint,3,rep,name=values"`
}

// PodFailurePolicyOnPodConditionsPattern matches a failed pod by one of its
// conditions.
type PodFailurePolicyOnPodConditionsPattern struct {
	// The condition's type.
	Type corev1.PodConditionType `json:"type" protobuf:"bytes,1,opt,name=type"`

	// The condition's status; defaults to True.
	Status corev1.ConditionStatus `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
}

// PodFailurePolicyRule is one rule of a pod failure policy: an action and
// one requirement, on exit codes or on pod conditions.
type PodFailurePolicyRule struct {
	// What to do with a failed pod that matches.
	Action PodFailurePolicyAction `json:"action" protobuf:"bytes,1,opt,name=action"`

	// Matches on the exit codes of the pod's containers.
	OnExitCodes *PodFailurePolicyOnExitCodesRequirement `json:"onExitCodes,omitempty" protobuf:"bytes,2,opt,name=onExitCodes"`

	// Matches when the pod has any of these conditions. At most 20.
	// +listType=atomic
	OnPodConditions []PodFailurePolicyOnPodConditionsPattern `json:"onPodConditions,omitempty" protobuf:"bytes,3,rep,name=onPodConditions"`
}

// PodFailurePolicy is the ordered list of rules applied to failed pods.
type PodFailurePolicy struct {
	// The rules, at most 20, looked at in order.
	// +listType=atomic
	Rules []PodFailurePolicyRule `json:"rules" protobuf:"bytes,1,rep,name=rules"`
}

// SuccessPolicy lists the rules that declare an Indexed Job succeeded.
type SuccessPolicy struct {
	// The rules, at most 20; the Job succeeds once any is met.
	// +listType=atomic
	Rules []SuccessPolicyRule `json:"rules" protobuf:"bytes,1,rep,name=rules"`
}

// SuccessPolicyRule is met when the given indexes succeeded (all of them,
// or succeededCount of them), or when succeededCount indexes succeeded.
type SuccessPolicyRule struct {
	// Indexes as completedIndexes writes them ("0,2-4"), increasing and
	// below completions.
	SucceededIndexes *string `json:"succeededIndexes,omitempty" protobuf:"bytes,1,opt,name=succeededIndexes"`

	// How many of the indexes (of succeededIndexes, or of all) must have
	// succeeded; at most completions.
	SucceededCount *int32 `json:"succeededCount,omitempty" protobuf:"varint,2,opt,name=succeededCount"`
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

	// Failed indexes of a Job with backoffLimitPerIndex, written as
	// completedIndexes is.
	FailedIndexes *string `json:"failedIndexes,omitempty" protobuf:"bytes,10,opt,name=failedIndexes"`
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
