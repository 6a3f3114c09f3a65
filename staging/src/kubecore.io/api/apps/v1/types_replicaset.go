package v1

import (
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// ReplicaSet keeps a given number of pods matching its selector running.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ReplicaSet struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. Empty labels default to the template's.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Desired behaviour of the ReplicaSet.
	Spec ReplicaSetSpec `json:"spec,omitempty"`

	// Most recently observed status of the ReplicaSet. Written by the system.
	Status ReplicaSetStatus `json:"status,omitempty"`
}

// ReplicaSetSpec is the desired state of a ReplicaSet.
type ReplicaSetSpec struct {
	// Number of desired pods; unset means 1. A pointer so that an explicit 0
	// differs from unset.
	Replicas *int32 `json:"replicas,omitempty"`

	// Seconds a new pod must be ready, with no container crashing, before it
	// counts as available. Defaults to 0.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`

	// Label query over the pods counted against replicas. It must match the
	// template's labels.
	Selector *metav1.LabelSelector `json:"selector"`

	// Pod template used to create pods when too few exist.
	Template corev1.PodTemplateSpec `json:"template,omitempty"`
}

// ReplicaSetStatus is the most recently observed state of a ReplicaSet.
type ReplicaSetStatus struct {
	// Non-terminating pods selected by this ReplicaSet.
	Replicas int32 `json:"replicas"`

	// Non-terminating pods whose labels match all of the template's labels.
	FullyLabeledReplicas int32 `json:"fullyLabeledReplicas,omitempty"`

	// Non-terminating pods with a Ready condition.
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// Non-terminating pods ready for at least minReadySeconds.
	AvailableReplicas int32 `json:"availableReplicas,omitempty"`

	// Pods with a deletionTimestamp that have not yet reached phase Failed
	// or Succeeded.
	TerminatingReplicas *int32 `json:"terminatingReplicas,omitempty"`

	// Generation of the ReplicaSet last acted on by the controller.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Latest observations of the ReplicaSet's state.
	Conditions []ReplicaSetCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// ReplicaSetConditionType is the type of a ReplicaSetCondition.
type ReplicaSetConditionType string

// The condition types of a ReplicaSet.
const (
	// ReplicaSetReplicaFailure is set when a pod could not be created (quota,
	// limits, admission) or deleted.
	ReplicaSetReplicaFailure ReplicaSetConditionType = "ReplicaFailure"
)

// ReplicaSetCondition is one observation of a ReplicaSet's state.
type ReplicaSetCondition struct {
	// Type of the condition.
	Type ReplicaSetConditionType `json:"type"`
	// True, False or Unknown.
	Status corev1.ConditionStatus `json:"status"`
	// Last time the status changed from one value to another.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
	// One-word CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty"`
	// Human-readable details of the last transition.
	Message string `json:"message,omitempty"`
}

// ReplicaSetList is a list of ReplicaSets.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ReplicaSetList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`

	// The ReplicaSets.
	Items []ReplicaSet `json:"items"`
}
