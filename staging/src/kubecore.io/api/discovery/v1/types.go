package v1

import (
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// EndpointSlice is a set of a Service's backends that share one address
// type and one list of ports. A Service may have several; their union is
// its endpoints. The kubernetes.io/service-name label names the Service.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type EndpointSlice struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Kind of every address of the slice: IPv4, IPv6 or FQDN. Required
	// and immutable.
	AddressType AddressType `json:"addressType" protobuf:"bytes,4,opt,name=addressType"`

	// The backends, at most 1000.
	// +listType=atomic
	Endpoints []Endpoint `json:"endpoints" protobuf:"bytes,2,rep,name=endpoints"`

	// Ports every backend of the slice serves, each with a unique name.
	// Empty means no ports are defined; a port without a number means all
	// ports.
	// +listType=atomic
	Ports []EndpointPort `json:"ports" protobuf:"bytes,3,rep,name=ports"`
}

// AddressType is the kind of the addresses of an EndpointSlice.
type AddressType string

// The supported address types.
const (
	// AddressTypeIPv4 is a dotted-quad IPv4 address.
	AddressTypeIPv4 = AddressType(corev1.IPv4Protocol)
	// AddressTypeIPv6 is an IPv6 address.
	AddressTypeIPv6 = AddressType(corev1.IPv6Protocol)
	// AddressTypeFQDN is a fully qualified domain name.
	AddressTypeFQDN = AddressType("FQDN")
)

// Endpoint is one backend of a slice.
type Endpoint struct {
	// Addresses of the backend, interpreted by the slice's address type;
	// consumers use the first. 1 to 100 of them.
	// +listType=set
	Addresses []string `json:"addresses" protobuf:"bytes,1,rep,name=addresses"`

	// Current state of the backend.
	Conditions EndpointConditions `json:"conditions,omitempty" protobuf:"bytes,2,opt,name=conditions"`

	// DNS label of the backend within the Service's domain.
	Hostname *string `json:"hostname,omitempty" protobuf:"bytes,3,opt,name=hostname"`

	// Object the backend stands for, usually a pod.
	TargetRef *corev1.ObjectReference `json:"targetRef,omitempty" protobuf:"bytes,4,opt,name=targetRef"`

	// Topology labels of the backend (deprecated: use nodeName and zone).
	DeprecatedTopology map[string]string `json:"deprecatedTopology,omitempty" protobuf:"bytes,5,rep,name=deprecatedTopology"`

	// Node hosting the backend.
	NodeName *string `json:"nodeName,omitempty" protobuf:"bytes,6,opt,name=nodeName"`

	// Zone the backend runs in.
	Zone *string `json:"zone,omitempty" protobuf:"bytes,7,opt,name=zone"`

	// Hints for topology-aware routing.
	Hints *EndpointHints `json:"hints,omitempty" protobuf:"bytes,8,opt,name=hints"`
}

// EndpointConditions is the state of a backend. An unset condition is
// unknown; consumers treat an unknown ready or serving as true.
type EndpointConditions struct {
	// The backend should receive traffic: it is serving and not
	// terminating (or the Service publishes backends that are not ready).
	Ready *bool `json:"ready,omitempty" protobuf:"varint,1,opt,name=ready"`

	// The backend passes its readiness checks, whether or not it is
	// terminating.
	Serving *bool `json:"serving,omitempty" protobuf:"varint,2,opt,name=serving"`

	// The backend is shutting down.
	Terminating *bool `json:"terminating,omitempty" protobuf:"varint,3,opt,name=terminating"`
}

// EndpointHints says where a backend should be used.
type EndpointHints struct {
	// Zones whose clients should use the backend, at most 8.
	// +listType=atomic
	ForZones []ForZone `json:"forZones,omitempty" protobuf:"bytes,1,rep,name=forZones"`
}

// ForZone names a zone in hints.
type ForZone struct {
	// Name of the zone.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
}

// EndpointPort is a port every backend of a slice serves.
// +structType=atomic
type EndpointPort struct {
	// Name of the port, the Service port's: empty or a DNS label. Defaults
	// to empty.
	Name *string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`

	// TCP, UDP or SCTP. Defaults to TCP.
	Protocol *corev1.Protocol `json:"protocol,omitempty" protobuf:"bytes,2,opt,name=protocol"`

	// Port number; unset means all ports.
	Port *int32 `json:"port,omitempty" protobuf:"varint,3,opt,name=port"`

	// Application protocol of the port, such as a IANA service name or a
	// prefixed name like mycompany.com/my-protocol.
	AppProtocol *string `json:"appProtocol,omitempty" protobuf:"bytes,4,opt,name=appProtocol"`
}

// EndpointSliceList is a list of EndpointSlices.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type EndpointSliceList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// The EndpointSlices.
	Items []EndpointSlice `json:"items" protobuf:"bytes,2,rep,name=items"`
}
