package v1

import (
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

// Service gives a set of pods, picked by a label selector, one stable
// name, virtual address and port set.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Service struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is the service's desired behaviour.
	Spec ServiceSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status holds the load balancer, if any.
	Status ServiceStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// ServiceList is a list of services.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ServiceList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the services.
	Items []Service `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ClusterIPNone as spec.clusterIP makes a headless service: DNS returns the
// pods' addresses and no virtual IP is allocated.
const ClusterIPNone = "None"

// ServiceSpec is a service's desired behaviour.
type ServiceSpec struct {
	// Ports the service exposes.
	// +listType=map
	// +listMapKey=port
	// +listMapKey=protocol
	Ports []ServicePort `json:"ports,omitempty" patchStrategy:"merge" patchMergeKey:"port" protobuf:"bytes,1,rep,name=ports"`
	// Selector picks the backing pods by label; without one the endpoints
	// are managed by hand.
	// +mapType=atomic
	Selector map[string]string `json:"selector,omitempty" protobuf:"bytes,2,rep,name=selector"`
	// ClusterIP is the virtual address, allocated when empty; "None" makes
	// the service headless.
	ClusterIP string `json:"clusterIP,omitempty" protobuf:"bytes,3,opt,name=clusterIP"`
	// ClusterIPs are the virtual addresses, one per IP family, the first
	// equal to clusterIP.
	// +listType=atomic
	ClusterIPs []string `json:"clusterIPs,omitempty" protobuf:"bytes,18,rep,name=clusterIPs"`
	// Type is ClusterIP (the default), NodePort, LoadBalancer or
	// ExternalName.
	Type ServiceType `json:"type,omitempty" protobuf:"bytes,4,opt,name=type"`
	// ExternalIPs are extra addresses nodes accept traffic on.
	// +listType=atomic
	ExternalIPs []string `json:"externalIPs,omitempty" protobuf:"bytes,5,rep,name=externalIPs"`
	// SessionAffinity is None (the default) or ClientIP.
	SessionAffinity ServiceAffinity `json:"sessionAffinity,omitempty" protobuf:"bytes,7,opt,name=sessionAffinity"`
	// LoadBalancerIP is a deprecated request for a load balancer address.
	LoadBalancerIP string `json:"loadBalancerIP,omitempty" protobuf:"bytes,8,opt,name=loadBalancerIP"`
	// LoadBalancerSourceRanges restrict the clients of a load balancer.
	// +listType=atomic
	LoadBalancerSourceRanges []string `json:"loadBalancerSourceRanges,omitempty" protobuf:"bytes,9,rep,name=loadBalancerSourceRanges"`
	// ExternalName is the DNS name an ExternalName service aliases.
	ExternalName string `json:"externalName,omitempty" protobuf:"bytes,10,opt,name=externalName"`
	// ExternalTrafficPolicy is Cluster or Local, for traffic from outside.
	ExternalTrafficPolicy ServiceExternalTrafficPolicy `json:"externalTrafficPolicy,omitempty" protobuf:"bytes,11,opt,name=externalTrafficPolicy"`
	// HealthCheckNodePort serves health checks with externalTrafficPolicy
	// Local.
	HealthCheckNodePort int32 `json:"healthCheckNodePort,omitempty" protobuf:"varint,12,opt,name=healthCheckNodePort"`
	// PublishNotReadyAddresses includes not-ready pods in DNS and
	// endpoints.
	PublishNotReadyAddresses bool `json:"publishNotReadyAddresses,omitempty" protobuf:"varint,13,opt,name=publishNotReadyAddresses"`
	// SessionAffinityConfig tunes ClientIP affinity.
	SessionAffinityConfig *SessionAffinityConfig `json:"sessionAffinityConfig,omitempty" protobuf:"bytes,14,opt,name=sessionAffinityConfig"`
	// IPFamilies are the families of clusterIPs, in order.
	// +listType=atomic
	IPFamilies []IPFamily `json:"ipFamilies,omitempty" protobuf:"bytes,19,rep,name=ipFamilies"`
	// IPFamilyPolicy is SingleStack, PreferDualStack or RequireDualStack.
	IPFamilyPolicy *IPFamilyPolicy `json:"ipFamilyPolicy,omitempty" protobuf:"bytes,17,opt,name=ipFamilyPolicy"`
	// AllocateLoadBalancerNodePorts says whether a LoadBalancer service
	// gets node ports; defaults to true.
	AllocateLoadBalancerNodePorts *bool `json:"allocateLoadBalancerNodePorts,omitempty" protobuf:"varint,20,opt,name=allocateLoadBalancerNodePorts"`
	// LoadBalancerClass picks the load balancer implementation.
	LoadBalancerClass *string `json:"loadBalancerClass,omitempty" protobuf:"bytes,21,opt,name=loadBalancerClass"`
	// InternalTrafficPolicy is Cluster or Local, for traffic from inside.
	InternalTrafficPolicy *ServiceInternalTrafficPolicy `json:"internalTrafficPolicy,omitempty" protobuf:"bytes,22,opt,name=internalTrafficPolicy"`
	// TrafficDistribution expresses a routing preference, such as
	// PreferClose.
	TrafficDistribution *string `json:"trafficDistribution,omitempty" protobuf:"bytes,23,opt,name=trafficDistribution"`
}

// The values of spec.trafficDistribution.
const (
	// ServiceTrafficDistributionPreferClose prefers topologically close
	// endpoints.
	ServiceTrafficDistributionPreferClose = "PreferClose"
	// ServiceTrafficDistributionPreferSameZone prefers endpoints in the
	// client's zone.
	ServiceTrafficDistributionPreferSameZone = "PreferSameZone"
	// ServiceTrafficDistributionPreferSameNode prefers endpoints on the
	// client's node.
	ServiceTrafficDistributionPreferSameNode = "PreferSameNode"
)

// ServicePort is one port of a service.
type ServicePort struct {
	// Name of the port; required when there are several.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// Protocol is TCP (the default), UDP or SCTP.
	// +default="TCP"
	Protocol Protocol `json:"protocol,omitempty" protobuf:"bytes,2,opt,name=protocol"`
	// AppProtocol is the application protocol, such as "http".
	AppProtocol *string `json:"appProtocol,omitempty" protobuf:"bytes,6,opt,name=appProtocol"`
	// Port the service listens on.
	Port int32 `json:"port" protobuf:"varint,3,opt,name=port"`
	// TargetPort is the pods' port, by number or by container port name;
	// defaults to port.
	TargetPort intstr.IntOrString `json:"targetPort,omitempty" protobuf:"bytes,4,opt,name=targetPort"`
	// NodePort is the port on every node for NodePort and LoadBalancer
	// services; allocated when zero.
	NodePort int32 `json:"nodePort,omitempty" protobuf:"varint,5,opt,name=nodePort"`
}

// ServiceType is how a service is exposed.
type ServiceType string

// The service types.
const (
	// ServiceTypeClusterIP: a virtual IP reachable inside the cluster.
	ServiceTypeClusterIP ServiceType = "ClusterIP"
	// ServiceTypeNodePort: a cluster IP plus a port on every node.
	ServiceTypeNodePort ServiceType = "NodePort"
	// ServiceTypeLoadBalancer: a node port plus an external load balancer.
	ServiceTypeLoadBalancer ServiceType = "LoadBalancer"
	// ServiceTypeExternalName: a DNS CNAME to externalName.
	ServiceTypeExternalName ServiceType = "ExternalName"
)

// ServiceAffinity is the session affinity of a service.
type ServiceAffinity string

// The session affinities.
const (
	ServiceAffinityClientIP ServiceAffinity = "ClientIP"
	ServiceAffinityNone     ServiceAffinity = "None"
)

// DefaultClientIPServiceAffinitySeconds is the default ClientIP affinity
// timeout: three hours.
const DefaultClientIPServiceAffinitySeconds int32 = 10800

// SessionAffinityConfig tunes session affinity.
type SessionAffinityConfig struct {
	// ClientIP tunes ClientIP affinity.
	ClientIP *ClientIPConfig `json:"clientIP,omitempty" protobuf:"bytes,1,opt,name=clientIP"`
}

// ClientIPConfig tunes ClientIP affinity.
type ClientIPConfig struct {
	// TimeoutSeconds a client sticks to a backend; 1 to 86400.
	TimeoutSeconds *int32 `json:"timeoutSeconds,omitempty" protobuf:"varint,1,opt,name=timeoutSeconds"`
}

// ServiceInternalTrafficPolicy routes traffic from inside the cluster.
type ServiceInternalTrafficPolicy string

// The internal traffic policies.
const (
	// ServiceInternalTrafficPolicyCluster routes to any ready endpoint.
	ServiceInternalTrafficPolicyCluster ServiceInternalTrafficPolicy = "Cluster"
	// ServiceInternalTrafficPolicyLocal routes to endpoints on the same
	// node only.
	ServiceInternalTrafficPolicyLocal ServiceInternalTrafficPolicy = "Local"
)

// ServiceExternalTrafficPolicy routes traffic from outside the cluster.
type ServiceExternalTrafficPolicy string

// The external traffic policies.
const (
	// ServiceExternalTrafficPolicyCluster routes to any ready endpoint.
	ServiceExternalTrafficPolicyCluster ServiceExternalTrafficPolicy = "Cluster"
	// ServiceExternalTrafficPolicyLocal keeps the client address and routes
	// to endpoints on the receiving node only.
	ServiceExternalTrafficPolicyLocal ServiceExternalTrafficPolicy = "Local"
)

// IPFamily is IPv4 or IPv6.
type IPFamily string

// The IP families.
const (
	IPv4Protocol    IPFamily = "IPv4"
	IPv6Protocol    IPFamily = "IPv6"
	IPFamilyUnknown IPFamily = ""
)

// IPFamilyPolicy says how many IP families a service gets.
type IPFamilyPolicy string

// The IP family policies.
const (
	IPFamilyPolicySingleStack      IPFamilyPolicy = "SingleStack"
	IPFamilyPolicyPreferDualStack  IPFamilyPolicy = "PreferDualStack"
	IPFamilyPolicyRequireDualStack IPFamilyPolicy = "RequireDualStack"
)

// ServiceStatus is the observed state of a service.
type ServiceStatus struct {
	// LoadBalancer holds the load balancer's addresses.
	LoadBalancer LoadBalancerStatus `json:"loadBalancer,omitempty" protobuf:"bytes,1,opt,name=loadBalancer"`
	// Conditions of the service.
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,2,rep,name=conditions"`
}

