package v1

import (
	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// IsDefaultStorageClassAnnotation marks the StorageClass given to claims
// that name none.
const IsDefaultStorageClassAnnotation = "storageclass.kubernetes.io/is-default-class"

// StorageClass describes a class of dynamically provisioned volumes: the
// provisioner that makes them and the parameters it is given. Classes are
// cluster-scoped and, but for allowVolumeExpansion, immutable.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type StorageClass struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// provisioner indicates the type of the provisioner.
	Provisioner string `json:"provisioner" protobuf:"bytes,2,opt,name=provisioner"`

	// parameters holds the parameters for the provisioner that should
	// create volumes of this storage class.
	Parameters map[string]string `json:"parameters,omitempty" protobuf:"bytes,3,rep,name=parameters"`

	// reclaimPolicy controls the reclaimPolicy for dynamically provisioned
	// PersistentVolumes of this storage class. Defaults to Delete.
	ReclaimPolicy *corev1.PersistentVolumeReclaimPolicy `json:"reclaimPolicy,omitempty" protobuf:"bytes,4,opt,name=reclaimPolicy"`

	// mountOptions controls the mountOptions for dynamically provisioned
	// PersistentVolumes of this storage class. e.g. ["ro", "soft"]. Not
	// validated - mount of the PVs will simply fail if one is invalid.
	MountOptions []string `json:"mountOptions,omitempty" protobuf:"bytes,5,rep,name=mountOptions"`

	// allowVolumeExpansion shows whether the storage class allow volume
	// expand.
	AllowVolumeExpansion *bool `json:"allowVolumeExpansion,omitempty" protobuf:"varint,6,opt,name=allowVolumeExpansion"`

	// volumeBindingMode indicates how PersistentVolumeClaims should be
	// provisioned and bound. When unset, VolumeBindingImmediate is used.
	VolumeBindingMode *VolumeBindingMode `json:"volumeBindingMode,omitempty" protobuf:"bytes,7,opt,name=volumeBindingMode"`

	// allowedTopologies restrict the node topologies where volumes can be
	// dynamically provisioned. Each volume plugin defines its own
	// supported topology specifications. An empty TopologySelectorTerm list
	// means there is no topology restriction.
	AllowedTopologies []corev1.TopologySelectorTerm `json:"allowedTopologies,omitempty" protobuf:"bytes,8,rep,name=allowedTopologies"`
}

