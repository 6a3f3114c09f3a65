package v1

import metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

// Node is a machine that runs pods, registered by its kubelet.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Node struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is how the node should be used.
	Spec NodeSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is what the kubelet last reported.
	Status NodeStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// NodeList is a list of nodes.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type NodeList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the nodes.
	Items []Node `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// NodeSpec is how a node should be used.
type NodeSpec struct {
	// PodCIDR is the pod address range of the node.
	PodCIDR string `json:"podCIDR,omitempty" protobuf:"bytes,1,opt,name=podCIDR"`
	// PodCIDRs are the pod address ranges, one per IP family, the first
	// equal to podCIDR.
	// +listType=set
	PodCIDRs []string `json:"podCIDRs,omitempty" patchStrategy:"merge" protobuf:"bytes,7,rep,name=podCIDRs"`
	// ProviderID is the cloud provider's identifier of the machine.
	ProviderID string `json:"providerID,omitempty" protobuf:"bytes,3,opt,name=providerID"`
	// Unschedulable keeps new pods off the node (kubectl cordon).
	Unschedulable bool `json:"unschedulable,omitempty" protobuf:"varint,4,opt,name=unschedulable"`
	// Taints repel pods that do not tolerate them.
	// +listType=atomic
	Taints []Taint `json:"taints,omitempty" protobuf:"bytes,5,rep,name=taints"`
	// DoNotUseExternalID is a deprecated field kept for compatibility.
	DoNotUseExternalID string `json:"externalID,omitempty" protobuf:"bytes,2,opt,name=externalID"`
}

// Taint marks a node so that only pods tolerating it run there.
type Taint struct {
	// Key of the taint.
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`
	// Value of the taint.
	Value string `json:"value,omitempty" protobuf:"bytes,2,opt,name=value"`
	// Effect on pods that do not tolerate the taint.
	Effect TaintEffect `json:"effect" protobuf:"bytes,3,opt,name=effect"`
	// TimeAdded is when a NoExecute taint was added.
	TimeAdded *metav1.Time `json:"timeAdded,omitempty" protobuf:"bytes,4,opt,name=timeAdded"`
}

// TaintEffect is what a taint does to pods that do not tolerate it.
type TaintEffect string

// The taint effects.
const (
	// TaintEffectNoSchedule keeps new pods off; running ones stay.
	TaintEffectNoSchedule TaintEffect = "NoSchedule"
	// TaintEffectPreferNoSchedule avoids the node when possible.
	TaintEffectPreferNoSchedule TaintEffect = "PreferNoSchedule"
	// TaintEffectNoExecute also evicts running pods.
	TaintEffectNoExecute TaintEffect = "NoExecute"
)

// NodeStatus is the observed state of a node.
type NodeStatus struct {
	// Capacity is the node's total resources.
	Capacity ResourceList `json:"capacity,omitempty" protobuf:"bytes,1,rep,name=capacity"`
	// Allocatable is what pods may use: capacity minus reservations.
	Allocatable ResourceList `json:"allocatable,omitempty" protobuf:"bytes,2,rep,name=allocatable"`
	// Phase is deprecated and unused.
	Phase NodePhase `json:"phase,omitempty" protobuf:"bytes,3,opt,name=phase"`
	// Conditions report readiness and pressure.
	// +listType=map
	// +listMapKey=type
	Conditions []NodeCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,4,rep,name=conditions"`
	// Addresses by which the node can be reached.
	// +listType=map
	// +listMapKey=type
	Addresses []NodeAddress `json:"addresses,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,5,rep,name=addresses"`
	// DaemonEndpoints are the ports of the node's daemons.
	DaemonEndpoints NodeDaemonEndpoints `json:"daemonEndpoints,omitempty" protobuf:"bytes,6,opt,name=daemonEndpoints"`
	// NodeInfo identifies the machine and its software.
	NodeInfo NodeSystemInfo `json:"nodeInfo,omitempty" protobuf:"bytes,7,opt,name=nodeInfo"`
	// Images present on the node.
	// +listType=atomic
	Images []ContainerImage `json:"images,omitempty" protobuf:"bytes,8,rep,name=images"`
	// VolumesInUse are the volumes mounted on the node.
	// +listType=atomic
	VolumesInUse []UniqueVolumeName `json:"volumesInUse,omitempty" protobuf:"bytes,9,rep,name=volumesInUse"`
	// VolumesAttached are the volumes attached to the node.
	// +listType=atomic
	VolumesAttached []AttachedVolume `json:"volumesAttached,omitempty" protobuf:"bytes,10,rep,name=volumesAttached"`
	// RuntimeHandlers are the container runtime's handlers and what each
	// supports.
	// +listType=atomic
	RuntimeHandlers []NodeRuntimeHandler `json:"runtimeHandlers,omitempty" protobuf:"bytes,12,rep,name=runtimeHandlers"`
	// Features are optional features the node supports.
	Features *NodeFeatures `json:"features,omitempty" protobuf:"bytes,13,opt,name=features"`
}

// NodePhase is the deprecated life-cycle phase of a node.
type NodePhase string

// The node phases.
const (
	NodePending    NodePhase = "Pending"
	NodeRunning    NodePhase = "Running"
	NodeTerminated NodePhase = "Terminated"
)

// NodeConditionType is the type of a node condition.
type NodeConditionType string

// The node condition types the kubelet reports.
const (
	// NodeReady: the kubelet is healthy and accepts pods.
	NodeReady NodeConditionType = "Ready"
	// NodeMemoryPressure: memory is low.
	NodeMemoryPressure NodeConditionType = "MemoryPressure"
	// NodeDiskPressure: disk space is low.
	NodeDiskPressure NodeConditionType = "DiskPressure"
	// NodePIDPressure: process IDs are running out.
	NodePIDPressure NodeConditionType = "PIDPressure"
	// NodeNetworkUnavailable: the node's network is not configured.
	NodeNetworkUnavailable NodeConditionType = "NetworkUnavailable"
)