// LoadBalancerStatus lists a load balancer's ingress points.
type LoadBalancerStatus struct {
	// Ingress points of the load balancer.
	// +listType=atomic
	Ingress []LoadBalancerIngress `json:"ingress,omitempty" protobuf:"bytes,1,rep,name=ingress"`
}

// LoadBalancerIngress is one ingress point of a load balancer.
type LoadBalancerIngress struct {
	// IP of the ingress point.
	IP string `json:"ip,omitempty" protobuf:"bytes,1,opt,name=ip"`
	// Hostname of the ingress point.
	Hostname string `json:"hostname,omitempty" protobuf:"bytes,2,opt,name=hostname"`
	// IPMode is VIP or Proxy.
	IPMode *LoadBalancerIPMode `json:"ipMode,omitempty" protobuf:"bytes,3,opt,name=ipMode"`
	// Ports of the ingress point and their errors.
	// +listType=atomic
	Ports []PortStatus `json:"ports,omitempty" protobuf:"bytes,4,rep,name=ports"`
}

// LoadBalancerIPMode says how traffic reaches the load balancer's IP.
type LoadBalancerIPMode string

// The load balancer IP modes.
const (
	LoadBalancerIPModeVIP   LoadBalancerIPMode = "VIP"
	LoadBalancerIPModeProxy LoadBalancerIPMode = "Proxy"
)

