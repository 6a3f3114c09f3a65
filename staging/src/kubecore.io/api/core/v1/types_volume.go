package v1

import (
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// Volume is a named volume of a pod that its containers can mount.
type Volume struct {
	// Name is unique within the pod (a DNS label).
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
	// Where the volume's content comes from; set one member.
	VolumeSource `json:",inline" protobuf:"bytes,2,opt,name=volumeSource"`
}

// VolumeSource is where a pod volume comes from; set exactly one member.
type VolumeSource struct {
	// HostPath mounts a file or directory of the node.
	HostPath *HostPathVolumeSource `json:"hostPath,omitempty" protobuf:"bytes,1,opt,name=hostPath"`
	// EmptyDir is a scratch directory that lives as long as the pod.
	EmptyDir *EmptyDirVolumeSource `json:"emptyDir,omitempty" protobuf:"bytes,2,opt,name=emptyDir"`
	// Secret projects a secret's keys as files.
	Secret *SecretVolumeSource `json:"secret,omitempty" protobuf:"bytes,6,opt,name=secret"`
	// NFS mounts an NFS export.
	NFS *NFSVolumeSource `json:"nfs,omitempty" protobuf:"bytes,7,opt,name=nfs"`
	// PersistentVolumeClaim mounts the volume bound to a claim.
	PersistentVolumeClaim *PersistentVolumeClaimVolumeSource `json:"persistentVolumeClaim,omitempty" protobuf:"bytes,10,opt,name=persistentVolumeClaim"`
	// DownwardAPI projects pod fields and resource values as files.
	DownwardAPI *DownwardAPIVolumeSource `json:"downwardAPI,omitempty" protobuf:"bytes,16,opt,name=downwardAPI"`
	// ConfigMap projects a config map's keys as files.
	ConfigMap *ConfigMapVolumeSource `json:"configMap,omitempty" protobuf:"bytes,19,opt,name=configMap"`
	// Projected merges several sources into one directory.
	Projected *ProjectedVolumeSource `json:"projected,omitempty" protobuf:"bytes,26,opt,name=projected"`
	// CSI mounts an ephemeral volume from a CSI driver.
	CSI *CSIVolumeSource `json:"csi,omitempty" protobuf:"bytes,28,opt,name=csi"`
	// Ephemeral makes a claim from a template that lives as long as the pod.
	Ephemeral *EphemeralVolumeSource `json:"ephemeral,omitempty" protobuf:"bytes,29,opt,name=ephemeral"`
	// Image mounts the content of an OCI image or artifact, read-only.
	Image *ImageVolumeSource `json:"image,omitempty" protobuf:"bytes,30,opt,name=image"`
}

// HostPathVolumeSource is a path on the node.
type HostPathVolumeSource struct {
	// Path on the node; a symlink is followed.
	Path string `json:"path" protobuf:"bytes,1,opt,name=path"`
	// Type checks or creates what is at the path; empty checks nothing.
	Type *HostPathType `json:"type,omitempty" protobuf:"bytes,2,opt,name=type"`
}

// HostPathType says what must be, or is created, at a host path.
type HostPathType string

// The host path types.
const (
	HostPathUnset             HostPathType = ""
	HostPathDirectoryOrCreate HostPathType = "DirectoryOrCreate"
	HostPathDirectory         HostPathType = "Directory"
	HostPathFileOrCreate      HostPathType = "FileOrCreate"
	HostPathFile              HostPathType = "File"
	HostPathSocket            HostPathType = "Socket"
	HostPathCharDev           HostPathType = "CharDevice"
	HostPathBlockDev          HostPathType = "BlockDevice"
)

// EmptyDirVolumeSource is a scratch directory.
type EmptyDirVolumeSource struct {
	// Medium is "" (node disk) or Memory (tmpfs).
	Medium StorageMedium `json:"medium,omitempty" protobuf:"bytes,1,opt,name=medium"`
	// SizeLimit bounds the directory's size.
	SizeLimit *resource.Quantity `json:"sizeLimit,omitempty" protobuf:"bytes,2,opt,name=sizeLimit"`
}

// StorageMedium is what backs an emptyDir.
type StorageMedium string

// The storage media.
const (
	StorageMediumDefault         StorageMedium = ""
	StorageMediumMemory          StorageMedium = "Memory"
	StorageMediumHugePages       StorageMedium = "HugePages"
	StorageMediumHugePagesPrefix StorageMedium = "HugePages-"
)

// KeyToPath maps one key to a file path in a volume.
type KeyToPath struct {
	// Key to project.
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`
	// Path of the file, relative to the volume; no "..".
	Path string `json:"path" protobuf:"bytes,2,opt,name=path"`
	// Mode of the file, in octal or decimal; defaults to the volume's.
	Mode *int32 `json:"mode,omitempty" protobuf:"varint,3,opt,name=mode"`
}

// Default modes of projected files.
const (
	SecretVolumeSourceDefaultMode      int32 = 0o644
	ConfigMapVolumeSourceDefaultMode   int32 = 0o644
	DownwardAPIVolumeSourceDefaultMode int32 = 0o644
	ProjectedVolumeSourceDefaultMode   int32 = 0o644
)

// SecretVolumeSource projects a secret's keys as files.
type SecretVolumeSource struct {
	// SecretName in the pod's namespace.
	SecretName string `json:"secretName,omitempty" protobuf:"bytes,1,opt,name=secretName"`
	// Items select keys and name their files; empty projects every key.
	// +listType=atomic
	Items []KeyToPath `json:"items,omitempty" protobuf:"bytes,2,rep,name=items"`
	// DefaultMode of the files; defaults to 0644.
	DefaultMode *int32 `json:"defaultMode,omitempty" protobuf:"varint,3,opt,name=defaultMode"`
	// Optional allows the secret or its keys to be missing.
	Optional *bool `json:"optional,omitempty" protobuf:"varint,4,opt,name=optional"`
}

// ConfigMapVolumeSource projects a config map's keys as files.
type ConfigMapVolumeSource struct {
	// The config map to project.
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	// Items select keys and name their files; empty projects every key.
	// +listType=atomic
	Items []KeyToPath `json:"items,omitempty" protobuf:"bytes,2,rep,name=items"`
	// DefaultMode of the files; defaults to 0644.
	DefaultMode *int32 `json:"defaultMode,omitempty" protobuf:"varint,3,opt,name=defaultMode"`
	// Optional allows the config map or its keys to be missing.
	Optional *bool `json:"optional,omitempty" protobuf:"varint,4,opt,name=optional"`
}

// NFSVolumeSource is an NFS export.
type NFSVolumeSource struct {
	// Server host name or address.
	Server string `json:"server" protobuf:"bytes,1,opt,name=server"`
	// Path of the export.
	Path string `json:"path" protobuf:"bytes,2,opt,name=path"`
	// ReadOnly mounts the export read-only.
	ReadOnly bool `json:"readOnly,omitempty" protobuf:"varint,3,opt,name=readOnly"`
}

// PersistentVolumeClaimVolumeSource refers to a claim in the pod's
// namespace.
type PersistentVolumeClaimVolumeSource struct {
	// ClaimName of the claim.
	ClaimName string `json:"claimName" protobuf:"bytes,1,opt,name=claimName"`
	// ReadOnly mounts the volume read-only.
	ReadOnly bool `json:"readOnly,omitempty" protobuf:"varint,2,opt,name=readOnly"`
}

// DownwardAPIVolumeSource projects pod information as files.
type DownwardAPIVolumeSource struct {
	// Items are the files.
	// +listType=atomic
	Items []DownwardAPIVolumeFile `json:"items,omitempty" protobuf:"bytes,1,rep,name=items"`
	// DefaultMode of the files; defaults to 0644.
	DefaultMode *int32 `json:"defaultMode,omitempty" protobuf:"varint,2,opt,name=defaultMode"`
}

// DownwardAPIVolumeFile is one file of pod information.
type DownwardAPIVolumeFile struct {
	// Path of the file, relative to the volume.
	Path string `json:"path" protobuf:"bytes,1,opt,name=path"`
	// FieldRef selects a pod field (metadata, labels, annotations).
	FieldRef *ObjectFieldSelector `json:"fieldRef,omitempty" protobuf:"bytes,2,opt,name=fieldRef"`
	// ResourceFieldRef selects a container's request or limit.
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty" protobuf:"bytes,3,opt,name=resourceFieldRef"`
	// Mode of the file; defaults to the volume's.
	Mode *int32 `json:"mode,omitempty" protobuf:"varint,4,opt,name=mode"`
}

// ProjectedVolumeSource merges several sources into one directory.
type ProjectedVolumeSource struct {
	// Sources to merge.
	// +listType=atomic
	Sources []VolumeProjection `json:"sources" protobuf:"bytes,1,rep,name=sources"`
	// DefaultMode of the files; defaults to 0644.
	DefaultMode *int32 `json:"defaultMode,omitempty" protobuf:"varint,2,opt,name=defaultMode"`
}

// VolumeProjection is one source of a projected volume; set one member.
type VolumeProjection struct {
	// Secret keys as files.
	Secret *SecretProjection `json:"secret,omitempty" protobuf:"bytes,1,opt,name=secret"`
	// DownwardAPI pod information as files.
	DownwardAPI *DownwardAPIProjection `json:"downwardAPI,omitempty" protobuf:"bytes,2,opt,name=downwardAPI"`
	// ConfigMap keys as files.
	ConfigMap *ConfigMapProjection `json:"configMap,omitempty" protobuf:"bytes,3,opt,name=configMap"`
	// ServiceAccountToken is a bound token for the pod's service account.
	ServiceAccountToken *ServiceAccountTokenProjection `json:"serviceAccountToken,omitempty" protobuf:"bytes,4,opt,name=serviceAccountToken"`
	// ClusterTrustBundle is a bundle of trust anchors.
	ClusterTrustBundle *ClusterTrustBundleProjection `json:"clusterTrustBundle,omitempty" protobuf:"bytes,5,opt,name=clusterTrustBundle"`
}

// SecretProjection projects a secret's keys into a projected volume.
type SecretProjection struct {
	// The secret to project.
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	// Items select keys and name their files; empty projects every key.
	// +listType=atomic
	Items []KeyToPath `json:"items,omitempty" protobuf:"bytes,2,rep,name=items"`
	// Optional allows the secret or its keys to be missing.
	Optional *bool `json:"optional,omitempty" protobuf:"varint,4,opt,name=optional"`
}

// ConfigMapProjection projects a config map's keys into a projected
// volume.
type ConfigMapProjection struct {
	// The config map to project.
	LocalObjectReference `json:",inline" protobuf:"bytes,1,opt,name=localObjectReference"`
	// Items select keys and name their files; empty projects every key.
	// +listType=atomic
	Items []KeyToPath `json:"items,omitempty" protobuf:"bytes,2,rep,name=items"`
	// Optional allows the config map or its keys to be missing.
	Optional *bool `json:"optional,omitempty" protobuf:"varint,4,opt,name=optional"`
}

// DownwardAPIProjection projects pod information into a projected volume.
type DownwardAPIProjection struct {
	// Items are the files.
	// +listType=atomic
	Items []DownwardAPIVolumeFile `json:"items,omitempty" protobuf:"bytes,1,rep,name=items"`
}

// ServiceAccountTokenProjection is a token bound to the pod.
type ServiceAccountTokenProjection struct {
	// Audience of the token; defaults to the API server's.
	Audience string `json:"audience,omitempty" protobuf:"bytes,1,opt,name=audience"`
	// ExpirationSeconds is the requested lifetime; defaults to one hour.
	ExpirationSeconds *int64 `json:"expirationSeconds,omitempty" protobuf:"varint,2,opt,name=expirationSeconds"`
	// Path of the token file.
	Path string `json:"path" protobuf:"bytes,3,opt,name=path"`
}

// ClusterTrustBundleProjection selects ClusterTrustBundles to write as one
// PEM file.
type ClusterTrustBundleProjection struct {
	// Name selects one bundle by name.
	Name *string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// SignerName selects bundles of one signer.
	SignerName *string `json:"signerName,omitempty" protobuf:"bytes,2,opt,name=signerName"`
	// LabelSelector narrows bundles selected by signer.
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty" protobuf:"bytes,3,opt,name=labelSelector"`
	// Optional allows no bundle to match.
	Optional *bool `json:"optional,omitempty" protobuf:"varint,5,opt,name=optional"`
	// Path of the file.
	Path string `json:"path" protobuf:"bytes,4,opt,name=path"`
}

// CSIVolumeSource is an inline ephemeral volume from a CSI driver.
type CSIVolumeSource struct {
	// Driver name.
	Driver string `json:"driver" protobuf:"bytes,1,opt,name=driver"`
	// ReadOnly mounts the volume read-only.
	ReadOnly *bool `json:"readOnly,omitempty" protobuf:"varint,2,opt,name=readOnly"`
	// FSType is the filesystem type, such as ext4.
	FSType *string `json:"fsType,omitempty" protobuf:"bytes,3,opt,name=fsType"`
	// VolumeAttributes are passed to the driver.
	VolumeAttributes map[string]string `json:"volumeAttributes,omitempty" protobuf:"bytes,4,rep,name=volumeAttributes"`
	// NodePublishSecretRef names a secret passed to the driver.
	NodePublishSecretRef *LocalObjectReference `json:"nodePublishSecretRef,omitempty" protobuf:"bytes,5,opt,name=nodePublishSecretRef"`
}

// EphemeralVolumeSource makes a claim per pod from a template.
type EphemeralVolumeSource struct {
	// VolumeClaimTemplate is the claim to make; it is named
	// "<pod>-<volume>" and owned by the pod.
	VolumeClaimTemplate *PersistentVolumeClaimTemplate `json:"volumeClaimTemplate,omitempty" protobuf:"bytes,1,opt,name=volumeClaimTemplate"`
}

// PersistentVolumeClaimTemplate is the metadata and spec of a claim to make.
type PersistentVolumeClaimTemplate struct {
	// Labels and annotations copied to the claim.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec of the claim.
	Spec PersistentVolumeClaimSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
}

// ImageVolumeSource is an OCI image or artifact mounted as a volume.
type ImageVolumeSource struct {
	// Reference to the image.
	Reference string `json:"reference,omitempty" protobuf:"bytes,1,opt,name=reference"`
	// PullPolicy is Always, Never or IfNotPresent.
	PullPolicy PullPolicy `json:"pullPolicy,omitempty" protobuf:"bytes,2,opt,name=pullPolicy"`
}

// LocalVolumeSource is a disk, partition or directory on one node.
type LocalVolumeSource struct {
	// Path on the node.
	Path string `json:"path" protobuf:"bytes,1,opt,name=path"`
	// FSType of a block device; detected when empty.
	FSType *string `json:"fsType,omitempty" protobuf:"bytes,2,opt,name=fsType"`
}

// PersistentVolume is a piece of storage in the cluster, provisioned by an
// administrator or dynamically.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PersistentVolume struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec describes the volume.
	Spec PersistentVolumeSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is the volume's phase.
	Status PersistentVolumeStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// PersistentVolumeSpec describes a persistent volume.
type PersistentVolumeSpec struct {
	// Capacity of the volume; "storage" is the size.
	Capacity ResourceList `json:"capacity,omitempty" protobuf:"bytes,1,rep,name=capacity"`
	// Where the volume is; set one member.
	PersistentVolumeSource `json:",inline" protobuf:"bytes,2,opt,name=persistentVolumeSource"`
	// AccessModes the volume supports.
	// +listType=atomic
	AccessModes []PersistentVolumeAccessMode `json:"accessModes,omitempty" protobuf:"bytes,3,rep,name=accessModes"`
	// ClaimRef is the claim bound to the volume.
	// +structType=granular
	ClaimRef *ObjectReference `json:"claimRef,omitempty" protobuf:"bytes,4,opt,name=claimRef"`
	// PersistentVolumeReclaimPolicy is what happens when the claim goes:
	// Retain, Delete or Recycle.
	PersistentVolumeReclaimPolicy PersistentVolumeReclaimPolicy `json:"persistentVolumeReclaimPolicy,omitempty" protobuf:"bytes,5,opt,name=persistentVolumeReclaimPolicy"`
	// StorageClassName is the class the volume belongs to.
	StorageClassName string `json:"storageClassName,omitempty" protobuf:"bytes,6,opt,name=storageClassName"`
	// MountOptions are passed to mount.
	// +listType=atomic
	MountOptions []string `json:"mountOptions,omitempty" protobuf:"bytes,7,rep,name=mountOptions"`
	// VolumeMode is Filesystem (the default) or Block.
	VolumeMode *PersistentVolumeMode `json:"volumeMode,omitempty" protobuf:"bytes,8,opt,name=volumeMode"`
	// NodeAffinity limits the nodes that can reach the volume.
	NodeAffinity *VolumeNodeAffinity `json:"nodeAffinity,omitempty" protobuf:"bytes,9,opt,name=nodeAffinity"`
	// VolumeAttributesClassName names a VolumeAttributesClass.
	VolumeAttributesClassName *string `json:"volumeAttributesClassName,omitempty" protobuf:"bytes,10,opt,name=volumeAttributesClassName"`
}

// PersistentVolumeSource is where a persistent volume is; set one member.
type PersistentVolumeSource struct {
	// HostPath is a directory on one node, for tests.
	HostPath *HostPathVolumeSource `json:"hostPath,omitempty" protobuf:"bytes,3,opt,name=hostPath"`
	// NFS is an NFS export.
	NFS *NFSVolumeSource `json:"nfs,omitempty" protobuf:"bytes,5,opt,name=nfs"`
	// Local is storage attached to one node.
	Local *LocalVolumeSource `json:"local,omitempty" protobuf:"bytes,20,opt,name=local"`
	// CSI is a volume of a CSI driver.
	CSI *CSIPersistentVolumeSource `json:"csi,omitempty" protobuf:"bytes,22,opt,name=csi"`
}

// CSIPersistentVolumeSource is a volume managed by a CSI driver.
type CSIPersistentVolumeSource struct {
	// Driver name.
	Driver string `json:"driver" protobuf:"bytes,1,opt,name=driver"`
	// VolumeHandle is the driver's identifier of the volume.
	VolumeHandle string `json:"volumeHandle" protobuf:"bytes,2,opt,name=volumeHandle"`
	// ReadOnly publishes the volume read-only.
	ReadOnly bool `json:"readOnly,omitempty" protobuf:"varint,3,opt,name=readOnly"`
	// FSType is the filesystem type, such as ext4.
	FSType string `json:"fsType,omitempty" protobuf:"bytes,4,opt,name=fsType"`
	// VolumeAttributes are passed to the driver.
	VolumeAttributes map[string]string `json:"volumeAttributes,omitempty" protobuf:"bytes,5,rep,name=volumeAttributes"`
	// ControllerPublishSecretRef names a secret for ControllerPublish.
	ControllerPublishSecretRef *SecretReference `json:"controllerPublishSecretRef,omitempty" protobuf:"bytes,6,opt,name=controllerPublishSecretRef"`
	// NodeStageSecretRef names a secret for NodeStage.
	NodeStageSecretRef *SecretReference `json:"nodeStageSecretRef,omitempty" protobuf:"bytes,7,opt,name=nodeStageSecretRef"`
	// NodePublishSecretRef names a secret for NodePublish.
	NodePublishSecretRef *SecretReference `json:"nodePublishSecretRef,omitempty" protobuf:"bytes,8,opt,name=nodePublishSecretRef"`
	// ControllerExpandSecretRef names a secret for ControllerExpand.
	ControllerExpandSecretRef *SecretReference `json:"controllerExpandSecretRef,omitempty" protobuf:"bytes,9,opt,name=controllerExpandSecretRef"`
	// NodeExpandSecretRef names a secret for NodeExpand.
	NodeExpandSecretRef *SecretReference `json:"nodeExpandSecretRef,omitempty" protobuf:"bytes,10,opt,name=nodeExpandSecretRef"`
}

// SecretReference names a secret in any namespace.
// +structType=atomic
type SecretReference struct {
	// Name of the secret.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// Namespace of the secret.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,2,opt,name=namespace"`
}

// VolumeNodeAffinity limits the nodes a volume can be reached from.
type VolumeNodeAffinity struct {
	// Required node selector.
	Required *NodeSelector `json:"required,omitempty" protobuf:"bytes,1,opt,name=required"`
}

// PersistentVolumeAccessMode is how a volume can be mounted.
type PersistentVolumeAccessMode string

// The access modes.
const (
	// ReadWriteOnce: read-write by the pods of one node.
	ReadWriteOnce PersistentVolumeAccessMode = "ReadWriteOnce"
	// ReadOnlyMany: read-only by many nodes.
	ReadOnlyMany PersistentVolumeAccessMode = "ReadOnlyMany"
	// ReadWriteMany: read-write by many nodes.
	ReadWriteMany PersistentVolumeAccessMode = "ReadWriteMany"
	// ReadWriteOncePod: read-write by one pod.
	ReadWriteOncePod PersistentVolumeAccessMode = "ReadWriteOncePod"
)

// PersistentVolumeReclaimPolicy is what happens to a released volume.
type PersistentVolumeReclaimPolicy string

// The reclaim policies.
const (
	PersistentVolumeReclaimRecycle PersistentVolumeReclaimPolicy = "Recycle"
	PersistentVolumeReclaimDelete  PersistentVolumeReclaimPolicy = "Delete"
	PersistentVolumeReclaimRetain  PersistentVolumeReclaimPolicy = "Retain"
)

// PersistentVolumeMode is whether a volume is a filesystem or a raw block
// device.
type PersistentVolumeMode string

// The volume modes.
const (
	PersistentVolumeBlock      PersistentVolumeMode = "Block"
	PersistentVolumeFilesystem PersistentVolumeMode = "Filesystem"
)

// PersistentVolumeStatus is the observed state of a persistent volume.
type PersistentVolumeStatus struct {
	// Phase of the volume.
	Phase PersistentVolumePhase `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase"`
	// Message explains the phase.
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	// Reason is a CamelCase cause of a failure.
	Reason string `json:"reason,omitempty" protobuf:"bytes,3,opt,name=reason"`
	// LastPhaseTransitionTime is when the phase last changed.
	LastPhaseTransitionTime *metav1.Time `json:"lastPhaseTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastPhaseTransitionTime"`
}

// PersistentVolumePhase is the life-cycle phase of a volume.
type PersistentVolumePhase string

// The volume phases.
const (
	VolumePending   PersistentVolumePhase = "Pending"
	VolumeAvailable PersistentVolumePhase = "Available"
	VolumeBound     PersistentVolumePhase = "Bound"
	VolumeReleased  PersistentVolumePhase = "Released"
	VolumeFailed    PersistentVolumePhase = "Failed"
)

// PersistentVolumeList is a list of persistent volumes.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PersistentVolumeList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the volumes.
	Items []PersistentVolume `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// PersistentVolumeClaim is a user's request for storage.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PersistentVolumeClaim struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Spec is the storage asked for.
	Spec PersistentVolumeClaimSpec `json:"spec,omitempty" protobuf:"bytes,2,opt,name=spec"`
	// Status is what the claim is bound to.
	Status PersistentVolumeClaimStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// PersistentVolumeClaimSpec is the storage a claim asks for.
type PersistentVolumeClaimSpec struct {
	// AccessModes the volume must support.
	// +listType=atomic
	AccessModes []PersistentVolumeAccessMode `json:"accessModes,omitempty" protobuf:"bytes,1,rep,name=accessModes"`
	// Selector narrows the volumes that may be bound.
	Selector *metav1.LabelSelector `json:"selector,omitempty" protobuf:"bytes,4,opt,name=selector"`
	// Resources: requests.storage is the minimum size.
	Resources VolumeResourceRequirements `json:"resources,omitempty" protobuf:"bytes,2,opt,name=resources"`
	// VolumeName binds to one named volume.
	VolumeName string `json:"volumeName,omitempty" protobuf:"bytes,3,opt,name=volumeName"`
	// StorageClassName is the class asked for; "" asks for no class, nil
	// for the default class.
	StorageClassName *string `json:"storageClassName,omitempty" protobuf:"bytes,5,opt,name=storageClassName"`
	// VolumeMode is Filesystem (the default) or Block.
	VolumeMode *PersistentVolumeMode `json:"volumeMode,omitempty" protobuf:"bytes,6,opt,name=volumeMode"`
	// DataSource populates the volume from a snapshot or another claim.
	DataSource *TypedLocalObjectReference `json:"dataSource,omitempty" protobuf:"bytes,7,opt,name=dataSource"`
	// DataSourceRef populates the volume from any populator object.
	DataSourceRef *TypedObjectReference `json:"dataSourceRef,omitempty" protobuf:"bytes,8,opt,name=dataSourceRef"`
	// VolumeAttributesClassName names a VolumeAttributesClass.
	VolumeAttributesClassName *string `json:"volumeAttributesClassName,omitempty" protobuf:"bytes,9,opt,name=volumeAttributesClassName"`
}

// VolumeResourceRequirements are the size bounds of a claim.
type VolumeResourceRequirements struct {
	// Limits is the most storage the claim may get.
	Limits ResourceList `json:"limits,omitempty" protobuf:"bytes,1,rep,name=limits"`
	// Requests is the least storage the claim needs.
	Requests ResourceList `json:"requests,omitempty" protobuf:"bytes,2,rep,name=requests"`
}

// PersistentVolumeClaimStatus is the observed state of a claim.
type PersistentVolumeClaimStatus struct {
	// Phase of the claim.
	Phase PersistentVolumeClaimPhase `json:"phase,omitempty" protobuf:"bytes,1,opt,name=phase"`
	// AccessModes of the bound volume.
	// +listType=atomic
	AccessModes []PersistentVolumeAccessMode `json:"accessModes,omitempty" protobuf:"bytes,2,rep,name=accessModes"`
	// Capacity of the bound volume.
	Capacity ResourceList `json:"capacity,omitempty" protobuf:"bytes,3,rep,name=capacity"`
	// Conditions of the claim, such as Resizing.
	// +listType=map
	// +listMapKey=type
	Conditions []PersistentVolumeClaimCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type" protobuf:"bytes,4,rep,name=conditions"`
}

