package v1

import (
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

// StatefulSet runs pods with stable identities: each replica keeps its
// ordinal name, its DNS name under the governing Service, and its own
// PersistentVolumeClaims across rescheduling.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type StatefulSet struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Desired identities and pods of the set.
	Spec StatefulSetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`

	// Most recently observed status of the set. Written by the system.
	Status StatefulSetStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// PodManagementPolicyType says how a StatefulSet orders pod creation and
// deletion.
type PodManagementPolicyType string

// The values of PodManagementPolicyType.
const (
	// OrderedReadyPodManagement creates pods one at a time in increasing
	// ordinal order, each after the previous one is ready, and deletes them
	// in decreasing order.
	OrderedReadyPodManagement PodManagementPolicyType = "OrderedReady"
	// ParallelPodManagement creates and deletes pods all at once, without
	// waiting for readiness or termination.
	ParallelPodManagement PodManagementPolicyType = "Parallel"
)

// StatefulSetUpdateStrategyType names how a StatefulSet updates its pods.
type StatefulSetUpdateStrategyType string

// The values of StatefulSetUpdateStrategyType.
const (
	// RollingUpdateStatefulSetStrategyType replaces pods with the update
	// revision one at a time, from the highest ordinal down to the partition.
	RollingUpdateStatefulSetStrategyType StatefulSetUpdateStrategyType = "RollingUpdate"
	// OnDeleteStatefulSetStrategyType updates a pod only when it is deleted
	// by someone else.
	OnDeleteStatefulSetStrategyType StatefulSetUpdateStrategyType = "OnDelete"
)

// StatefulSetUpdateStrategy says how a StatefulSet rolls out a new template.
type StatefulSetUpdateStrategy struct {
	// "RollingUpdate" or "OnDelete"; defaults to RollingUpdate.
	Type StatefulSetUpdateStrategyType `json:"type,omitempty" protobuf:"bytes,1,opt,name=type"`
	// Parameters of a rolling update; only with type RollingUpdate.
	RollingUpdate *RollingUpdateStatefulSetStrategy `json:"rollingUpdate,omitempty" protobuf:"bytes,2,opt,name=rollingUpdate"`
}

// RollingUpdateStatefulSetStrategy holds the parameters of a StatefulSet
// rolling update.
type RollingUpdateStatefulSetStrategy struct {
	// Ordinal from which pods are updated: pods with a lower ordinal keep the
	// current revision, which allows canaries. Defaults to 0.
	Partition *int32 `json:"partition,omitempty" protobuf:"varint,1,opt,name=partition"`
	// Pods that may be unavailable during the update, as a number or a
	// percentage of replicas (rounded up); never 0. Defaults to 1.
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty" protobuf:"bytes,2,opt,name=maxUnavailable"`
}

// PersistentVolumeClaimRetentionPolicyType says whether claims made from the
// volumeClaimTemplates outlive their pods.
type PersistentVolumeClaimRetentionPolicyType string

// The values of PersistentVolumeClaimRetentionPolicyType.
const (
	// RetainPersistentVolumeClaimRetentionPolicyType keeps the claims; the
	// default.
	RetainPersistentVolumeClaimRetentionPolicyType PersistentVolumeClaimRetentionPolicyType = "Retain"
	// DeletePersistentVolumeClaimRetentionPolicyType deletes the claims in
	// the situation the policy field names.
	DeletePersistentVolumeClaimRetentionPolicyType PersistentVolumeClaimRetentionPolicyType = "Delete"
)

// StatefulSetPersistentVolumeClaimRetentionPolicy says what happens to the
// claims made from the volumeClaimTemplates.
type StatefulSetPersistentVolumeClaimRetentionPolicy struct {
	// What happens to the claims when the StatefulSet is deleted: Retain
	// (default) or Delete.
	WhenDeleted PersistentVolumeClaimRetentionPolicyType `json:"whenDeleted,omitempty" protobuf:"bytes,1,opt,name=whenDeleted"`
	// What happens to the claims of pods removed by a scale-down: Retain
	// (default) or Delete.
	WhenScaled PersistentVolumeClaimRetentionPolicyType `json:"whenScaled,omitempty" protobuf:"bytes,2,opt,name=whenScaled"`
}

// StatefulSetOrdinals sets how replicas are numbered.
type StatefulSetOrdinals struct {
	// Index of the first replica: replicas are numbered from start to
	// start+replicas-1. Defaults to 0.
	Start int32 `json:"start" protobuf:"varint,1,opt,name=start"`
}

