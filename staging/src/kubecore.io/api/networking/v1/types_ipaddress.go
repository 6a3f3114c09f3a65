package v1

import (
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// IPAddress records that one IP address is allocated, and to which
// object. Its name is the address in canonical form ("10.96.0.1",
// "2001:db8::1"); creating it is what allocates the address, so two
// writers can never take the same one.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type IPAddress struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec names the object the address belongs to.
	Spec IPAddressSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// The labels of the IPAddresses the Service ClusterIP allocator makes.
const (
	// LabelIPAddressFamily is "IPv4" or "IPv6".
	LabelIPAddressFamily = "ipaddress.kubernetes.io/ip-family"
	// LabelManagedBy names the allocator that made the IPAddress.
	LabelManagedBy = "ipaddress.kubernetes.io/managed-by"
	// ServiceIPAllocatorManager is the LabelManagedBy value of the
	// Service ClusterIP allocator.
	ServiceIPAllocatorManager = "ipallocator.k8s.io"
)

// IPAddressSpec is the owner of an address.
type IPAddressSpec struct {
	// ParentRef names the object the address is allocated to. Required
	// and immutable.
	ParentRef *ParentReference `json:"parentRef" protobuf:"bytes,1,opt,name=parentRef"`
}

// ParentReference names the object an IPAddress belongs to.
type ParentReference struct {
	// Group of the object; empty for the core group.
	Group string `json:"group,omitempty" protobuf:"bytes,1,opt,name=group"`
	// Resource of the object, such as "services".
	Resource string `json:"resource,omitempty" protobuf:"bytes,2,opt,name=resource"`
	// Namespace of the object, when it is namespaced.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,3,opt,name=namespace"`
	// Name of the object.
	Name string `json:"name,omitempty" protobuf:"bytes,4,opt,name=name"`
}

// IPAddressList is a list of IPAddresses.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type IPAddressList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the IPAddresses.
	Items []IPAddress `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ServiceCIDR is a range of addresses Services take their ClusterIPs
// from. The API server creates the one named "kubernetes" from its
// service-cluster-ip-range.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ServiceCIDR struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec holds the ranges.
	Spec ServiceCIDRSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status says whether the ranges are in use.
	Status ServiceCIDRStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ServiceCIDRSpec holds the ranges of a ServiceCIDR.
type ServiceCIDRSpec struct {
	// CIDRs are at most two ranges, one per IP family, such as
	// "10.96.0.0/12" or "2001:db8::/112". Immutable.
	// +listType=atomic
	CIDRs []string `json:"cidrs,omitempty" protobuf:"bytes,1,rep,name=cidrs"`
}

// The condition types and reasons of a ServiceCIDR.
const (
	// ServiceCIDRConditionReady is true when Services may take addresses
	// from the ranges.
	ServiceCIDRConditionReady = "Ready"
	// ServiceCIDRReasonTerminating: the ServiceCIDR is being deleted but
	// addresses allocated from it are still in use.
	ServiceCIDRReasonTerminating = "Terminating"
)

// ServiceCIDRStatus is the state of a ServiceCIDR.
type ServiceCIDRStatus struct {
	// Conditions of the ServiceCIDR; "Ready" says whether it is in use.
	// +patchMergeKey=type
	// +patchStrategy=merge
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`
}

// ServiceCIDRList is a list of ServiceCIDRs.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ServiceCIDRList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the ServiceCIDRs.
	Items []ServiceCIDR `json:"items" protobuf:"bytes,2,rep,name=items"`
}
