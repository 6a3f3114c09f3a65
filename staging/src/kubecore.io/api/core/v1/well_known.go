package v1

// Labels the kubelet and controllers set on nodes and other objects.
const (
	// LabelHostname is a node's host name.
	LabelHostname = "kubernetes.io/hostname"
	// LabelOSStable is a node's operating system (GOOS).
	LabelOSStable = "kubernetes.io/os"
	// LabelArchStable is a node's CPU architecture (GOARCH).
	LabelArchStable = "kubernetes.io/arch"
	// LabelTopologyZone is a node's failure zone.
	LabelTopologyZone = "topology.kubernetes.io/zone"
	// LabelTopologyRegion is a node's region.
	LabelTopologyRegion = "topology.kubernetes.io/region"
	// LabelInstanceTypeStable is a node's machine type.
	LabelInstanceTypeStable = "node.kubernetes.io/instance-type"
	// LabelNodeExcludeBalancers keeps a node out of load balancer pools.
	LabelNodeExcludeBalancers = "node.kubernetes.io/exclude-from-external-load-balancers"
	// LabelMetadataName is set on every namespace to its own name.
	LabelMetadataName = "kubernetes.io/metadata.name"
	// IsHeadlessService is set on the endpoints of headless services.
	IsHeadlessService = "service.kubernetes.io/headless"
)

// Taints the node controller and kubelet manage.
const (
	// TaintNodeNotReady: the Ready condition is False.
	TaintNodeNotReady = "node.kubernetes.io/not-ready"
	// TaintNodeUnreachable: the Ready condition is Unknown.
	TaintNodeUnreachable = "node.kubernetes.io/unreachable"
	// TaintNodeUnschedulable: the node is cordoned.
	TaintNodeUnschedulable = "node.kubernetes.io/unschedulable"
	// TaintNodeMemoryPressure: the MemoryPressure condition is True.
	TaintNodeMemoryPressure = "node.kubernetes.io/memory-pressure"
	// TaintNodeDiskPressure: the DiskPressure condition is True.
	TaintNodeDiskPressure = "node.kubernetes.io/disk-pressure"
	// TaintNodePIDPressure: the PIDPressure condition is True.
	TaintNodePIDPressure = "node.kubernetes.io/pid-pressure"
	// TaintNodeNetworkUnavailable: the node's network is not set up.
	TaintNodeNetworkUnavailable = "node.kubernetes.io/network-unavailable"
	// TaintNodeOutOfService: the node is shut down for good; its pods may
	// be force-deleted.
	TaintNodeOutOfService = "node.kubernetes.io/out-of-service"
)

// Annotations with a meaning to Kubernetes components.
const (
	// MirrorPodAnnotationKey marks the API mirror of a kubelet static pod;
	// its value is the static pod's hash.
	MirrorPodAnnotationKey = "kubernetes.io/config.mirror"
	// LastAppliedConfigAnnotation holds what kubectl apply last applied.
	LastAppliedConfigAnnotation = "kubectl.kubernetes.io/last-applied-configuration"
	// PodDeletionCost ranks pods for deletion when a ReplicaSet scales
	// down; lower goes first.
	PodDeletionCost = "controller.kubernetes.io/pod-deletion-cost"
	// EndpointsLastChangeTriggerTime is when the change that updated an
	// Endpoints object happened.
	EndpointsLastChangeTriggerTime = "endpoints.kubernetes.io/last-change-trigger-time"
	// EndpointsOverCapacity marks an Endpoints object truncated to 1000
	// addresses.
	EndpointsOverCapacity = "endpoints.kubernetes.io/over-capacity"
)

// ServiceAccountMountPath is where containers find their service account's
// token, the cluster CA and their namespace (the API access volume).
const ServiceAccountMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"
