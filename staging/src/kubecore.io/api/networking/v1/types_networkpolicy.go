package v1

import (
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"
)

// NetworkPolicy says which traffic the pods it selects accept and send.
// Enforcing it is the network plugin's business.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type NetworkPolicy struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is the policy.
	Spec NetworkPolicySpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
}

// PolicyType is a direction of traffic a policy governs.
type PolicyType string

// The directions of traffic.
const (
	// PolicyTypeIngress governs traffic into the selected pods.
	PolicyTypeIngress PolicyType = "Ingress"
	// PolicyTypeEgress governs traffic out of the selected pods.
	PolicyTypeEgress PolicyType = "Egress"
)

// NetworkPolicySpec is the content of a NetworkPolicy.
type NetworkPolicySpec struct {
	// PodSelector selects the pods of the namespace the policy applies
	// to; empty selects every pod.
	PodSelector metav1.LabelSelector `json:"podSelector" protobuf:"bytes,1,opt,name=podSelector"`

	// Ingress lists the traffic allowed into the selected pods, besides
	// what other policies allow. Empty allows none.
	// +listType=atomic
	Ingress []NetworkPolicyIngressRule `json:"ingress,omitempty" protobuf:"bytes,2,rep,name=ingress"`

	// Egress lists the traffic allowed out of the selected pods, besides
	// what other policies allow. Empty allows none.
	// +listType=atomic
	Egress []NetworkPolicyEgressRule `json:"egress,omitempty" protobuf:"bytes,3,rep,name=egress"`

	// PolicyTypes are the directions the policy governs. Unset means
	// Ingress, plus Egress when the policy has egress rules.
	// +listType=atomic
	PolicyTypes []PolicyType `json:"policyTypes,omitempty" protobuf:"bytes,4,rep,name=policyTypes,casttype=PolicyType"`
}

// NetworkPolicyIngressRule allows traffic that matches both its ports
// and its sources.
type NetworkPolicyIngressRule struct {
	// Ports the traffic may reach; empty means every port.
	// +listType=atomic
	Ports []NetworkPolicyPort `json:"ports,omitempty" protobuf:"bytes,1,rep,name=ports"`

	// From lists the sources allowed; empty means every source.
	// +listType=atomic
	From []NetworkPolicyPeer `json:"from,omitempty" protobuf:"bytes,2,rep,name=from"`
}

// NetworkPolicyEgressRule allows traffic that matches both its ports and
// its destinations.
type NetworkPolicyEgressRule struct {
	// Ports the traffic may go to; empty means every port.
	// +listType=atomic
	Ports []NetworkPolicyPort `json:"ports,omitempty" protobuf:"bytes,1,rep,name=ports"`

	// To lists the destinations allowed; empty means every destination.
	// +listType=atomic
	To []NetworkPolicyPeer `json:"to,omitempty" protobuf:"bytes,2,rep,name=to"`
}

// NetworkPolicyPort is a port, or a range of ports, and its protocol.
type NetworkPolicyPort struct {
	// Protocol: TCP (the default), UDP or SCTP.
	Protocol *corev1.Protocol `json:"protocol,omitempty" protobuf:"bytes,1,opt,name=protocol,casttype=Protocol"`

	// Port by number or by the pod's port name; unset means every port.
	Port *intstr.IntOrString `json:"port,omitempty" protobuf:"bytes,2,opt,name=port"`

	// EndPort makes a range from Port to EndPort, both included; Port
	// must then be a number not above it.
	EndPort *int32 `json:"endPort,omitempty" protobuf:"varint,3,opt,name=endPort"`
}

// IPBlock is a CIDR allowed, less the CIDRs it excepts.
type IPBlock struct {
	// CIDR allowed, such as "192.168.1.0/24" or "2001:db8::/64".
	CIDR string `json:"cidr" protobuf:"bytes,1,opt,name=cidr"`

	// Except lists CIDRs inside CIDR that are not allowed.
	// +listType=atomic
	Except []string `json:"except,omitempty" protobuf:"bytes,2,rep,name=except"`
}

// NetworkPolicyPeer is a set of peers: pods chosen by pod and namespace
// selectors, or an IP block.
type NetworkPolicyPeer struct {
	// PodSelector selects pods; with a namespace selector, in the
	// namespaces it selects, otherwise in the policy's namespace.
	PodSelector *metav1.LabelSelector `json:"podSelector,omitempty" protobuf:"bytes,1,opt,name=podSelector"`

	// NamespaceSelector selects namespaces whose pods (all of them, or
	// those the pod selector picks) are peers.
	NamespaceSelector *metav1.LabelSelector `json:"namespaceSelector,omitempty" protobuf:"bytes,2,opt,name=namespaceSelector"`

	// IPBlock is a CIDR of peers; it excludes both selectors.
	IPBlock *IPBlock `json:"ipBlock,omitempty" protobuf:"bytes,3,opt,name=ipBlock"`
}

// NetworkPolicyList is a list of NetworkPolicies.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type NetworkPolicyList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Items are the NetworkPolicies.
	Items []NetworkPolicy `json:"items" protobuf:"bytes,2,rep,name=items"`
}