// NodeCondition is one observation about a node.
type NodeCondition struct {
	// Type of the condition.
	Type NodeConditionType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// LastHeartbeatTime is when the kubelet last confirmed the condition.
	LastHeartbeatTime metav1.Time `json:"lastHeartbeatTime,omitempty" protobuf:"bytes,3,opt,name=lastHeartbeatTime"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	// Reason is a one-word CamelCase cause.
	Reason string `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	// Message explains the condition to a human.
	Message string `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// NodeAddressType is the kind of a node address.
type NodeAddressType string

// The node address types.
const (
	NodeHostName    NodeAddressType = "Hostname"
	NodeInternalIP  NodeAddressType = "InternalIP"
	NodeExternalIP  NodeAddressType = "ExternalIP"
	NodeInternalDNS NodeAddressType = "InternalDNS"
	NodeExternalDNS NodeAddressType = "ExternalDNS"
)

// NodeAddress is one address of a node.
type NodeAddress struct {
	// Type of the address.
	Type NodeAddressType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Address itself.
	Address string `json:"address" protobuf:"bytes,2,opt,name=address"`
}

// NodeDaemonEndpoints are the ports of a node's daemons.
type NodeDaemonEndpoints struct {
	// KubeletEndpoint is the kubelet's port.
	KubeletEndpoint DaemonEndpoint `json:"kubeletEndpoint,omitempty" protobuf:"bytes,1,opt,name=kubeletEndpoint"`
}

// DaemonEndpoint is one daemon's port.
type DaemonEndpoint struct {
	// Port number; the JSON name is capitalised on the wire.
	Port int32 `json:"Port" protobuf:"varint,1,opt,name=Port"`
}

// NodeSystemInfo identifies a node's machine and software.
type NodeSystemInfo struct {
	// MachineID from /etc/machine-id.
	MachineID string `json:"machineID" protobuf:"bytes,1,opt,name=machineID"`
	// SystemUUID from the firmware.
	SystemUUID string `json:"systemUUID" protobuf:"bytes,2,opt,name=systemUUID"`
	// BootID changes on every boot.
	BootID string `json:"bootID" protobuf:"bytes,3,opt,name=bootID"`
	// KernelVersion from uname -r.
	KernelVersion string `json:"kernelVersion" protobuf:"bytes,4,opt,name=kernelVersion"`
	// OSImage from /etc/os-release, such as "Debian GNU/Linux 12".
	OSImage string `json:"osImage" protobuf:"bytes,5,opt,name=osImage"`
	// ContainerRuntimeVersion is "<runtime>://<version>".
	ContainerRuntimeVersion string `json:"containerRuntimeVersion" protobuf:"bytes,6,opt,name=containerRuntimeVersion"`
	// KubeletVersion is the kubelet's version.
	KubeletVersion string `json:"kubeletVersion" protobuf:"bytes,7,opt,name=kubeletVersion"`
	// KubeProxyVersion is deprecated and may be empty.
	KubeProxyVersion string `json:"kubeProxyVersion" protobuf:"bytes,8,opt,name=kubeProxyVersion"`
	// OperatingSystem is GOOS, such as linux.
	OperatingSystem string `json:"operatingSystem" protobuf:"bytes,9,opt,name=operatingSystem"`
	// Architecture is GOARCH, such as amd64.
	Architecture string `json:"architecture" protobuf:"bytes,10,opt,name=architecture"`
}

// ContainerImage is an image present on a node.
type ContainerImage struct {
	// Names of the image, tags and digests.
	// +listType=atomic
	Names []string `json:"names" protobuf:"bytes,1,rep,name=names"`
	// SizeBytes is the image's size.
	SizeBytes int64 `json:"sizeBytes,omitempty" protobuf:"varint,2,opt,name=sizeBytes"`
}

// UniqueVolumeName identifies a volume across the cluster.
type UniqueVolumeName string

// AttachedVolume is a volume attached to a node.
type AttachedVolume struct {
	// Name of the volume.
	Name UniqueVolumeName `json:"name" protobuf:"bytes,1,opt,name=name"`
	// DevicePath where the volume is available.
	DevicePath string `json:"devicePath" protobuf:"bytes,2,opt,name=devicePath"`
}

// NodeRuntimeHandler is one handler of the node's container runtime.
type NodeRuntimeHandler struct {
	// Name of the handler; empty is the default handler.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Features the handler supports.
	Features *NodeRuntimeHandlerFeatures `json:"features,omitempty" protobuf:"bytes,2,opt,name=features"`
}

// NodeRuntimeHandlerFeatures are the features of a runtime handler.
type NodeRuntimeHandlerFeatures struct {
	// RecursiveReadOnlyMounts reports support for recursive read-only
	// mounts.
	RecursiveReadOnlyMounts *bool `json:"recursiveReadOnlyMounts,omitempty" protobuf:"varint,1,opt,name=recursiveReadOnlyMounts"`
	// UserNamespaces reports support for pod user namespaces.
	UserNamespaces *bool `json:"userNamespaces,omitempty" protobuf:"varint,2,opt,name=userNamespaces"`
}

// NodeFeatures are optional features of a node.
type NodeFeatures struct {
	// SupplementalGroupsPolicy reports support for that pod field.
	SupplementalGroupsPolicy *bool `json:"supplementalGroupsPolicy,omitempty" protobuf:"varint,1,opt,name=supplementalGroupsPolicy"`
}