// PersistentVolumeClaimPhase is the life-cycle phase of a claim.
type PersistentVolumeClaimPhase string

// The claim phases.
const (
	ClaimPending PersistentVolumeClaimPhase = "Pending"
	ClaimBound   PersistentVolumeClaimPhase = "Bound"
	ClaimLost    PersistentVolumeClaimPhase = "Lost"
)

// PersistentVolumeClaimConditionType is the type of a claim condition.
type PersistentVolumeClaimConditionType string

// The claim condition types.
const (
	PersistentVolumeClaimResizing                PersistentVolumeClaimConditionType = "Resizing"
	PersistentVolumeClaimFileSystemResizePending PersistentVolumeClaimConditionType = "FileSystemResizePending"
)

// PersistentVolumeClaimCondition is one observation about a claim.
type PersistentVolumeClaimCondition struct {
	// Type of the condition.
	Type PersistentVolumeClaimConditionType `json:"type" protobuf:"bytes,1,opt,name=type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status" protobuf:"bytes,2,opt,name=status"`
	// LastProbeTime is when the condition was last checked.
	LastProbeTime metav1.Time `json:"lastProbeTime,omitempty" protobuf:"bytes,3,opt,name=lastProbeTime"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty" protobuf:"bytes,4,opt,name=lastTransitionTime"`
	// Reason is a one-word CamelCase cause.
	Reason string `json:"reason,omitempty" protobuf:"bytes,5,opt,name=reason"`
	// Message explains the condition to a human.
	Message string `json:"message,omitempty" protobuf:"bytes,6,opt,name=message"`
}

// PersistentVolumeClaimList is a list of claims.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PersistentVolumeClaimList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the claims.
	Items []PersistentVolumeClaim `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// TopologySelectorTerm is one term of a topology selector: the
// requirements it lists are ANDed. StorageClasses restrict where their
// volumes may be provisioned with these.
type TopologySelectorTerm struct {
	// A list of topology selector requirements by labels.
	MatchLabelExpressions []TopologySelectorLabelRequirement `json:"matchLabelExpressions,omitempty" protobuf:"bytes,1,rep,name=matchLabelExpressions"`
}

// TopologySelectorLabelRequirement requires a topology label to hold one
// of a set of values.
type TopologySelectorLabelRequirement struct {
	// The label key that the selector applies to.
	Key string `json:"key" protobuf:"bytes,1,opt,name=key"`
	// An array of string values. One value must match the label to be
	// selected. Each entry in Values is ORed.
	Values []string `json:"values" protobuf:"bytes,2,rep,name=values"`
}