// StorageClassList is a collection of storage classes.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type StorageClassList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// items is the list of StorageClasses
	Items []StorageClass `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// VolumeBindingMode indicates how PersistentVolumeClaims should be bound.
type VolumeBindingMode string

// The volume binding modes.
const (
	// VolumeBindingImmediate: claims are bound and provisioned as soon as
	// they are created.
	VolumeBindingImmediate VolumeBindingMode = "Immediate"
	// VolumeBindingWaitForFirstConsumer: binding and provisioning wait
	// until a pod using the claim is scheduled, so that the pod's node
	// constraints are taken into account.
	VolumeBindingWaitForFirstConsumer VolumeBindingMode = "WaitForFirstConsumer"
)

// VolumeAttachment captures the intent to attach or detach the specified
// volume to/from the specified node. VolumeAttachment objects are
// non-namespaced.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type VolumeAttachment struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec represents specification of the desired attach/detach volume
	// behavior. Populated by the Kubernetes system.
	Spec VolumeAttachmentSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`

	// status represents status of the VolumeAttachment request. Populated
	// by the entity completing the attach or detach operation, i.e. the
	// external-attacher.
	Status VolumeAttachmentStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// VolumeAttachmentList is a collection of VolumeAttachment objects.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type VolumeAttachmentList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// items is the list of VolumeAttachments
	Items []VolumeAttachment `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// VolumeAttachmentSpec is the specification of a VolumeAttachment request.
type VolumeAttachmentSpec struct {
	// attacher indicates the name of the volume driver that MUST handle
	// this request. This is the name returned by GetPluginName().
	Attacher string `json:"attacher" protobuf:"bytes,1,opt,name=attacher"`

	// source represents the volume that should be attached.
	Source VolumeAttachmentSource `json:"source" protobuf:"bytes,2,opt,name=source"`

	// nodeName represents the node that the volume should be attached to.
	NodeName string `json:"nodeName" protobuf:"bytes,3,opt,name=nodeName"`
}

// VolumeAttachmentSource represents a volume that should be attached.
// Exactly one member can be set.
type VolumeAttachmentSource struct {
	// persistentVolumeName represents the name of the persistent volume to
	// attach.
	PersistentVolumeName *string `json:"persistentVolumeName,omitempty" protobuf:"bytes,1,opt,name=persistentVolumeName"`

	// inlineVolumeSpec contains all the information necessary to attach a
	// persistent volume defined by a pod's inline VolumeSource, populated
	// only for the CSIMigration feature.
	InlineVolumeSpec *corev1.PersistentVolumeSpec `json:"inlineVolumeSpec,omitempty" protobuf:"bytes,2,opt,name=inlineVolumeSpec"`
}

// VolumeAttachmentStatus is the status of a VolumeAttachment request.
type VolumeAttachmentStatus struct {
	// attached indicates the volume is successfully attached. This field
	// must only be set by the entity completing the attach operation, i.e.
	// the external-attacher.
	Attached bool `json:"attached" protobuf:"varint,1,opt,name=attached"`

	// attachmentMetadata is populated with any information returned by the
	// attach operation, upon successful attach, that must be passed into
	// subsequent WaitForAttach or Mount calls.
	AttachmentMetadata map[string]string `json:"attachmentMetadata,omitempty" protobuf:"bytes,2,rep,name=attachmentMetadata"`

	// attachError represents the last error encountered during attach
	// operation, if any.
	AttachError *VolumeError `json:"attachError,omitempty" protobuf:"bytes,3,opt,name=attachError"`

	// detachError represents the last error encountered during detach
	// operation, if any.
	DetachError *VolumeError `json:"detachError,omitempty" protobuf:"bytes,4,opt,name=detachError"`
}

// VolumeError captures an error encountered during a volume operation.
type VolumeError struct {
	// time represents the time the error was encountered.
	Time metav1.Time `json:"time,omitempty" protobuf:"bytes,1,opt,name=time"`

	// message represents the error encountered during Attach or Detach
	// operation. This string may be logged, so it should not contain
	// sensitive information.
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`

	// errorCode is a numeric gRPC code representing the error encountered
	// during Attach or Detach operations.
	ErrorCode *int32 `json:"errorCode,omitempty" protobuf:"varint,3,opt,name=errorCode"`
}

// CSIDriver captures information about a Container Storage Interface
// (CSI) volume driver deployed on the cluster. CSIDriver objects are
// non-namespaced.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type CSIDriver struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata. metadata.Name indicates the name of the CSI
	// driver that this object refers to; it MUST be the same name returned
	// by the CSI GetPluginName() call for that driver.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec represents the specification of the CSI Driver.
	Spec CSIDriverSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
}

