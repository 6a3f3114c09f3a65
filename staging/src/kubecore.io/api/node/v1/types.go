package v1

import (
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// RuntimeClass names a container runtime configuration. A pod picks one
// with spec.runtimeClassName; the kubelet runs its containers with the
// class's handler.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type RuntimeClass struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Handler is the runtime configuration the CRI implementation runs
	// the pod with, a DNS label. Required and immutable.
	Handler string `json:"handler" protobuf:"bytes,2,opt,name=handler"`

	// Overhead is the resources a pod of this class uses beyond its
	// containers', added to its requests when it is created.
	Overhead *Overhead `json:"overhead,omitempty" protobuf:"bytes,3,opt,name=overhead"`

	// Scheduling restricts the pods of this class to the nodes that
	// support it.
	Scheduling *Scheduling `json:"scheduling,omitempty" protobuf:"bytes,4,opt,name=scheduling"`
}

// Overhead is the fixed cost of running a pod of a RuntimeClass.
type Overhead struct {
	// PodFixed is the resources each pod uses beyond its containers.
	PodFixed corev1.ResourceList `json:"podFixed,omitempty" protobuf:"bytes,1,rep,name=podFixed,casttype=k8s.io/api/core/v1.ResourceList,castkey=k8s.io/api/core/v1.ResourceName"`
}

// Scheduling is where the pods of a RuntimeClass may run.
type Scheduling struct {
	// NodeSelector is added to the node selector of the class's pods; a
	// pod whose own selector conflicts is refused.
	// +mapType=atomic
	NodeSelector map[string]string `json:"nodeSelector,omitempty" protobuf:"bytes,1,rep,name=nodeSelector"`

	// Tolerations are added to those of the class's pods.
	// +listType=atomic
	Tolerations []corev1.Toleration `json:"tolerations,omitempty" protobuf:"bytes,2,rep,name=tolerations"`
}

// RuntimeClassList is a list of RuntimeClasses.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type RuntimeClassList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the RuntimeClasses.
	Items []RuntimeClass `json:"items" protobuf:"bytes,2,rep,name=items"`
}
