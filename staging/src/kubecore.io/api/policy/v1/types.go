package v1

import (
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

// DisruptionBudgetCause is the cause type of the StatusCause an eviction
// refused by a PodDisruptionBudget carries.
const DisruptionBudgetCause metav1.CauseType = "DisruptionBudget"

// Eviction asks for a pod to be deleted subject to its disruption budgets.
// It is POSTed to the pod's eviction subresource,
// /api/v1/namespaces/{namespace}/pods/{name}/eviction.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Eviction struct {
	metav1.TypeMeta `json:",inline"`
	// Names the pod to evict.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Options for the deletion, such as a grace period or preconditions.
	DeleteOptions *metav1.DeleteOptions `json:"deleteOptions,omitempty" protobuf:"bytes,2,opt,name=deleteOptions"`
}

// PodDisruptionBudget limits how many of a set of pods voluntary
// disruptions, such as evictions, may take down at once.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PodDisruptionBudget struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Desired budget.
	Spec PodDisruptionBudgetSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`

	// Most recently observed state of the budget. Written by the system.
	Status PodDisruptionBudgetStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// PodDisruptionBudgetSpec is the desired budget.
type PodDisruptionBudgetSpec struct {
	// An eviction is allowed if at least this many selected pods (a number,
	// or a percentage such as "100%") stay available without the evicted
	// one.
	MinAvailable *intstr.IntOrString `json:"minAvailable,omitempty" protobuf:"bytes,1,opt,name=minAvailable"`

	// Label query over the pods the budget covers. A null selector matches
	// no pods; an empty one matches every pod in the namespace.
	Selector *metav1.LabelSelector `json:"selector,omitempty" patchStrategy:"replace" protobuf:"bytes,2,opt,name=selector"`

	// An eviction is allowed if at most this many selected pods (a number or
	// a percentage) are unavailable after it. Exclusive with minAvailable.
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty" protobuf:"bytes,3,opt,name=maxUnavailable"`

	// When running pods that are not yet healthy may be evicted:
	// IfHealthyBudget (the default) or AlwaysAllow.
	UnhealthyPodEvictionPolicy *UnhealthyPodEvictionPolicyType `json:"unhealthyPodEvictionPolicy,omitempty" protobuf:"bytes,4,opt,name=unhealthyPodEvictionPolicy"`
}

// UnhealthyPodEvictionPolicyType says when running but unhealthy pods may be
// evicted.
type UnhealthyPodEvictionPolicyType string

// The values of UnhealthyPodEvictionPolicyType.
const (
	// IfHealthyBudget allows evicting a running, not yet healthy pod only
	// while the application is not disrupted (currentHealthy is at least
	// desiredHealthy).
	IfHealthyBudget UnhealthyPodEvictionPolicyType = "IfHealthyBudget"
	// AlwaysAllow allows evicting running, not yet healthy pods whatever the
	// budget says.
	AlwaysAllow UnhealthyPodEvictionPolicyType = "AlwaysAllow"
)

// PodDisruptionBudgetStatus is the observed state of a budget; it may trail
// the cluster.
type PodDisruptionBudgetStatus struct {
	// Generation of the budget the status was computed for; the rest of the
	// status is valid only when it equals metadata.generation.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`

	// Pods whose eviction the API server accepted but the disruption
	// controller has not yet seen deleted, with the time of the eviction.
	DisruptedPods map[string]metav1.Time `json:"disruptedPods,omitempty" protobuf:"bytes,2,rep,name=disruptedPods"`

	// Number of disruptions currently allowed.
	DisruptionsAllowed int32 `json:"disruptionsAllowed" protobuf:"varint,3,opt,name=disruptionsAllowed"`

	// Number of healthy pods.
	CurrentHealthy int32 `json:"currentHealthy" protobuf:"varint,4,opt,name=currentHealthy"`

	// Minimum number of healthy pods wanted.
	DesiredHealthy int32 `json:"desiredHealthy" protobuf:"varint,5,opt,name=desiredHealthy"`

	// Number of pods the budget counts.
	ExpectedPods int32 `json:"expectedPods" protobuf:"varint,6,opt,name=expectedPods"`

	// Conditions of the budget; the disruption controller sets
	// DisruptionAllowed, with reason SyncFailed, InsufficientPods or
	// SufficientPods.
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,7,rep,name=conditions"`
}

// The condition the disruption controller sets and its reasons.
const (
	// DisruptionAllowedCondition says whether any covered pod may be
	// disrupted now.
	DisruptionAllowedCondition = "DisruptionAllowed"
	// SyncFailedReason: the controller could not compute the budget, so no
	// disruption is allowed.
	SyncFailedReason = "SyncFailed"
	// SufficientPodsReason: more pods than required, at least one may go.
	SufficientPodsReason = "SufficientPods"
	// InsufficientPodsReason: no more pods than required, none may go.
	InsufficientPodsReason = "InsufficientPods"
)

// PodDisruptionBudgetList is a list of PodDisruptionBudgets.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PodDisruptionBudgetList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// The PodDisruptionBudgets.
	Items []PodDisruptionBudget `json:"items" protobuf:"bytes,2,rep,name=items"`
}