// PortStatus is the state of one load balancer port.
type PortStatus struct {
	// Port number.
	Port int32 `json:"port" protobuf:"varint,1,opt,name=port"`
	// Protocol of the port.
	Protocol Protocol `json:"protocol" protobuf:"bytes,2,opt,name=protocol"`
	// Error is a CamelCase problem with the port, if any.
	Error *string `json:"error,omitempty" protobuf:"bytes,3,opt,name=error"`
}

// Endpoints lists the addresses backing a service; its name is the
// service's.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Endpoints struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Subsets group addresses that share the same ports.
	// +listType=atomic
	Subsets []EndpointSubset `json:"subsets,omitempty" protobuf:"bytes,2,rep,name=subsets"`
}

// EndpointSubset is a set of addresses with a common set of ports.
type EndpointSubset struct {
	// Addresses that are ready.
	// +listType=atomic
	Addresses []EndpointAddress `json:"addresses,omitempty" protobuf:"bytes,1,rep,name=addresses"`
	// NotReadyAddresses are not ready yet or no longer.
	// +listType=atomic
	NotReadyAddresses []EndpointAddress `json:"notReadyAddresses,omitempty" protobuf:"bytes,2,rep,name=notReadyAddresses"`
	// Ports available on every address.
	// +listType=atomic
	Ports []EndpointPort `json:"ports,omitempty" protobuf:"bytes,3,rep,name=ports"`
}

// EndpointAddress is one backend address.
// +structType=atomic
type EndpointAddress struct {
	// IP of the backend.
	IP string `json:"ip" protobuf:"bytes,1,opt,name=ip"`
	// Hostname of the backend.
	Hostname string `json:"hostname,omitempty" protobuf:"bytes,3,opt,name=hostname"`
	// NodeName of the backend's node.
	NodeName *string `json:"nodeName,omitempty" protobuf:"bytes,4,opt,name=nodeName"`
	// TargetRef is the backing object, usually a pod.
	TargetRef *ObjectReference `json:"targetRef,omitempty" protobuf:"bytes,2,opt,name=targetRef"`
}

// EndpointPort is one port of the backends.
// +structType=atomic
type EndpointPort struct {
	// Name matching the service port's name.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// Port number.
	Port int32 `json:"port" protobuf:"varint,2,opt,name=port"`
	// Protocol is TCP (the default), UDP or SCTP.
	Protocol Protocol `json:"protocol,omitempty" protobuf:"bytes,3,opt,name=protocol"`
	// AppProtocol is the application protocol.
	AppProtocol *string `json:"appProtocol,omitempty" protobuf:"bytes,4,opt,name=appProtocol"`
}

// EndpointsList is a list of endpoints.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type EndpointsList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the endpoints.
	Items []Endpoints `json:"items" protobuf:"bytes,2,rep,name=items"`
}
