package v1

import metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

// Scale is the scale subresource of a workload: its desired and observed
// replica counts.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Scale struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata; that of the scaled object.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Desired scale.
	Spec ScaleSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`

	// Observed scale. Read-only.
	Status ScaleStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ScaleSpec is the desired scale of a workload.
type ScaleSpec struct {
	// Desired number of replicas.
	Replicas int32 `json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`
}

// ScaleStatus is the observed scale of a workload.
type ScaleStatus struct {
	// Observed number of replicas.
	Replicas int32 `json:"replicas" protobuf:"varint,1,opt,name=replicas"`

	// The workload's pod selector in label-query string form
	// ("app=web,tier in (fe)"), so that clients need not know its type.
	Selector string `json:"selector,omitempty" protobuf:"bytes,2,opt,name=selector"`
}
