package v1

import (
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

// DaemonSet runs one copy of a pod on every eligible node.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type DaemonSet struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Desired behaviour of the DaemonSet.
	Spec DaemonSetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`

	// Most recently observed status of the DaemonSet. Written by the system.
	Status DaemonSetStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// DaemonSetUpdateStrategyType names how a DaemonSet replaces its pods.
type DaemonSetUpdateStrategyType string

// The values of DaemonSetUpdateStrategyType.
const (
	// RollingUpdateDaemonSetStrategyType replaces the pods node by node.
	RollingUpdateDaemonSetStrategyType DaemonSetUpdateStrategyType = "RollingUpdate"
	// OnDeleteDaemonSetStrategyType replaces a pod only when it is deleted
	// by someone else.
	OnDeleteDaemonSetStrategyType DaemonSetUpdateStrategyType = "OnDelete"
)

// DaemonSetUpdateStrategy says how a DaemonSet rolls out a new template.
type DaemonSetUpdateStrategy struct {
	// "RollingUpdate" or "OnDelete"; defaults to RollingUpdate.
	Type DaemonSetUpdateStrategyType `json:"type,omitempty" protobuf:"bytes,1,opt,name=type"`
	// Parameters of a rolling update; only with type RollingUpdate.
	RollingUpdate *RollingUpdateDaemonSet `json:"rollingUpdate,omitempty" protobuf:"bytes,2,opt,name=rollingUpdate"`
}

// RollingUpdateDaemonSet bounds the nodes a rolling update touches at a time.
type RollingUpdateDaemonSet struct {
	// Pods that may be unavailable during the update, as a number or a
	// percentage of desiredNumberScheduled (rounded up). Defaults to 1; it
	// cannot be 0 when maxSurge is 0.
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty" protobuf:"bytes,1,opt,name=maxUnavailable"`

	// Nodes that may run an updated pod next to the old one during the
	// update, as a number or a percentage of desiredNumberScheduled (rounded
	// up, at least 1). Defaults to 0.
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty" protobuf:"bytes,2,opt,name=maxSurge"`
}

// DaemonSetSpec is the desired state of a DaemonSet.
type DaemonSetSpec struct {
	// Label query over the pods the DaemonSet manages. It must match the
	// template's labels.
	Selector *metav1.LabelSelector `json:"selector" protobuf:"bytes,1,opt,name=selector"`

	// Pod template run on each node matching its node selector (every node
	// when it has none). Its restartPolicy must be Always.
	Template corev1.PodTemplateSpec `json:"template" protobuf:"bytes,2,opt,name=template"`

	// How pods are replaced when the template changes.
	UpdateStrategy DaemonSetUpdateStrategy `json:"updateStrategy,omitempty" protobuf:"bytes,3,opt,name=updateStrategy"`

	// Seconds a new pod must be ready, with no container crashing, before it
	// counts as available. Defaults to 0.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty" protobuf:"varint,4,opt,name=minReadySeconds"`

	// Number of old ControllerRevisions kept for rollback; unset means 10.
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty" protobuf:"varint,6,opt,name=revisionHistoryLimit"`
}

// DaemonSetStatus is the most recently observed state of a DaemonSet.
type DaemonSetStatus struct {
	// Nodes running at least one daemon pod that should run it.
	CurrentNumberScheduled int32 `json:"currentNumberScheduled" protobuf:"varint,1,opt,name=currentNumberScheduled"`

	// Nodes running the daemon pod that should not run it.
	NumberMisscheduled int32 `json:"numberMisscheduled" protobuf:"varint,2,opt,name=numberMisscheduled"`

	// Nodes that should run the daemon pod, counting those already running it.
	DesiredNumberScheduled int32 `json:"desiredNumberScheduled" protobuf:"varint,3,opt,name=desiredNumberScheduled"`

	// Nodes that should run the daemon pod and run one with a Ready
	// condition.
	NumberReady int32 `json:"numberReady" protobuf:"varint,4,opt,name=numberReady"`

	// Generation of the DaemonSet last acted on by the controller.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,5,opt,name=observedGeneration"`

	// Nodes running an updated daemon pod.
	UpdatedNumberScheduled int32 `json:"updatedNumberScheduled,omitempty" protobuf:"varint,6,opt,name=updatedNumberScheduled"`

	// Nodes that should run the daemon pod and run one that is available.
	NumberAvailable int32 `json:"numberAvailable,omitempty" protobuf:"varint,7,opt,name=numberAvailable"`

	// Nodes that should run the daemon pod and run none that is available.
	NumberUnavailable int32 `json:"numberUnavailable,omitempty" protobuf:"varint,8,opt,name=numberUnavailable"`

	// Hash collisions met while naming the newest ControllerRevision.
	CollisionCount *int32 `json:"collisionCount,omitempty" protobuf:"varint,9,opt,name=collisionCount"`

	// Latest observations of the DaemonSet's state.
	// +listType=map
	// +listMapKey=type
	Conditions []DaemonSetCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,10,rep,name=conditions"`
}

// DaemonSetConditionType is the type of a DaemonSetCondition.
type DaemonSetConditionType string

// DaemonSetCondition is one observation of a DaemonSet's state.
type DaemonSetCondition struct {
	// Type of the condition.
	Type DaemonSetConditionType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// True, False or Unknown.
	Status corev1.ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// Last time the status changed from one value to another.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// One-word CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Human-readable details of the last transition.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// DaemonSetList is a list of DaemonSets.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type DaemonSetList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// The DaemonSets.
	Items []DaemonSet `json:"items" protobuf:"bytes,2,rep,name=items"`
}
