package v1

import (
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// APIService says which server serves one group version: named
// VERSION.GROUP, it points at a Service (an aggregated API server) or, with
// no service, at the API server itself (a local APIService).
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type APIService struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec says where the group version is served.
	Spec APIServiceSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status says whether the group version can be reached.
	Status APIServiceStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// APIServiceList is a list of APIServices.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type APIServiceList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the APIServices.
	Items []APIService `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ServiceReference names the Service of an aggregated API server.
type ServiceReference struct {
	// Namespace of the Service.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,1,opt,name=namespace"`
	// Name of the Service.
	Name string `json:"name,omitempty" protobuf:"bytes,2,opt,name=name"`
	// Port of the Service the server listens on: 443 when not set; between
	// 1 and 65535.
	Port *int32 `json:"port,omitempty" protobuf:"varint,3,opt,name=port"`
}

// APIServiceSpec says where and how a group version is served.
type APIServiceSpec struct {
	// Service of the aggregated server; nil means the API server serves the
	// group version itself.
	Service *ServiceReference `json:"service,omitempty" protobuf:"bytes,1,opt,name=service"`
	// Group is the API group name.
	Group string `json:"group,omitempty" protobuf:"bytes,2,opt,name=group"`
	// Version is the API version.
	Version string `json:"version,omitempty" protobuf:"bytes,3,opt,name=version"`
	// InsecureSkipTLSVerify disables checking the server's certificate; it
	// may not be set together with caBundle.
	InsecureSkipTLSVerify bool `json:"insecureSkipTLSVerify,omitempty" protobuf:"varint,4,opt,name=insecureSkipTLSVerify"`
	// CABundle is the PEM of the CA that signed the server's certificate;
	// the API server's trust roots when empty.
	CABundle []byte `json:"caBundle,omitempty" protobuf:"bytes,5,opt,name=caBundle"`
	// GroupPriorityMinimum orders the groups in discovery: a higher number
	// comes first. At least 1, at most 20000.
	GroupPriorityMinimum int32 `json:"groupPriorityMinimum" protobuf:"varint,7,opt,name=groupPriorityMinimum"`
	// VersionPriority orders the versions within the group: a higher
	// number comes first, equal ones by Kubernetes' version order. At least
	// 1, at most 1000.
	VersionPriority int32 `json:"versionPriority" protobuf:"varint,8,opt,name=versionPriority"`
}

// ConditionStatus is True, False or Unknown.
type ConditionStatus string

// The condition statuses.
const (
	ConditionTrue    ConditionStatus = "True"
	ConditionFalse   ConditionStatus = "False"
	ConditionUnknown ConditionStatus = "Unknown"
)

// APIServiceConditionType names a condition of an APIService.
type APIServiceConditionType string

// Available says the group version can be served.
const Available APIServiceConditionType = "Available"

// APIServiceCondition is one observation of an APIService.
type APIServiceCondition struct {
	// Type of the condition: Available.
	Type APIServiceConditionType `json:"type" protobuf:"bytes,1,opt,name=type,casttype=APIServiceConditionType"`
	// Status of the condition: True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status,casttype=ConditionStatus"`
	// LastTransitionTime is when the status last changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,3,opt,name=lastTransitionTime"`
	// Reason is a one-word CamelCase cause of the last transition.
	Reason string `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Message says in words what happened.
	Message string `json:"message,omitempty" protobuf:"bytes,5,opt,name=message"`
}

// APIServiceStatus is the observed state of an APIService.
type APIServiceStatus struct {
	// Conditions observed; at most one of each type.
	// +listType=map
	// +listMapKey=type
	// +patchMergeKey=type
	// +patchStrategy=merge
	Conditions []APIServiceCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,1,rep,name=conditions"`
}
