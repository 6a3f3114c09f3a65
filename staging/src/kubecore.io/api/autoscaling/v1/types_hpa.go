package v1

import metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

// HorizontalPodAutoscaler is the configuration of a horizontal pod
// autoscaler: autoscaling/v1 knows only a target CPU utilization; it is
// served by conversion from the autoscaling/v2 object kubecore stores.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type HorizontalPodAutoscaler struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec defines the behaviour of autoscaler.
	Spec HorizontalPodAutoscalerSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`

	// status is the current information about the autoscaler.
	Status HorizontalPodAutoscalerStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
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

// HorizontalPodAutoscalerSpec is the specification of a horizontal pod
// autoscaler.
type HorizontalPodAutoscalerSpec struct {
	// reference to scaled resource; horizontal pod autoscaler will learn
	// the current resource consumption and will set the desired number of
	// pods by using its Scale subresource.
	ScaleTargetRef CrossVersionObjectReference `json:"scaleTargetRef" protobuf:"bytes,1,opt,name=scaleTargetRef"`
	// minReplicas is the lower limit for the number of replicas to which
	// the autoscaler can scale down. It defaults to 1 pod.
	MinReplicas *int32 `json:"minReplicas,omitempty" protobuf:"varint,2,opt,name=minReplicas"`
	// maxReplicas is the upper limit for the number of pods that can be
	// set by the autoscaler; cannot be smaller than MinReplicas.
	MaxReplicas int32 `json:"maxReplicas" protobuf:"varint,3,opt,name=maxReplicas"`
	// targetCPUUtilizationPercentage is the target average CPU utilization
	// (represented as a percentage of requested CPU) over all the pods; if
	// not specified the default autoscaling policy will be used.
	TargetCPUUtilizationPercentage *int32 `json:"targetCPUUtilizationPercentage,omitempty" protobuf:"varint,4,opt,name=targetCPUUtilizationPercentage"`
}

// HorizontalPodAutoscalerStatus is the current status of a horizontal pod
// autoscaler.
type HorizontalPodAutoscalerStatus struct {
	// observedGeneration is the most recent generation observed by this
	// autoscaler.
	ObservedGeneration *int64 `json:"observedGeneration,omitempty" protobuf:"varint,1,opt,name=observedGeneration"`
	// lastScaleTime is the last time the HorizontalPodAutoscaler scaled the
	// number of pods; used by the autoscaler to control how often the
	// number of pods is changed.
	LastScaleTime *metav1.Time `json:"lastScaleTime,omitempty" protobuf:"bytes,2,opt,name=lastScaleTime"`
	// currentReplicas is the current number of replicas of pods managed by
	// this autoscaler.
	CurrentReplicas int32 `json:"currentReplicas" protobuf:"varint,3,opt,name=currentReplicas"`
	// desiredReplicas is the desired number of replicas of pods managed by
	// this autoscaler.
	DesiredReplicas int32 `json:"desiredReplicas" protobuf:"varint,4,opt,name=desiredReplicas"`
	// currentCPUUtilizationPercentage is the current average CPU
	// utilization over all pods, represented as a percentage of requested
	// CPU, e.g. 70 means that an average pod is using now 70% of its
	// requested CPU.
	CurrentCPUUtilizationPercentage *int32 `json:"currentCPUUtilizationPercentage,omitempty" protobuf:"varint,5,opt,name=currentCPUUtilizationPercentage"`
}

// HorizontalPodAutoscalerList is a list of horizontal pod autoscaler
// objects.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type HorizontalPodAutoscalerList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// items is the list of horizontal pod autoscaler objects.
	Items []HorizontalPodAutoscaler `json:"items" protobuf:"bytes,2,rep,name=items"`
}
