package v2

import (
	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// HorizontalPodAutoscaler is the configuration for a horizontal pod
// autoscaler, which automatically manages the replica count of any
// resource implementing the scale subresource based on the metrics
// specified.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type HorizontalPodAutoscaler struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec is the specification for the behaviour of the autoscaler.
	Spec HorizontalPodAutoscalerSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`

	// status is the current information about the autoscaler.
	Status HorizontalPodAutoscalerStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// HorizontalPodAutoscalerSpec describes the desired functionality of the
// HorizontalPodAutoscaler.
type HorizontalPodAutoscalerSpec struct {
	// scaleTargetRef points to the target resource to scale, and is used to
	// the pods for which metrics should be collected, as well as to
	// actually change the replica count.
	ScaleTargetRef CrossVersionObjectReference `json:"scaleTargetRef" protobuf:"bytes,1,opt,name=scaleTargetRef"`
	// minReplicas is the lower limit for the number of replicas to which
	// the autoscaler can scale down. It defaults to 1 pod.
	MinReplicas *int32 `json:"minReplicas,omitempty" protobuf:"varint,2,opt,name=minReplicas"`
	// maxReplicas is the upper limit for the number of replicas to which
	// the autoscaler can scale up. It cannot be less that minReplicas.
	MaxReplicas int32 `json:"maxReplicas" protobuf:"varint,3,opt,name=maxReplicas"`
	// metrics contains the specifications for which to use to calculate the
	// desired replica count (the maximum replica count across all metrics
	// will be used). If not set, the default metric will be set to 80%
	// average CPU utilization.
	Metrics []MetricSpec `json:"metrics,omitempty" protobuf:"bytes,4,rep,name=metrics"`
	// behavior configures the scaling behavior of the target in both Up and
	// Down directions (scaleUp and scaleDown fields respectively). If not
	// set, the default HPAScalingRules for scale up and scale down are
	// used.
	Behavior *HorizontalPodAutoscalerBehavior `json:"behavior,omitempty" protobuf:"bytes,5,opt,name=behavior"`
}

// CrossVersionObjectReference contains enough information to let you
// identify the referred resource.
type CrossVersionObjectReference struct {
	// kind is the kind of the referent.
	Kind string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	// name is the name of the referent.
	Name string `json:"name" protobuf:"bytes,2,opt,name=name"`
	// apiVersion is the API version of the referent.
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,3,opt,name=apiVersion"`
}

// MetricSpec specifies how to scale based on a single metric (only `type`
// and one other matching field should be set at once).
type MetricSpec struct {
	// type is the type of metric source. It should be one of
	// "ContainerResource", "External", "Object", "Pods" or "Resource", each
	// mapping to a matching field in the object.
	Type MetricSourceType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// object refers to a metric describing a single kubernetes object (for
	// example, hits-per-second on an Ingress object).
	Object *ObjectMetricSource `json:"object,omitempty" protobuf:"bytes,2,opt,name=object"`
	// pods refers to a metric describing each pod in the current scale
	// target (for example, transactions-processed-per-second).
	Pods *PodsMetricSource `json:"pods,omitempty" protobuf:"bytes,3,opt,name=pods"`
	// resource refers to a resource metric (such as those specified in
	// requests and limits) known to Kubernetes describing each pod in the
	// current scale target (e.g. CPU or memory).
	Resource *ResourceMetricSource `json:"resource,omitempty" protobuf:"bytes,4,opt,name=resource"`
	// containerResource refers to a resource metric (such as those
	// specified in requests and limits) known to Kubernetes describing a
	// single container in each pod of the current scale target.
	ContainerResource *ContainerResourceMetricSource `json:"containerResource,omitempty" protobuf:"bytes,7,opt,name=containerResource"`
	// external refers to a global metric that is not associated with any
	// Kubernetes object.
	External *ExternalMetricSource `json:"external,omitempty" protobuf:"bytes,5,opt,name=external"`
}

