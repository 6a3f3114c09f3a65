package v1

import (
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

// ControllerRevision is an immutable snapshot of a controller's state, such
// as a StatefulSet's or DaemonSet's pod template, kept for updates and
// rollback. Its data cannot change once created; it can be deleted.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ControllerRevision struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// The serialized state.
	Data runtime.RawExtension `json:"data,omitempty" protobuf:"bytes,2,opt,name=data"`

	// Sequence number of the state held in data.
	Revision int64 `json:"revision" protobuf:"varint,3,opt,name=revision"`
}

// ControllerRevisionList is a list of ControllerRevisions.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ControllerRevisionList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// The ControllerRevisions.
	Items []ControllerRevision `json:"items" protobuf:"bytes,2,rep,name=items"`
}
