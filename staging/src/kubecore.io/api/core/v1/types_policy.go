package v1

import (
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// The kinds of this file are the namespace policies (LimitRange,
// ResourceQuota), the legacy ReplicationController and the read-only
// ComponentStatus.

// LimitType is the kind of object a LimitRangeItem constrains.
type LimitType string

// The values of LimitType.
const (
	// LimitTypePod constrains the sum over a pod's containers.
	LimitTypePod LimitType = "Pod"
	// LimitTypeContainer constrains each container of a pod.
	LimitTypeContainer LimitType = "Container"
	// LimitTypePersistentVolumeClaim constrains the storage a claim requests.
	LimitTypePersistentVolumeClaim LimitType = "PersistentVolumeClaim"
)

// LimitRangeItem is the minimum, maximum and default resources of one kind
// of object.
type LimitRangeItem struct {
	// Type of resource that this limit applies to: Container, Pod or
	// PersistentVolumeClaim.
	Type LimitType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=LimitType"`
	// Max usage constraints on this kind by resource name.
	Max ResourceList `json:"max,omitempty" protobuf:"bytes,2,rep,name=max,casttype=ResourceList,castkey=ResourceName"`
	// Min usage constraints on this kind by resource name.
	Min ResourceList `json:"min,omitempty" protobuf:"bytes,3,rep,name=min,casttype=ResourceList,castkey=ResourceName"`
	// Default resource requirement limit value by resource name if resource
	// limit is omitted.
	Default ResourceList `json:"default,omitempty" protobuf:"bytes,4,rep,name=default,casttype=ResourceList,castkey=ResourceName"`
	// DefaultRequest is the default resource requirement request value by
	// resource name if resource request is omitted.
	DefaultRequest ResourceList `json:"defaultRequest,omitempty" protobuf:"bytes,5,rep,name=defaultRequest,casttype=ResourceList,castkey=ResourceName"`
	// MaxLimitRequestRatio if specified, the named resource must have a
	// request and limit that are both non-zero where limit divided by request
	// is less than or equal to the enumerated value; this represents the max
	// burst for the named resource.
	MaxLimitRequestRatio ResourceList `json:"maxLimitRequestRatio,omitempty" protobuf:"bytes,6,rep,name=maxLimitRequestRatio,casttype=ResourceList,castkey=ResourceName"`
}

// LimitRangeSpec defines a min/max usage limit for resources that match on
// kind.
type LimitRangeSpec struct {
	// Limits is the list of LimitRangeItem objects that are enforced.
	// +listType=atomic
	Limits []LimitRangeItem `json:"limits" protobuf:"bytes,1,rep,name=limits"`
}

// LimitRange sets resource usage limits for each kind of resource in a
// Namespace.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type LimitRange struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec defines the limits enforced.
	Spec LimitRangeSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// LimitRangeList is a list of LimitRange items.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type LimitRangeList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is a list of LimitRange objects.
	Items []LimitRange `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// The resource names a quota counts besides compute resources.
const (
	// ResourceServices is the number of services.
	ResourceServices ResourceName = "services"
	// ResourceReplicationControllers is the number of replication controllers.
	ResourceReplicationControllers ResourceName = "replicationcontrollers"
	// ResourceQuotas is the number of resource quotas.
	ResourceQuotas ResourceName = "resourcequotas"
	// ResourceSecrets is the number of secrets.
	ResourceSecrets ResourceName = "secrets"
	// ResourceConfigMaps is the number of config maps.
	ResourceConfigMaps ResourceName = "configmaps"
	// ResourcePersistentVolumeClaims is the number of persistent volume claims.
	ResourcePersistentVolumeClaims ResourceName = "persistentvolumeclaims"
	// ResourceServicesNodePorts is the number of node ports services use.
	ResourceServicesNodePorts ResourceName = "services.nodeports"
	// ResourceServicesLoadBalancers is the number of services of type
	// LoadBalancer.
	ResourceServicesLoadBalancers ResourceName = "services.loadbalancers"
	// ResourceRequestsCPU is the sum of the CPU requests.
	ResourceRequestsCPU ResourceName = "requests.cpu"
	// ResourceRequestsMemory is the sum of the memory requests.
	ResourceRequestsMemory ResourceName = "requests.memory"
	// ResourceRequestsStorage is the sum of the storage claims request.
	ResourceRequestsStorage ResourceName = "requests.storage"
	// ResourceRequestsEphemeralStorage is the sum of the ephemeral-storage
	// requests.
	ResourceRequestsEphemeralStorage ResourceName = "requests.ephemeral-storage"
	// ResourceLimitsCPU is the sum of the CPU limits.
	ResourceLimitsCPU ResourceName = "limits.cpu"
	// ResourceLimitsMemory is the sum of the memory limits.
	ResourceLimitsMemory ResourceName = "limits.memory"
	// ResourceLimitsEphemeralStorage is the sum of the ephemeral-storage
	// limits.
	ResourceLimitsEphemeralStorage ResourceName = "limits.ephemeral-storage"
)

// ResourceQuotaScope names a filter on the objects a quota tracks.
type ResourceQuotaScope string

// The values of ResourceQuotaScope.
const (
	// ResourceQuotaScopeTerminating matches pods with
	// spec.activeDeadlineSeconds set.
	ResourceQuotaScopeTerminating ResourceQuotaScope = "Terminating"
	// ResourceQuotaScopeNotTerminating matches pods without
	// spec.activeDeadlineSeconds.
	ResourceQuotaScopeNotTerminating ResourceQuotaScope = "NotTerminating"
	// ResourceQuotaScopeBestEffort matches pods with best-effort quality of
	// service.
	ResourceQuotaScopeBestEffort ResourceQuotaScope = "BestEffort"
	// ResourceQuotaScopeNotBestEffort matches pods without best-effort
	// quality of service.
	ResourceQuotaScopeNotBestEffort ResourceQuotaScope = "NotBestEffort"
	// ResourceQuotaScopePriorityClass matches pods by priority class.
	ResourceQuotaScopePriorityClass ResourceQuotaScope = "PriorityClass"
	// ResourceQuotaScopeCrossNamespacePodAffinity matches pods with
	// cross-namespace pod (anti)affinity terms.
	ResourceQuotaScopeCrossNamespacePodAffinity ResourceQuotaScope = "CrossNamespacePodAffinity"
	// ResourceQuotaScopeVolumeAttributesClass matches claims by volume
	// attributes class.
	ResourceQuotaScopeVolumeAttributesClass ResourceQuotaScope = "VolumeAttributesClass"
)

// ScopeSelectorOperator is the operator of a scoped resource selector.
type ScopeSelectorOperator string

// The values of ScopeSelectorOperator.
const (
	ScopeSelectorOpIn           ScopeSelectorOperator = "In"
	ScopeSelectorOpNotIn        ScopeSelectorOperator = "NotIn"
	ScopeSelectorOpExists       ScopeSelectorOperator = "Exists"
	ScopeSelectorOpDoesNotExist ScopeSelectorOperator = "DoesNotExist"
)

// ScopedResourceSelectorRequirement is a selector that contains values, a
// scope name, and an operator that relates the scope name and values.
type ScopedResourceSelectorRequirement struct {
	// The name of the scope that the selector applies to.
	ScopeName ResourceQuotaScope `json:"scopeName" protobuf:"bytes,1,opt,name=scopeName"`
	// Represents a scope's relationship to a set of values. Valid operators
	// are In, NotIn, Exists, DoesNotExist.
	Operator ScopeSelectorOperator `json:"operator" protobuf:"bytes,2,opt,name=operator,casttype=ScopeSelectorOperator"`
	// An array of string values. If the operator is In or NotIn, the values
	// array must be non-empty. If the operator is Exists or DoesNotExist,
	// the values array must be empty.
	// +listType=atomic
	Values []string `json:"values,omitempty" protobuf:"bytes,3,rep,name=values"`
}

// ScopeSelector represents the AND of the selectors represented by the
// scoped-resource selector requirements.
type ScopeSelector struct {
	// A list of scope selector requirements by scope of the resources.
	// +listType=atomic
	MatchExpressions []ScopedResourceSelectorRequirement `json:"matchExpressions,omitempty" protobuf:"bytes,1,rep,name=matchExpressions"`
}

// ResourceQuotaSpec defines the desired hard limits to enforce for Quota.
type ResourceQuotaSpec struct {
	// hard is the set of desired hard limits for each named resource.
	Hard ResourceList `json:"hard,omitempty" protobuf:"bytes,1,rep,name=hard,casttype=ResourceList,castkey=ResourceName"`
	// A collection of filters that must match each object tracked by a
	// quota. If not specified, the quota matches all objects.
	// +listType=atomic
	Scopes []ResourceQuotaScope `json:"scopes,omitempty" protobuf:"bytes,2,rep,name=scopes,casttype=ResourceQuotaScope"`
	// scopeSelector is also a collection of filters like scopes that must
	// match each object tracked by a quota but expressed using
	// ScopeSelectorOperator in combination with possible values.
	ScopeSelector *ScopeSelector `json:"scopeSelector,omitempty" protobuf:"bytes,3,opt,name=scopeSelector"`
}

// ResourceQuotaStatus defines the enforced hard limits and observed use.
type ResourceQuotaStatus struct {
	// Hard is the set of enforced hard limits for each named resource.
	Hard ResourceList `json:"hard,omitempty" protobuf:"bytes,1,rep,name=hard,casttype=ResourceList,castkey=ResourceName"`
	// Used is the current observed total usage of the resource in the
	// namespace.
	Used ResourceList `json:"used,omitempty" protobuf:"bytes,2,rep,name=used,casttype=ResourceList,castkey=ResourceName"`
}

// ResourceQuota sets aggregate quota restrictions enforced per namespace.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ResourceQuota struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec defines the desired quota.
	Spec ResourceQuotaSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status defines the actual enforced quota and its current usage.
	Status ResourceQuotaStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ResourceQuotaList is a list of ResourceQuota items.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ResourceQuotaList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items is a list of ResourceQuota objects.
	Items []ResourceQuota `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ReplicationControllerSpec is the specification of a replication
// controller.
type ReplicationControllerSpec struct {
	// Replicas is the number of desired replicas. This is a pointer to
	// distinguish between explicit zero and unspecified. Defaults to 1.
	Replicas *int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
	// Minimum number of seconds for which a newly created pod should be
	// ready without any of its container crashing, for it to be considered
	// available. Defaults to 0.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty" protobuf:"varint,4,opt,name=minReadySeconds"`
	// Selector is a label query over pods that should match the Replicas
	// count. If Selector is empty, it is defaulted to the labels present on
	// the Pod template.
	// +mapType=atomic
	Selector map[string]string `json:"selector,omitempty" protobuf:"bytes,2,rep,name=selector"`
	// Template is the object that describes the pod that will be created if
	// insufficient replicas are detected.
	Template *PodTemplateSpec `json:"template,omitempty" protobuf:"bytes,3,opt,name=template"`
}

// ReplicationControllerConditionType is a valid value for
// ReplicationControllerCondition.Type.
type ReplicationControllerConditionType string

// ReplicationControllerReplicaFailure is added when one of its pods fails
// to be created or deleted.
const ReplicationControllerReplicaFailure ReplicationControllerConditionType = "ReplicaFailure"

// ReplicationControllerCondition describes the state of a replication
// controller at a certain point.
type ReplicationControllerCondition struct {
	// Type of replication controller condition.
	Type ReplicationControllerConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=ReplicationControllerConditionType"`
	// Status of the condition, one of True, False, Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status,casttype=ConditionStatus"`
	// The last time the condition transitioned from one status to another.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// The reason for the condition's last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// A human readable message indicating details about the transition.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// ReplicationControllerStatus represents the current status of a
// replication controller.
type ReplicationControllerStatus struct {
	// Replicas is the most recently observed number of replicas.
	Replicas int32 `json:"replicas" protobuf:"varint,1,opt,name=replicas"`
	// The number of pods that have labels matching the labels of the pod
	// template of the replication controller.
	FullyLabeledReplicas int32 `json:"fullyLabeledReplicas,omitempty" protobuf:"varint,2,opt,name=fullyLabeledReplicas"`
	// The number of ready replicas for this replication controller.
	ReadyReplicas int32 `json:"readyReplicas,omitempty" protobuf:"varint,4,opt,name=readyReplicas"`
	// The number of available replicas (ready for at least minReadySeconds)
	// for this replication controller.
	AvailableReplicas int32 `json:"availableReplicas,omitempty" protobuf:"varint,5,opt,name=availableReplicas"`
	// ObservedGeneration reflects the generation of the most recently
	// observed replication controller.
	ObservedGeneration int64 `json:"observedGeneration,omitempty" protobuf:"varint,3,opt,name=observedGeneration"`
	// Represents the latest available observations of a replication
	// controller's current state.
	// +listType=map
	// +listMapKey=type
	Conditions []ReplicationControllerCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,6,rep,name=conditions"`
}

// ReplicationController represents the configuration of a replication
// controller.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ReplicationController struct {
	metav1.TypeMeta `json:",inline"`
	// If the Labels of a ReplicationController are empty, they are defaulted
	// to be the same as the Pod(s) that the replication controller manages.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec defines the specification of the desired behavior of the
	// replication controller.
	Spec ReplicationControllerSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the most recently observed status of the replication
	// controller.
	Status ReplicationControllerStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ReplicationControllerList is a collection of replication controllers.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ReplicationControllerList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// List of replication controllers.
	Items []ReplicationController `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ComponentConditionType is the type of a ComponentCondition.
type ComponentConditionType string

// ComponentHealthy is the only condition type a component reports.
const ComponentHealthy ComponentConditionType = "Healthy"

// ComponentCondition is information about the condition of a component.
type ComponentCondition struct {
	// Type of condition for a component. Valid value: "Healthy".
	Type ComponentConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=ComponentConditionType"`
	// Status of the condition for a component. Valid values for "Healthy":
	// "True", "False", or "Unknown".
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status,casttype=ConditionStatus"`
	// Message about the condition for a component.
	Message string `json:"message,omitempty" protobuf:"bytes,3,opt,name=message"`
	// Condition error code for a component.
	Error string `json:"error,omitempty" protobuf:"bytes,4,opt,name=error"`
}

// ComponentStatus (and ComponentStatusList) holds the cluster validation
// info. Deprecated: This API is deprecated in v1.19+.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ComponentStatus struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// List of component conditions observed.
	// +listType=map
	// +listMapKey=type
	Conditions []ComponentCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,2,rep,name=conditions"`
}

// ComponentStatusList is the status of all the conditions for the
// component as a list of ComponentStatus objects. Deprecated: This API is
// deprecated in v1.19+.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ComponentStatusList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// List of ComponentStatus objects.
	Items []ComponentStatus `json:"items" protobuf:"bytes,2,rep,name=items"`
}