// HorizontalPodAutoscalerBehavior configures the scaling behavior of the
// target in both Up and Down directions.
type HorizontalPodAutoscalerBehavior struct {
	// scaleUp is scaling policy for scaling Up. If not set, the default
	// value is the higher of: increase no more than 4 pods per 60 seconds,
	// double the number of pods per 60 seconds; no stabilization is used.
	ScaleUp *HPAScalingRules `json:"scaleUp,omitempty" protobuf:"bytes,1,opt,name=scaleUp"`
	// scaleDown is scaling policy for scaling Down. If not set, the default
	// value is to allow to scale down to minReplicas pods, with a 300
	// second stabilization window.
	ScaleDown *HPAScalingRules `json:"scaleDown,omitempty" protobuf:"bytes,2,opt,name=scaleDown"`
}

// ScalingPolicySelect is used to specify which policy should be used
// while scaling in a certain direction.
type ScalingPolicySelect string

// The policy selections.
const (
	// MaxChangePolicySelect selects the policy with the highest possible
	// change.
	MaxChangePolicySelect ScalingPolicySelect = "Max"
	// MinChangePolicySelect selects the policy with the lowest possible
	// change.
	MinChangePolicySelect ScalingPolicySelect = "Min"
	// DisabledPolicySelect disables the scaling in this direction.
	DisabledPolicySelect ScalingPolicySelect = "Disabled"
)

// HPAScalingRules configures the scaling behavior for one direction via
// scaling Policy Rules and a configurable metric tolerance.
type HPAScalingRules struct {
	// stabilizationWindowSeconds is the number of seconds for which past
	// recommendations should be considered while scaling up or scaling
	// down. It must be greater than or equal to zero and less than or equal
	// to 3600 (one hour).
	StabilizationWindowSeconds *int32 `json:"stabilizationWindowSeconds,omitempty" protobuf:"varint,3,opt,name=stabilizationWindowSeconds"`
	// selectPolicy is used to specify which policy should be used. If not
	// set, the default value Max is used.
	SelectPolicy *ScalingPolicySelect `json:"selectPolicy,omitempty" protobuf:"bytes,1,opt,name=selectPolicy"`
	// policies is a list of potential scaling polices which can be used
	// during scaling.
	Policies []HPAScalingPolicy `json:"policies,omitempty" protobuf:"bytes,2,rep,name=policies"`
	// tolerance is the tolerance on the ratio between the current and
	// desired metric value under which no updates are made to the desired
	// number of replicas (e.g. 0.01 for 1%). Must be greater than or equal
	// to zero.
	Tolerance *resource.Quantity `json:"tolerance,omitempty" protobuf:"bytes,4,opt,name=tolerance"`
}

// HPAScalingPolicyType is the type of the policy which could be used
// while making scaling decisions.
type HPAScalingPolicyType string

// The scaling policy types.
const (
	// PodsScalingPolicy is a policy used to specify a change in absolute
	// number of pods.
	PodsScalingPolicy HPAScalingPolicyType = "Pods"
	// PercentScalingPolicy is a policy used to specify a relative amount of
	// change with respect to the current number of pods.
	PercentScalingPolicy HPAScalingPolicyType = "Percent"
)

// HPAScalingPolicy is a single policy which must hold true for a specified
// past interval.
type HPAScalingPolicy struct {
	// type is used to specify the scaling policy.
	Type HPAScalingPolicyType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// value contains the amount of change which is permitted by the
	// policy. It must be greater than zero.
	Value int32 `json:"value" protobuf:"varint,2,opt,name=value"`
	// periodSeconds specifies the window of time for which the policy
	// should hold true. PeriodSeconds must be greater than zero and less
	// than or equal to 1800 (30 min).
	PeriodSeconds int32 `json:"periodSeconds" protobuf:"varint,3,opt,name=periodSeconds"`
}

// MetricSourceType indicates the type of metric.
type MetricSourceType string

// The metric source types.
const (
	// ObjectMetricSourceType is a metric describing a kubernetes object.
	ObjectMetricSourceType MetricSourceType = "Object"
	// PodsMetricSourceType is a metric describing each pod in the current
	// scale target.
	PodsMetricSourceType MetricSourceType = "Pods"
	// ResourceMetricSourceType is a resource metric known to Kubernetes,
	// as specified in requests and limits, describing each pod.
	ResourceMetricSourceType MetricSourceType = "Resource"
	// ContainerResourceMetricSourceType is a resource metric of one
	// container of each pod.
	ContainerResourceMetricSourceType MetricSourceType = "ContainerResource"
	// ExternalMetricSourceType is a global metric that is not associated
	// with any Kubernetes object.
	ExternalMetricSourceType MetricSourceType = "External"
)