// StatefulSetSpec is the desired state of a StatefulSet.
type StatefulSetSpec struct {
	// Number of desired replicas; unset means 1.
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`

	// Label query over the pods counted against replicas. It must match the
	// template's labels.
	Selector *metav1.LabelSelector `json:"selector" protobuf:"bytes,2,opt,name=selector"`

	// Pod template; pod N of set "web" is named "web-N". Its restartPolicy
	// must be Always.
	Template corev1.PodTemplateSpec `json:"template" protobuf:"bytes,3,opt,name=template"`

	// Claims each pod gets its own copy of, named <claim>-<pod>. Each must be
	// mounted by name in a container of the template, and takes precedence
	// over a template volume of the same name.
	// +listType=atomic
	VolumeClaimTemplates []corev1.PersistentVolumeClaim `json:"volumeClaimTemplates,omitempty" protobuf:"bytes,4,rep,name=volumeClaimTemplates"`

	// Name of the headless Service that gives the pods their DNS names,
	// <pod>.<serviceName>.<namespace>.svc.cluster.local.
	ServiceName string `json:"serviceName" protobuf:"bytes,5,opt,name=serviceName"`

	// "OrderedReady" (default) or "Parallel": how pods are created on scale
	// up and deleted on scale down.
	PodManagementPolicy PodManagementPolicyType `json:"podManagementPolicy,omitempty" protobuf:"bytes,6,opt,name=podManagementPolicy"`

	// How pods are updated when the template changes.
	UpdateStrategy StatefulSetUpdateStrategy `json:"updateStrategy,omitempty" protobuf:"bytes,7,opt,name=updateStrategy"`

	// Number of ControllerRevisions kept besides the current ones; unset
	// means 10.
	RevisionHistoryLimit *int32 `json:"revisionHistoryLimit,omitempty" protobuf:"varint,8,opt,name=revisionHistoryLimit"`

	// Seconds a new pod must be ready, with no container crashing, before it
	// counts as available. Defaults to 0.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty" protobuf:"varint,9,opt,name=minReadySeconds"`

	// Whether claims made from volumeClaimTemplates are deleted with the set
	// or on scale-down. By default they are kept.
	PersistentVolumeClaimRetentionPolicy *StatefulSetPersistentVolumeClaimRetentionPolicy `json:"persistentVolumeClaimRetentionPolicy,omitempty" protobuf:"bytes,10,opt,name=persistentVolumeClaimRetentionPolicy"`

	// Numbering of the replicas; by default the first one is 0.
	Ordinals *StatefulSetOrdinals `json:"ordinals,omitempty" protobuf:"bytes,11,opt,name=ordinals"`
}

// StatefulSetStatus is the most recently observed state of a StatefulSet.
type StatefulSetStatus struct {
	// Generation of the StatefulSet last acted on by the controller.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`

	// Pods created by the controller.
	Replicas int32 `json:"replicas" protobuf:"varint,2,opt,name=replicas"`

	// Pods with a Ready condition.
	ReadyReplicas int32 `json:"readyReplicas,omitempty" protobuf:"varint,3,opt,name=readyReplicas"`

	// Pods made from currentRevision.
	CurrentReplicas int32 `json:"currentReplicas,omitempty" protobuf:"varint,4,opt,name=currentReplicas"`

	// Pods made from updateRevision.
	UpdatedReplicas int32 `json:"updatedReplicas,omitempty" protobuf:"varint,5,opt,name=updatedReplicas"`

	// Revision of the pods with ordinals [0, currentReplicas).
	CurrentRevision string `json:"currentRevision,omitempty" protobuf:"bytes,6,opt,name=currentRevision"`

	// Revision of the pods with ordinals [replicas-updatedReplicas, replicas).
	UpdateRevision string `json:"updateRevision,omitempty" protobuf:"bytes,7,opt,name=updateRevision"`

	// Hash collisions met while naming the newest ControllerRevision.
	CollisionCount *int32 `json:"collisionCount,omitempty" protobuf:"varint,9,opt,name=collisionCount"`

	// Latest observations of the StatefulSet's state.
	// +listType=map
	// +listMapKey=type
	Conditions []StatefulSetCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,10,rep,name=conditions"`

	// Pods ready for at least minReadySeconds.
	AvailableReplicas int32 `json:"availableReplicas" protobuf:"varint,11,opt,name=availableReplicas"`
}

// StatefulSetConditionType is the type of a StatefulSetCondition.
type StatefulSetConditionType string

// StatefulSetCondition is one observation of a StatefulSet's state.
type StatefulSetCondition struct {
	// Type of the condition.
	Type StatefulSetConditionType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// True, False or Unknown.
	Status corev1.ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// Last time the status changed from one value to another.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// One-word CamelCase reason for the last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Human-readable details of the last transition.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// StatefulSetList is a list of StatefulSets.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type StatefulSetList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// The StatefulSets.
	Items []StatefulSet `json:"items" protobuf:"bytes,2,rep,name=items"`
}
