package v1

import (
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

// Deployment declares a desired state for a set of identical pods and rolls
// the pods to a new template through ReplicaSets.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Deployment struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Desired behaviour of the Deployment.
	Spec DeploymentSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`

	// Most recently observed status of the Deployment. Written by the system.
	Status DeploymentStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// DeploymentSpec is the desired state of a Deployment.
type DeploymentSpec struct {
	// Number of desired pods; unset means 1. A pointer so that an explicit 0
	// differs from unset.
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`

	// Label query over the pods this Deployment manages. It must match the
	// template's labels and cannot change after creation.
	Selector *metav1.LabelSelector `json:"selector" protobuf:"bytes,2,opt,name=selector"`

	// Pod template the ReplicaSets stamp out. Its restartPolicy must be
	// Always.
	Template corev1.PodTemplateSpec `json:"template" protobuf:"bytes,3,opt,name=template"`

	// How existing pods are replaced by new ones.
	Strategy DeploymentStrategy `json:"strategy,omitempty" patchStrategy:"retainKeys" protobuf:"bytes,4,opt,name=strategy"`

	// Seconds a new pod must be ready, with no container crashing, before it
	// counts as available. Defaults to 0.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty" protobuf:"varint,5,opt,name=minReadySeconds"`

	// Number of old ReplicaSets kept for rollback; unset means 10.
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty" protobuf:"varint,6,opt,name=revisionHistoryLimit"`

	// A paused Deployment does not roll out template changes.
	Paused bool `json:"paused,omitempty" protobuf:"varint,7,opt,name=paused"`

	// Seconds a rollout may go without progress before the Progressing
	// condition turns False with reason ProgressDeadlineExceeded. Unset
	// means 600.
	ProgressDeadlineSeconds *int32 `json:"progressDeadlineSeconds,omitempty" protobuf:"varint,9,opt,name=progressDeadlineSeconds"`
}

// DeploymentStrategyType names how a Deployment replaces its pods.
type DeploymentStrategyType string

// The values of DeploymentStrategyType.
const (
	// RecreateDeploymentStrategyType deletes all old pods before creating new ones.
	RecreateDeploymentStrategyType DeploymentStrategyType = "Recreate"
	// RollingUpdateDeploymentStrategyType scales the new ReplicaSet up and the
	// old ones down gradually, within maxSurge and maxUnavailable.
	RollingUpdateDeploymentStrategyType DeploymentStrategyType = "RollingUpdate"
)

// DeploymentStrategy says how a Deployment replaces existing pods.
type DeploymentStrategy struct {
	// "Recreate" or "RollingUpdate"; defaults to RollingUpdate.
	Type DeploymentStrategyType `json:"type,omitempty" protobuf:"bytes,1,opt,name=type"`

	// Parameters of a rolling update; only with type RollingUpdate.
	RollingUpdate *RollingUpdateDeployment `json:"rollingUpdate,omitempty" protobuf:"bytes,2,opt,name=rollingUpdate"`
}

// RollingUpdateDeployment bounds the pods a rolling update may take down or
// add at a time.
type RollingUpdateDeployment struct {
	// Pods that may be unavailable during the update, as a number (5) or a
	// percentage of desired pods ("10%", rounded down). Defaults to 25%; it
	// cannot be 0 when maxSurge is 0.
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty" protobuf:"bytes,1,opt,name=maxUnavailable"`

	// Pods that may be created above the desired count during the update, as
	// a number (5) or a percentage of desired pods ("10%", rounded up).
	// Defaults to 25%; it cannot be 0 when maxUnavailable is 0.
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty" protobuf:"bytes,2,opt,name=maxSurge"`
}

// DeploymentStatus is the most recently observed state of a Deployment.
type DeploymentStatus struct {
	// Generation of the Deployment last acted on by the controller.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`

	// Non-terminating pods selected by this Deployment.
	Replicas int32 `json:"replicas,omitempty" protobuf:"varint,2,opt,name=replicas"`

	// Non-terminating pods selected by this Deployment that run the current
	// template.
	UpdatedReplicas int32 `json:"updatedReplicas,omitempty" protobuf:"varint,3,opt,name=updatedReplicas"`

	// Non-terminating pods selected by this Deployment with a Ready condition.
	ReadyReplicas int32 `json:"readyReplicas,omitempty" protobuf:"varint,7,opt,name=readyReplicas"`

	// Non-terminating pods selected by this Deployment that have been ready
	// for at least minReadySeconds.
	AvailableReplicas int32 `json:"availableReplicas,omitempty" protobuf:"varint,4,opt,name=availableReplicas"`

	// Pods still needed for full availability: running but not yet
	// available, or not yet created.
	UnavailableReplicas int32 `json:"unavailableReplicas,omitempty" protobuf:"varint,5,opt,name=unavailableReplicas"`

	// Pods selected by this Deployment that have a deletionTimestamp and
	// have not yet reached phase Failed or Succeeded.
	TerminatingReplicas *int32 `json:"terminatingReplicas,omitempty" protobuf:"varint,9,opt,name=terminatingReplicas"`

	// Latest observations of the Deployment's state.
	// +listType=map
	// +listMapKey=type
	Conditions []DeploymentCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,6,rep,name=conditions"`

	// Hash collisions met while naming the newest ReplicaSet; the controller
	// mixes it into the template hash.
	CollisionCount *int32 `json:"collisionCount,omitempty" protobuf:"varint,8,opt,name=collisionCount"`
}

// DeploymentConditionType is the type of a DeploymentCondition.
type DeploymentConditionType string

// The condition types of a Deployment.
const (
	// DeploymentAvailable is True when at least the minimum number of
	// replicas has been available for minReadySeconds.
	DeploymentAvailable DeploymentConditionType = "Available"
	// DeploymentProgressing is True while a rollout makes progress, or after
	// it completed; False once the progress deadline is exceeded.
	DeploymentProgressing DeploymentConditionType = "Progressing"
	// DeploymentReplicaFailure is set when a pod of the Deployment could not
	// be created or deleted.
	DeploymentReplicaFailure DeploymentConditionType = "ReplicaFailure"
)

// DeploymentCondition is one observation of a Deployment's state.
type DeploymentCondition struct {
	// Type of the condition.
	Type DeploymentConditionType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// True, False or Unknown.
	Status corev1.ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// Last time the condition was written.
	LastUpdateTime metav1.Time `json:"lastUpdateTime,omitempty" protobuf:"bytes,6,opt,name=lastUpdateTime"`
	// Last time the status changed from one value to another.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,7,opt,name=lastTransitionTime"`
	// One-word CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Human-readable details of the last transition.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// DeploymentList is a list of Deployments.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type DeploymentList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// The Deployments.
	Items []Deployment `json:"items" protobuf:"bytes,2,rep,name=items"`
}