// ObjectMetricSource indicates how to scale on a metric describing a
// kubernetes object (for example, hits-per-second on an Ingress object).
type ObjectMetricSource struct {
	// describedObject specifies the descriptions of a object,such as kind,
	// name apiVersion
	DescribedObject CrossVersionObjectReference `json:"describedObject" protobuf:"bytes,1,opt,name=describedObject"`
	// target specifies the target value for the given metric
	Target MetricTarget `json:"target" protobuf:"bytes,2,opt,name=target"`
	// metric identifies the target metric by name and selector
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,3,opt,name=metric"`
}

// PodsMetricSource indicates how to scale on a metric describing each pod
// in the current scale target (for example,
// transactions-processed-per-second).
type PodsMetricSource struct {
	// metric identifies the target metric by name and selector
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,opt,name=metric"`
	// target specifies the target value for the given metric
	Target MetricTarget `json:"target" protobuf:"bytes,2,opt,name=target"`
}

// ResourceMetricSource indicates how to scale on a resource metric known
// to Kubernetes, as specified in requests and limits, describing each pod
// in the current scale target (e.g. CPU or memory).
type ResourceMetricSource struct {
	// name is the name of the resource in question.
	Name corev1.ResourceName `json:"name" protobuf:"bytes,1,opt,name=name"`
	// target specifies the target value for the given metric
	Target MetricTarget `json:"target" protobuf:"bytes,2,opt,name=target"`
}

// ContainerResourceMetricSource indicates how to scale on a resource
// metric known to Kubernetes, as specified in requests and limits,
// describing a single container in each pod of the current scale target.
type ContainerResourceMetricSource struct {
	// name is the name of the resource in question.
	Name corev1.ResourceName `json:"name" protobuf:"bytes,1,opt,name=name"`
	// target specifies the target value for the given metric
	Target MetricTarget `json:"target" protobuf:"bytes,2,opt,name=target"`
	// container is the name of the container in the pods of the scaling
	// target
	Container string `json:"container" protobuf:"bytes,3,opt,name=container"`
}

// ExternalMetricSource indicates how to scale on a metric not associated
// with any Kubernetes object (for example length of queue in cloud
// messaging service, or QPS from loadbalancer running outside of cluster).
type ExternalMetricSource struct {
	// metric identifies the target metric by name and selector
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,opt,name=metric"`
	// target specifies the target value for the given metric
	Target MetricTarget `json:"target" protobuf:"bytes,2,opt,name=target"`
}

// MetricIdentifier defines the name and optionally selector for a metric
type MetricIdentifier struct {
	// name is the name of the given metric
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// selector is the string-encoded form of a standard kubernetes label
	// selector for the given metric. When unset, just the metricName will
	// be used to gather metrics.
	Selector *metav1.LabelSelector `json:"selector,omitempty" protobuf:"bytes,2,opt,name=selector"`
}

// MetricTarget defines the target value, average value, or average
// utilization of a specific metric
type MetricTarget struct {
	// type represents whether the metric type is Utilization, Value, or
	// AverageValue
	Type MetricTargetType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// value is the target value of the metric (as a quantity).
	Value *resource.Quantity `json:"value,omitempty" protobuf:"bytes,2,opt,name=value"`
	// averageValue is the target value of the average of the metric across
	// all relevant pods (as a quantity)
	AverageValue *resource.Quantity `json:"averageValue,omitempty" protobuf:"bytes,3,opt,name=averageValue"`
	// averageUtilization is the target value of the average of the resource
	// metric across all relevant pods, represented as a percentage of the
	// requested value of the resource for the pods. Currently only valid
	// for Resource metric source type
	AverageUtilization *int32 `json:"averageUtilization,omitempty" protobuf:"varint,4,opt,name=averageUtilization"`
}

// MetricTargetType specifies the type of metric being targeted, and should
// be either "Value", "AverageValue", or "Utilization"
type MetricTargetType string