// CSIDriverList is a collection of CSIDriver objects.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type CSIDriverList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// items is the list of CSIDriver
	Items []CSIDriver `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// CSIDriverSpec is the specification of a CSIDriver.
type CSIDriverSpec struct {
	// attachRequired indicates this CSI volume driver requires an attach
	// operation (because it implements the CSI ControllerPublishVolume()
	// method). This field is immutable.
	AttachRequired *bool `json:"attachRequired,omitempty" protobuf:"varint,1,opt,name=attachRequired"`

	// podInfoOnMount indicates this CSI volume driver requires additional
	// pod information (like podName, podUID, etc.) during mount operations.
	PodInfoOnMount *bool `json:"podInfoOnMount,omitempty" protobuf:"varint,2,opt,name=podInfoOnMount"`

	// volumeLifecycleModes defines what kind of volumes this CSI volume
	// driver supports: Persistent, Ephemeral or both. The default is
	// Persistent. This field is immutable.
	VolumeLifecycleModes []VolumeLifecycleMode `json:"volumeLifecycleModes,omitempty" protobuf:"bytes,3,rep,name=volumeLifecycleModes"`

	// storageCapacity indicates that the CSI volume driver wants pod
	// scheduling to consider the storage capacity that the driver
	// deployment will report by creating CSIStorageCapacity objects.
	StorageCapacity *bool `json:"storageCapacity,omitempty" protobuf:"varint,4,opt,name=storageCapacity"`

	// fsGroupPolicy defines if the underlying volume supports changing
	// ownership and permission of the volume before being mounted. This
	// field is immutable. Defaults to ReadWriteOnceWithFSType.
	FSGroupPolicy *FSGroupPolicy `json:"fsGroupPolicy,omitempty" protobuf:"bytes,5,opt,name=fsGroupPolicy"`

	// tokenRequests indicates the CSI driver needs pods' service account
	// tokens it is mounting volume for to do necessary authentication.
	TokenRequests []TokenRequest `json:"tokenRequests,omitempty" protobuf:"bytes,6,rep,name=tokenRequests"`

	// requiresRepublish indicates the CSI driver wants NodePublishVolume
	// being periodically called to reflect any possible change in the
	// mounted volume.
	RequiresRepublish *bool `json:"requiresRepublish,omitempty" protobuf:"varint,7,opt,name=requiresRepublish"`

	// seLinuxMount specifies if the CSI driver supports "-o context" mount
	// option. Default is "false".
	SELinuxMount *bool `json:"seLinuxMount,omitempty" protobuf:"varint,8,opt,name=seLinuxMount"`

	// nodeAllocatableUpdatePeriodSeconds specifies the interval between
	// periodic updates of the CSINode allocatable capacity for this
	// driver. The minimum allowed value is 10 seconds.
	NodeAllocatableUpdatePeriodSeconds *int64 `json:"nodeAllocatableUpdatePeriodSeconds,omitempty" protobuf:"varint,9,opt,name=nodeAllocatableUpdatePeriodSeconds"`

	// serviceAccountTokenInSecrets is an opt-in for CSI drivers to indicate
	// that service account tokens should be passed via the Secrets field in
	// NodePublishVolumeRequest instead of the VolumeContext field.
	ServiceAccountTokenInSecrets *bool `json:"serviceAccountTokenInSecrets,omitempty" protobuf:"varint,10,opt,name=serviceAccountTokenInSecrets"`
}

// FSGroupPolicy specifies if a CSI Driver supports modifying volume
// ownership and permissions of the volume to be mounted.
type FSGroupPolicy string

// The fsGroup policies.
const (
	// ReadWriteOnceWithFSTypeFSGroupPolicy: ownership is changed only for
	// ReadWriteOnce volumes with an fsType.
	ReadWriteOnceWithFSTypeFSGroupPolicy FSGroupPolicy = "ReadWriteOnceWithFSType"
	// FileFSGroupPolicy: ownership is always changed when an fsGroup is
	// given.
	FileFSGroupPolicy FSGroupPolicy = "File"
	// NoneFSGroupPolicy: ownership is never changed.
	NoneFSGroupPolicy FSGroupPolicy = "None"
)

// VolumeLifecycleMode is an enumeration of possible usage modes for a
// volume provided by a CSI driver.
type VolumeLifecycleMode string

// The volume lifecycle modes.
const (
	// VolumeLifecyclePersistent: volumes are PersistentVolumes or generic
	// ephemeral volumes.
	VolumeLifecyclePersistent VolumeLifecycleMode = "Persistent"
	// VolumeLifecycleEphemeral: inline CSI ephemeral volumes in a pod spec.
	VolumeLifecycleEphemeral VolumeLifecycleMode = "Ephemeral"
)

// TokenRequest contains parameters of a service account token.
type TokenRequest struct {
	// audience is the intended audience of the token in
	// "TokenRequestSpec". It will default to the audiences of kube
	// apiserver.
	Audience string `json:"audience" protobuf:"bytes,1,opt,name=audience"`

	// expirationSeconds is the duration of validity of the token in
	// "TokenRequestSpec". It has the same default value of
	// "ExpirationSeconds" in "TokenRequestSpec".
	ExpirationSeconds *int64 `json:"expirationSeconds,omitempty" protobuf:"varint,2,opt,name=expirationSeconds"`
}

// CSINode holds information about all CSI drivers installed on a node.
// CSINode has the same name as a node.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type CSINode struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata. metadata.name must be the Kubernetes
	// node name.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// spec is the specification of CSINode
	Spec CSINodeSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
}

// CSINodeSpec holds information about the specification of all CSI
// drivers installed on a node.
type CSINodeSpec struct {
	// drivers is a list of information of all CSI Drivers existing on a
	// node. If all drivers in the list are uninstalled, this can become
	// empty.
	Drivers []CSINodeDriver `json:"drivers" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,1,rep,name=drivers"`
}

