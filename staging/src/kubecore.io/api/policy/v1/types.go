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
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Options for the deletion, such as a grace period or preconditions.
	DeleteOptions *metav1.DeleteOptions `json:"deleteOptions,omitempty"`
}

// PodDisruptionBudget limits how many of a set of pods voluntary
// disruptions, such as evictions, may take down at once.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PodDisruptionBudget struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Desired budget.
	Spec PodDisruptionBudgetSpec `json:"spec,omitempty"`

	// Most recently observed state of the budget. Written by the system.
	Status PodDisruptionBudgetStatus `json:"status,omitempty"`
}

// PodDisruptionBudgetSpec is the desired budget.
type PodDisruptionBudgetSpec struct {
	// An eviction is allowed if at least this many selected pods (a number,
	// or a percentage such as "100%") stay available without the evicted
	// one.
	MinAvailable *intstr.IntOrString `json:"minAvailable,omitempty"`

	// Label query over the pods the budget covers. A null selector matches
	// no pods; an empty one matches every pod in the namespace.
	Selector *metav1.LabelSelector `json:"selector,omitempty" patchStrategy:"replace"`

	// An eviction is allowed if at most this many selected pods (a number or
	// a percentage) are unavailable after it. Exclusive with minAvailable.
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`

	// When running pods that are not yet healthy may be evicted:
	// IfHealthyBudget (the default) or AlwaysAllow.
	UnhealthyPodEvictionPolicy *UnhealthyPodEvictionPolicyType `json:"unhealthyPodEvictionPolicy,omitempty"`
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
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Pods whose eviction the API server accepted but the disruption
	// controller has not yet seen deleted, with the time of the eviction.
	DisruptedPods map[string]metav1.Time `json:"disruptedPods,omitempty"`

	// Number of disruptions currently allowed.
	DisruptionsAllowed int32 `json:"disruptionsAllowed"`

	// Number of healthy pods.
	CurrentHealthy int32 `json:"currentHealthy"`

	// Minimum number of healthy pods wanted.
	DesiredHealthy int32 `json:"desiredHealthy"`

	// Number of pods the budget counts.
	ExpectedPods int32 `json:"expectedPods"`

	// Conditions of the budget; the disruption controller sets
	// DisruptionAllowed, with reason SyncFailed, InsufficientPods or
	// SufficientPods.
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
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
	metav1.ListMeta `json:"metadata,omitempty"`

	// The PodDisruptionBudgets.
	Items []PodDisruptionBudget `json:"items"`
}
