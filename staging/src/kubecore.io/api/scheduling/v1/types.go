package v1

import (
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// PriorityClass maps a priority class name to an integer priority. Pods
// name it in spec.priorityClassName; higher values are scheduled first and
// may preempt lower ones.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PriorityClass struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Priority pods of this class receive. User-defined classes may use up
	// to 1000000000; larger values are reserved for system classes.
	Value int32 `json:"value" protobuf:"varint,2,opt,name=value"`

	// Whether pods without a priorityClassName get this class. If several
	// classes are global defaults, the smallest value wins.
	GlobalDefault bool `json:"globalDefault,omitempty" protobuf:"varint,3,opt,name=globalDefault"`

	// Free text saying when to use this class.
	Description string `json:"description,omitempty" protobuf:"bytes,4,opt,name=description"`

	// Whether pods of this class may preempt lower-priority pods: Never or
	// PreemptLowerPriority (the default).
	PreemptionPolicy *corev1.PreemptionPolicy `json:"preemptionPolicy,omitempty" protobuf:"bytes,5,opt,name=preemptionPolicy"`
}

// PriorityClassList is a list of PriorityClasses.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PriorityClassList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// The PriorityClasses.
	Items []PriorityClass `json:"items" protobuf:"bytes,2,rep,name=items"`
}