// CSINodeDriver holds information about the specification of one CSI
// driver installed on a node.
type CSINodeDriver struct {
	// name represents the name of the CSI driver that this object refers
	// to. This MUST be the same name returned by the CSI GetPluginName()
	// call for that driver.
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`

	// nodeID of the node from the driver point of view.
	NodeID string `json:"nodeID" protobuf:"bytes,2,opt,name=nodeID"`

	// topologyKeys is the list of keys supported by the driver.
	TopologyKeys []string `json:"topologyKeys" protobuf:"bytes,3,rep,name=topologyKeys"`

	// allocatable represents the volume resources of a node that are
	// available for scheduling. This field is beta.
	Allocatable *VolumeNodeResources `json:"allocatable,omitempty" protobuf:"bytes,4,opt,name=allocatable"`
}

// VolumeNodeResources is a set of resource limits for scheduling of
// volumes.
type VolumeNodeResources struct {
	// count indicates the maximum number of unique volumes managed by the
	// CSI driver that can be used on a node.
	Count *int32 `json:"count,omitempty" protobuf:"varint,1,opt,name=count"`
}

// CSINodeList is a collection of CSINode objects.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type CSINodeList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// items is the list of CSINode
	Items []CSINode `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// CSIStorageCapacity stores the result of one CSI GetCapacity call: for a
// given StorageClass, the capacity available in a given topology segment.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type CSIStorageCapacity struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata. The name has no particular meaning. It
	// must be a DNS subdomain.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// nodeTopology defines which nodes have access to the storage for which
	// capacity was reported. If not set, the storage is not accessible from
	// any node in the cluster. This field is immutable.
	NodeTopology *metav1.LabelSelector `json:"nodeTopology,omitempty" protobuf:"bytes,2,opt,name=nodeTopology"`

	// storageClassName represents the name of the StorageClass that the
	// reported capacity applies to. This field is immutable.
	StorageClassName string `json:"storageClassName" protobuf:"bytes,3,opt,name=storageClassName"`

	// capacity is the value reported by the CSI driver in its
	// GetCapacityResponse for a GetCapacityRequest with topology and
	// parameters that match the previous fields.
	Capacity *resource.Quantity `json:"capacity,omitempty" protobuf:"bytes,4,opt,name=capacity"`

	// maximumVolumeSize is the value reported by the CSI driver in its
	// GetCapacityResponse for a GetCapacityRequest with topology and
	// parameters that match the previous fields.
	MaximumVolumeSize *resource.Quantity `json:"maximumVolumeSize,omitempty" protobuf:"bytes,5,opt,name=maximumVolumeSize"`
}

// CSIStorageCapacityList is a collection of CSIStorageCapacity objects.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type CSIStorageCapacityList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// items is the list of CSIStorageCapacity objects.
	Items []CSIStorageCapacity `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// VolumeAttributesClass represents a specification of mutable volume
// attributes defined by the CSI driver. The class can be specified during
// dynamic provisioning of PersistentVolumeClaims, and changed in the
// PersistentVolumeClaim spec after provisioning.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type VolumeAttributesClass struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Name of the CSI driver. This field is immutable.
	DriverName string `json:"driverName" protobuf:"bytes,2,opt,name=driverName"`

	// parameters hold volume attributes defined by the CSI driver. These
	// values are opaque to the Kubernetes and are passed directly to the
	// CSI driver. This field is immutable.
	Parameters map[string]string `json:"parameters,omitempty" protobuf:"bytes,3,rep,name=parameters"`
}

// VolumeAttributesClassList is a collection of VolumeAttributesClass
// objects.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type VolumeAttributesClassList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// items is the list of VolumeAttributesClass objects.
	Items []VolumeAttributesClass `json:"items" protobuf:"bytes,2,rep,name=items"`
}