// The metric target types.
const (
	// UtilizationMetricType declares a MetricTarget is an AverageUtilization
	// value
	UtilizationMetricType MetricTargetType = "Utilization"
	// ValueMetricType declares a MetricTarget is a raw value
	ValueMetricType MetricTargetType = "Value"
	// AverageValueMetricType declares a MetricTarget is an
	AverageValueMetricType MetricTargetType = "AverageValue"
)

// HorizontalPodAutoscalerStatus describes the current status of a
// horizontal pod autoscaler.
type HorizontalPodAutoscalerStatus struct {
	// observedGeneration is the most recent generation observed by this
	// autoscaler.
	ObservedGeneration *int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// lastScaleTime is the last time the HorizontalPodAutoscaler scaled the
	// number of pods, used by the autoscaler to control how often the
	// number of pods is changed.
	LastScaleTime *metav1.Time `json:"lastScaleTime,omitempty" protobuf:"bytes,2,opt,name=lastScaleTime"`
	// currentReplicas is current number of replicas of pods managed by this
	// autoscaler, as last seen by the autoscaler.
	CurrentReplicas int32 `json:"currentReplicas,omitempty" protobuf:"varint,3,opt,name=currentReplicas"`
	// desiredReplicas is the desired number of replicas of pods managed by
	// this autoscaler, as last calculated by the autoscaler.
	DesiredReplicas int32 `json:"desiredReplicas" protobuf:"varint,4,opt,name=desiredReplicas"`
	// currentMetrics is the last read state of the metrics used by this
	// autoscaler.
	CurrentMetrics []MetricStatus `json:"currentMetrics" protobuf:"bytes,5,rep,name=currentMetrics"`
	// conditions is the set of conditions required for this autoscaler to
	// scale its target, and indicates whether or not those conditions are
	// met.
	Conditions []HorizontalPodAutoscalerCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,6,rep,name=conditions"`
}

// HorizontalPodAutoscalerConditionType are the valid conditions of a
// HorizontalPodAutoscaler.
type HorizontalPodAutoscalerConditionType string

// The HorizontalPodAutoscaler conditions.
const (
	// ScalingActive indicates that the HPA controller is able to scale if
	// necessary.
	ScalingActive HorizontalPodAutoscalerConditionType = "ScalingActive"
	// AbleToScale indicates a lack of transient issues which prevent
	// scaling from occurring, such as being in a backoff window, or being
	// unable to access/update the target scale.
	AbleToScale HorizontalPodAutoscalerConditionType = "AbleToScale"
	// ScalingLimited indicates that the calculated scale based on metrics
	// would be above or below the range for the HPA, and has thus been
	// capped.
	ScalingLimited HorizontalPodAutoscalerConditionType = "ScalingLimited"
)

