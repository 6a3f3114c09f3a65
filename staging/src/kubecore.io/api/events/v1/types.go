package v1

import (
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// Event reports something that happened to an object, as the
// events.k8s.io group shapes it: the same stored object as a core v1
// Event, with the reporting controller, the regarded object and a series
// of repeats in the first place, and the core fields kept as deprecated*.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Event struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// EventTime is when the event first happened. Required.
	EventTime metav1.MicroTime `json:"eventTime" protobuf:"bytes,2,opt,name=eventTime"`

	// Series is set when the event is one of a series of repeats.
	Series *EventSeries `json:"series,omitempty" protobuf:"bytes,3,opt,name=series"`

	// ReportingController names the controller that emitted the event,
	// such as "kubernetes.io/kubelet". Required for new events.
	ReportingController string `json:"reportingController,omitempty" protobuf:"bytes,4,opt,name=reportingController"`

	// ReportingInstance identifies the instance of the controller, such
	// as "kubelet-node1". Required for new events.
	ReportingInstance string `json:"reportingInstance,omitempty" protobuf:"bytes,5,opt,name=reportingInstance"`

	// Action is what was done, or failed, to the regarded object.
	// Required for new events.
	Action string `json:"action,omitempty" protobuf:"bytes,6,opt,name=action"`

	// Reason is why the action was taken, in CamelCase. Required for new
	// events.
	Reason string `json:"reason,omitempty" protobuf:"bytes,7,opt,name=reason"`

	// Regarding is the object the event is about.
	Regarding corev1.ObjectReference `json:"regarding,omitempty" protobuf:"bytes,8,opt,name=regarding"`

	// Related is a second object the event involves.
	Related *corev1.ObjectReference `json:"related,omitempty" protobuf:"bytes,9,opt,name=related"`

	// Note describes the event to a human, in at most 1kB.
	Note string `json:"note,omitempty" protobuf:"bytes,10,opt,name=note"`

	// Type is Normal or Warning.
	Type string `json:"type,omitempty" protobuf:"bytes,11,opt,name=type"`

	// DeprecatedSource is the core v1 event's source.
	DeprecatedSource corev1.EventSource `json:"deprecatedSource,omitempty" protobuf:"bytes,12,opt,name=deprecatedSource"`
	// DeprecatedFirstTimestamp is the core v1 event's firstTimestamp.
	DeprecatedFirstTimestamp metav1.Time `json:"deprecatedFirstTimestamp,omitempty" protobuf:"bytes,13,opt,name=deprecatedFirstTimestamp"`
	// DeprecatedLastTimestamp is the core v1 event's lastTimestamp.
	DeprecatedLastTimestamp metav1.Time `json:"deprecatedLastTimestamp,omitempty" protobuf:"bytes,14,opt,name=deprecatedLastTimestamp"`
	// DeprecatedCount is the core v1 event's count.
	DeprecatedCount int32 `json:"deprecatedCount,omitempty" protobuf:"varint,15,opt,name=deprecatedCount"`
}

// EventSeries counts the repeats of an event.
type EventSeries struct {
	// Count of occurrences so far.
	Count int32 `json:"count" protobuf:"varint,1,opt,name=count"`
	// LastObservedTime is when the last occurrence was seen.
	LastObservedTime metav1.MicroTime `json:"lastObservedTime" protobuf:"bytes,2,opt,name=lastObservedTime"`
}

// EventList is a list of Events.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type EventList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the Events.
	Items []Event `json:"items" protobuf:"bytes,2,rep,name=items"`
}