// HorizontalPodAutoscalerCondition describes the state of a
// HorizontalPodAutoscaler at a certain point.
type HorizontalPodAutoscalerCondition struct {
	// type describes the current condition
	Type HorizontalPodAutoscalerConditionType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// status is the status of the condition (True, False, Unknown)
	Status corev1.ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// lastTransitionTime is the last time the condition transitioned from
	// one status to another
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// reason is the reason for the condition's last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// message is a human-readable explanation containing details about the
	// transition
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// MetricStatus describes the last-read state of a single metric.
type MetricStatus struct {
	// type is the type of metric source. It will be one of
	// "ContainerResource", "External", "Object", "Pods" or "Resource", each
	// corresponds to a matching field in the object.
	Type MetricSourceType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// object refers to a metric describing a single kubernetes object (for
	// example, hits-per-second on an Ingress object).
	Object *ObjectMetricStatus `json:"object,omitempty" protobuf:"bytes,2,opt,name=object"`
	// pods refers to a metric describing each pod in the current scale
	// target (for example, transactions-processed-per-second).
	Pods *PodsMetricStatus `json:"pods,omitempty" protobuf:"bytes,3,opt,name=pods"`
	// resource refers to a resource metric (such as those specified in
	// requests and limits) known to Kubernetes describing each pod in the
	// current scale target (e.g. CPU or memory).
	Resource *ResourceMetricStatus `json:"resource,omitempty" protobuf:"bytes,4,opt,name=resource"`
	// containerResource refers to a resource metric (such as those
	// specified in requests and limits) known to Kubernetes describing a
	// single container in each pod in the current scale target.
	ContainerResource *ContainerResourceMetricStatus `json:"containerResource,omitempty" protobuf:"bytes,7,opt,name=containerResource"`
	// external refers to a global metric that is not associated with any
	// Kubernetes object.
	External *ExternalMetricStatus `json:"external,omitempty" protobuf:"bytes,5,opt,name=external"`
}

// ObjectMetricStatus indicates the current value of a metric describing a
// kubernetes object (for example, hits-per-second on an Ingress object).
type ObjectMetricStatus struct {
	// metric identifies the target metric by name and selector
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,opt,name=metric"`
	// current contains the current value for the given metric
	Current MetricValueStatus `json:"current" protobuf:"bytes,2,opt,name=current"`
	// DescribedObject specifies the descriptions of a object,such as kind,
	// name apiVersion
	DescribedObject CrossVersionObjectReference `json:"describedObject" protobuf:"bytes,3,opt,name=describedObject"`
}

// PodsMetricStatus indicates the current value of a metric describing each
// pod in the current scale target (for example,
// transactions-processed-per-second).
type PodsMetricStatus struct {
	// metric identifies the target metric by name and selector
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,opt,name=metric"`
	// current contains the current value for the given metric
	Current MetricValueStatus `json:"current" protobuf:"bytes,2,opt,name=current"`
}

// ResourceMetricStatus indicates the current value of a resource metric
// known to Kubernetes, as specified in requests and limits, describing
// each pod in the current scale target (e.g. CPU or memory).
type ResourceMetricStatus struct {
	// name is the name of the resource in question.
	Name corev1.ResourceName `json:"name" protobuf:"bytes,1,opt,name=name"`
	// current contains the current value for the given metric
	Current MetricValueStatus `json:"current" protobuf:"bytes,2,opt,name=current"`
}

// ContainerResourceMetricStatus indicates the current value of a resource
// metric known to Kubernetes, as specified in requests and limits,
// describing a single container in each pod in the current scale target.
type ContainerResourceMetricStatus struct {
	// name is the name of the resource in question.
	Name corev1.ResourceName `json:"name" protobuf:"bytes,1,opt,name=name"`
	// current contains the current value for the given metric
	Current MetricValueStatus `json:"current" protobuf:"bytes,2,opt,name=current"`
	// container is the name of the container in the pods of the scaling
	// target
	Container string `json:"container" protobuf:"bytes,3,opt,name=container"`
}

// ExternalMetricStatus indicates the current value of a global metric not
// associated with any Kubernetes object.
type ExternalMetricStatus struct {
	// metric identifies the target metric by name and selector
	Metric MetricIdentifier `json:"metric" protobuf:"bytes,1,opt,name=metric"`
	// current contains the current value for the given metric
	Current MetricValueStatus `json:"current" protobuf:"bytes,2,opt,name=current"`
}

// MetricValueStatus holds the current value for a metric
type MetricValueStatus struct {
	// value is the current value of the metric (as a quantity).
	Value *resource.Quantity `json:"value,omitempty" protobuf:"bytes,1,opt,name=value"`
	// averageValue is the current value of the average of the metric across
	// all relevant pods (as a quantity)
	AverageValue *resource.Quantity `json:"averageValue,omitempty" protobuf:"bytes,2,opt,name=averageValue"`
	// currentAverageUtilization is the current value of the average of the
	// resource metric across all relevant pods, represented as a percentage
	// of the requested value of the resource for the pods.
	AverageUtilization *int32 `json:"averageUtilization,omitempty" protobuf:"varint,3,opt,name=averageUtilization"`
}

// HorizontalPodAutoscalerList is a list of horizontal pod autoscaler
// objects.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type HorizontalPodAutoscalerList struct {
	metav1.TypeMeta `json:",inline"`
	// metadata is the standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// items is the list of horizontal pod autoscaler objects.
	Items []HorizontalPodAutoscaler `json:"items" protobuf:"bytes,2,rep,name=items"`
}
