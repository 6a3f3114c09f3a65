package v1

import (
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// Volume is a named volume of a pod that its containers can mount.
type Volume struct {
	// Name is unique within the pod (a DNS label).
	Name string `json:"name"`
	// Where the volume's content comes from; set one member.
	VolumeSource `json:",inline"`
}

// VolumeSource is where a pod volume comes from; set exactly one member.
type VolumeSource struct {
	// HostPath mounts a file or directory of the node.
	HostPath *HostPathVolumeSource `json:"hostPath,omitempty"`
	// EmptyDir is a scratch directory that lives as long as the pod.
	EmptyDir *EmptyDirVolumeSource `json:"emptyDir,omitempty"`
	// Secret projects a secret's keys as files.
	Secret *SecretVolumeSource `json:"secret,omitempty"`
	// NFS mounts an NFS export.
	NFS *NFSVolumeSource `json:"nfs,omitempty"`
	// PersistentVolumeClaim mounts the volume bound to a claim.
	PersistentVolumeClaim *PersistentVolumeClaimVolumeSource `json:"persistentVolumeClaim,omitempty"`
	// DownwardAPI projects pod fields and resource values as files.
	DownwardAPI *DownwardAPIVolumeSource `json:"downwardAPI,omitempty"`
	// ConfigMap projects a config map's keys as files.
	ConfigMap *ConfigMapVolumeSource `json:"configMap,omitempty"`
	// Projected merges several sources into one directory.
	Projected *ProjectedVolumeSource `json:"projected,omitempty"`
	// CSI mounts an ephemeral volume from a CSI driver.
	CSI *CSIVolumeSource `json:"csi,omitempty"`
	// Ephemeral makes a claim from a template that lives as long as the pod.
	Ephemeral *EphemeralVolumeSource `json:"ephemeral,omitempty"`
	// Image mounts the content of an OCI image or artifact, read-only.
	Image *ImageVolumeSource `json:"image,omitempty"`
}

// HostPathVolumeSource is a path on the node.
type HostPathVolumeSource struct {
	// Path on the node; a symlink is followed.
	Path string `json:"path"`
	// Type checks or creates what is at the path; empty checks nothing.
	Type *HostPathType `json:"type,omitempty"`
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
	Medium StorageMedium `json:"medium,omitempty"`
	// SizeLimit bounds the directory's size.
	SizeLimit *resource.Quantity `json:"sizeLimit,omitempty"`
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
	Key string `json:"key"`
	// Path of the file, relative to the volume; no "..".
	Path string `json:"path"`
	// Mode of the file, in octal or decimal; defaults to the volume's.
	Mode *int32 `json:"mode,omitempty"`
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
	SecretName string `json:"secretName,omitempty"`
	// Items select keys and name their files; empty projects every key.
	Items []KeyToPath `json:"items,omitempty"`
	// DefaultMode of the files; defaults to 0644.
	DefaultMode *int32 `json:"defaultMode,omitempty"`
	// Optional allows the secret or its keys to be missing.
	Optional *bool `json:"optional,omitempty"`
}

// ConfigMapVolumeSource projects a config map's keys as files.
type ConfigMapVolumeSource struct {
	// The config map to project.
	LocalObjectReference `json:",inline"`
	// Items select keys and name their files; empty projects every key.
	Items []KeyToPath `json:"items,omitempty"`
	// DefaultMode of the files; defaults to 0644.
	DefaultMode *int32 `json:"defaultMode,omitempty"`
	// Optional allows the config map or its keys to be missing.
	Optional *bool `json:"optional,omitempty"`
}

// NFSVolumeSource is an NFS export.
type NFSVolumeSource struct {
	// Server host name or address.
	Server string `json:"server"`
	// Path of the export.
	Path string `json:"path"`
	// ReadOnly mounts the export read-only.
	ReadOnly bool `json:"readOnly,omitempty"`
}

// PersistentVolumeClaimVolumeSource refers to a claim in the pod's
// namespace.
type PersistentVolumeClaimVolumeSource struct {
	// ClaimName of the claim.
	ClaimName string `json:"claimName"`
	// ReadOnly mounts the volume read-only.
	ReadOnly bool `json:"readOnly,omitempty"`
}

// DownwardAPIVolumeSource projects pod information as files.
type DownwardAPIVolumeSource struct {
	// Items are the files.
	Items []DownwardAPIVolumeFile `json:"items,omitempty"`
	// DefaultMode of the files; defaults to 0644.
	DefaultMode *int32 `json:"defaultMode,omitempty"`
}

// DownwardAPIVolumeFile is one file of pod information.
type DownwardAPIVolumeFile struct {
	// Path of the file, relative to the volume.
	Path string `json:"path"`
	// FieldRef selects a pod field (metadata, labels, annotations).
	FieldRef *ObjectFieldSelector `json:"fieldRef,omitempty"`
	// ResourceFieldRef selects a container's request or limit.
	ResourceFieldRef *ResourceFieldSelector `json:"resourceFieldRef,omitempty"`
	// Mode of the file; defaults to the volume's.
	Mode *int32 `json:"mode,omitempty"`
}

// ProjectedVolumeSource merges several sources into one directory.
type ProjectedVolumeSource struct {
	// Sources to merge.
	Sources []VolumeProjection `json:"sources"`
	// DefaultMode of the files; defaults to 0644.
	DefaultMode *int32 `json:"defaultMode,omitempty"`
}

// VolumeProjection is one source of a projected volume; set one member.
type VolumeProjection struct {
	// Secret keys as files.
	Secret *SecretProjection `json:"secret,omitempty"`
	// DownwardAPI pod information as files.
	DownwardAPI *DownwardAPIProjection `json:"downwardAPI,omitempty"`
	// ConfigMap keys as files.
	ConfigMap *ConfigMapProjection `json:"configMap,omitempty"`
	// ServiceAccountToken is a bound token for the pod's service account.
	ServiceAccountToken *ServiceAccountTokenProjection `json:"serviceAccountToken,omitempty"`
	// ClusterTrustBundle is a bundle of trust anchors.
	ClusterTrustBundle *ClusterTrustBundleProjection `json:"clusterTrustBundle,omitempty"`
}

// SecretProjection projects a secret's keys into a projected volume.
type SecretProjection struct {
	// The secret to project.
	LocalObjectReference `json:",inline"`
	// Items select keys and name their files; empty projects every key.
	Items []KeyToPath `json:"items,omitempty"`
	// Optional allows the secret or its keys to be missing.
	Optional *bool `json:"optional,omitempty"`
}

// ConfigMapProjection projects a config map's keys into a projected
// volume.
type ConfigMapProjection struct {
	// The config map to project.
	LocalObjectReference `json:",inline"`
	// Items select keys and name their files; empty projects every key.
	Items []KeyToPath `json:"items,omitempty"`
	// Optional allows the config map or its keys to be missing.
	Optional *bool `json:"optional,omitempty"`
}

// DownwardAPIProjection projects pod information into a projected volume.
type DownwardAPIProjection struct {
	// Items are the files.
	Items []DownwardAPIVolumeFile `json:"items,omitempty"`
}

// ServiceAccountTokenProjection is a token bound to the pod.
type ServiceAccountTokenProjection struct {
	// Audience of the token; defaults to the API server's.
	Audience string `json:"audience,omitempty"`
	// ExpirationSeconds is the requested lifetime; defaults to one hour.
	ExpirationSeconds *int64 `json:"expirationSeconds,omitempty"`
	// Path of the token file.
	Path string `json:"path"`
}

// ClusterTrustBundleProjection selects ClusterTrustBundles to write as one
// PEM file.
type ClusterTrustBundleProjection struct {
	// Name selects one bundle by name.
	Name *string `json:"name,omitempty"`
	// SignerName selects bundles of one signer.
	SignerName *string `json:"signerName,omitempty"`
	// LabelSelector narrows bundles selected by signer.
	LabelSelector *metav1.LabelSelector `json:"labelSelector,omitempty"`
	// Optional allows no bundle to match.
	Optional *bool `json:"optional,omitempty"`
	// Path of the file.
	Path string `json:"path"`
}

// CSIVolumeSource is an inline ephemeral volume from a CSI driver.
type CSIVolumeSource struct {
	// Driver name.
	Driver string `json:"driver"`
	// ReadOnly mounts the volume read-only.
	ReadOnly *bool `json:"readOnly,omitempty"`
	// FSType is the filesystem type, such as ext4.
	FSType *string `json:"fsType,omitempty"`
	// VolumeAttributes are passed to the driver.
	VolumeAttributes map[string]string `json:"volumeAttributes,omitempty"`
	// NodePublishSecretRef names a secret passed to the driver.
	NodePublishSecretRef *LocalObjectReference `json:"nodePublishSecretRef,omitempty"`
}

// EphemeralVolumeSource makes a claim per pod from a template.
type EphemeralVolumeSource struct {
	// VolumeClaimTemplate is the claim to make; it is named
	// "<pod>-<volume>" and owned by the pod.
	VolumeClaimTemplate *PersistentVolumeClaimTemplate `json:"volumeClaimTemplate,omitempty"`
}

// PersistentVolumeClaimTemplate is the metadata and spec of a claim to make.
type PersistentVolumeClaimTemplate struct {
	// Labels and annotations copied to the claim.
	metav1.ObjectMeta `json:"metadata,omitempty"`
	// Spec of the claim.
	Spec PersistentVolumeClaimSpec `json:"spec"`
}

// ImageVolumeSource is an OCI image or artifact mounted as a volume.
type ImageVolumeSource struct {
	// Reference to the image.
	Reference string `json:"reference,omitempty"`
	// PullPolicy is Always, Never or IfNotPresent.
	PullPolicy PullPolicy `json:"pullPolicy,omitempty"`
}

// LocalVolumeSource is a disk, partition or directory on one node.
type LocalVolumeSource struct {
	// Path on the node.
	Path string `json:"path"`
	// FSType of a block device; detected when empty.
	FSType *string `json:"fsType,omitempty"`
}

// PersistentVolume is a piece of storage in the cluster, provisioned by an
// administrator or dynamically.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PersistentVolume struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec describes the volume.
	Spec PersistentVolumeSpec `json:"spec,omitempty"`
	// Status is the volume's phase.
	Status PersistentVolumeStatus `json:"status,omitempty"`
}

// PersistentVolumeSpec describes a persistent volume.
type PersistentVolumeSpec struct {
	// Capacity of the volume; "storage" is the size.
	Capacity ResourceList `json:"capacity,omitempty"`
	// Where the volume is; set one member.
	PersistentVolumeSource `json:",inline"`
	// AccessModes the volume supports.
	AccessModes []PersistentVolumeAccessMode `json:"accessModes,omitempty"`
	// ClaimRef is the claim bound to the volume.
	ClaimRef *ObjectReference `json:"claimRef,omitempty"`
	// PersistentVolumeReclaimPolicy is what happens when the claim goes:
	// Retain, Delete or Recycle.
	PersistentVolumeReclaimPolicy PersistentVolumeReclaimPolicy `json:"persistentVolumeReclaimPolicy,omitempty"`
	// StorageClassName is the class the volume belongs to.
	StorageClassName string `json:"storageClassName,omitempty"`
	// MountOptions are passed to mount.
	MountOptions []string `json:"mountOptions,omitempty"`
	// VolumeMode is Filesystem (the default) or Block.
	VolumeMode *PersistentVolumeMode `json:"volumeMode,omitempty"`
	// NodeAffinity limits the nodes that can reach the volume.
	NodeAffinity *VolumeNodeAffinity `json:"nodeAffinity,omitempty"`
	// VolumeAttributesClassName names a VolumeAttributesClass.
	VolumeAttributesClassName *string `json:"volumeAttributesClassName,omitempty"`
}

// PersistentVolumeSource is where a persistent volume is; set one member.
type PersistentVolumeSource struct {
	// HostPath is a directory on one node, for tests.
	HostPath *HostPathVolumeSource `json:"hostPath,omitempty"`
	// NFS is an NFS export.
	NFS *NFSVolumeSource `json:"nfs,omitempty"`
	// Local is storage attached to one node.
	Local *LocalVolumeSource `json:"local,omitempty"`
	// CSI is a volume of a CSI driver.
	CSI *CSIPersistentVolumeSource `json:"csi,omitempty"`
}

// CSIPersistentVolumeSource is a volume managed by a CSI driver.
type CSIPersistentVolumeSource struct {
	// Driver name.
	Driver string `json:"driver"`
	// VolumeHandle is the driver's identifier of the volume.
	VolumeHandle string `json:"volumeHandle"`
	// ReadOnly publishes the volume read-only.
	ReadOnly bool `json:"readOnly,omitempty"`
	// FSType is the filesystem type, such as ext4.
	FSType string `json:"fsType,omitempty"`
	// VolumeAttributes are passed to the driver.
	VolumeAttributes map[string]string `json:"volumeAttributes,omitempty"`
	// ControllerPublishSecretRef names a secret for ControllerPublish.
	ControllerPublishSecretRef *SecretReference `json:"controllerPublishSecretRef,omitempty"`
	// NodeStageSecretRef names a secret for NodeStage.
	NodeStageSecretRef *SecretReference `json:"nodeStageSecretRef,omitempty"`
	// NodePublishSecretRef names a secret for NodePublish.
	NodePublishSecretRef *SecretReference `json:"nodePublishSecretRef,omitempty"`
	// ControllerExpandSecretRef names a secret for ControllerExpand.
	ControllerExpandSecretRef *SecretReference `json:"controllerExpandSecretRef,omitempty"`
	// NodeExpandSecretRef names a secret for NodeExpand.
	NodeExpandSecretRef *SecretReference `json:"nodeExpandSecretRef,omitempty"`
}

// SecretReference names a secret in any namespace.
type SecretReference struct {
	// Name of the secret.
	Name string `json:"name,omitempty"`
	// Namespace of the secret.
	Namespace string `json:"namespace,omitempty"`
}

// VolumeNodeAffinity limits the nodes a volume can be reached from.
type VolumeNodeAffinity struct {
	// Required node selector.
	Required *NodeSelector `json:"required,omitempty"`
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
	Phase PersistentVolumePhase `json:"phase,omitempty"`
	// Message explains the phase.
	Message string `json:"message,omitempty"`
	// Reason is a CamelCase cause of a failure.
	Reason string `json:"reason,omitempty"`
	// LastPhaseTransitionTime is when the phase last changed.
	LastPhaseTransitionTime *metav1.Time `json:"lastPhaseTransitionTime,omitempty"`
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
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the volumes.
	Items []PersistentVolume `json:"items"`
}

// PersistentVolumeClaim is a user's request for storage.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PersistentVolumeClaim struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the storage asked for.
	Spec PersistentVolumeClaimSpec `json:"spec,omitempty"`
	// Status is what the claim is bound to.
	Status PersistentVolumeClaimStatus `json:"status,omitempty"`
}

// PersistentVolumeClaimSpec is the storage a claim asks for.
type PersistentVolumeClaimSpec struct {
	// AccessModes the volume must support.
	AccessModes []PersistentVolumeAccessMode `json:"accessModes,omitempty"`
	// Selector narrows the volumes that may be bound.
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	// Resources: requests.storage is the minimum size.
	Resources VolumeResourceRequirements `json:"resources,omitempty"`
	// VolumeName binds to one named volume.
	VolumeName string `json:"volumeName,omitempty"`
	// StorageClassName is the class asked for; "" asks for no class, nil
	// for the default class.
	StorageClassName *string `json:"storageClassName,omitempty"`
	// VolumeMode is Filesystem (the default) or Block.
	VolumeMode *PersistentVolumeMode `json:"volumeMode,omitempty"`
	// DataSource populates the volume from a snapshot or another claim.
	DataSource *TypedLocalObjectReference `json:"dataSource,omitempty"`
	// DataSourceRef populates the volume from any populator object.
	DataSourceRef *TypedObjectReference `json:"dataSourceRef,omitempty"`
	// VolumeAttributesClassName names a VolumeAttributesClass.
	VolumeAttributesClassName *string `json:"volumeAttributesClassName,omitempty"`
}

// VolumeResourceRequirements are the size bounds of a claim.
type VolumeResourceRequirements struct {
	// Limits is the most storage the claim may get.
	Limits ResourceList `json:"limits,omitempty"`
	// Requests is the least storage the claim needs.
	Requests ResourceList `json:"requests,omitempty"`
}

// PersistentVolumeClaimStatus is the observed state of a claim.
type PersistentVolumeClaimStatus struct {
	// Phase of the claim.
	Phase PersistentVolumeClaimPhase `json:"phase,omitempty"`
	// AccessModes of the bound volume.
	AccessModes []PersistentVolumeAccessMode `json:"accessModes,omitempty"`
	// Capacity of the bound volume.
	Capacity ResourceList `json:"capacity,omitempty"`
	// Conditions of the claim, such as Resizing.
	Conditions []PersistentVolumeClaimCondition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
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
	Type PersistentVolumeClaimConditionType `json:"type"`
	// Status is True, False or Unknown.
	Status ConditionStatus `json:"status"`
	// LastProbeTime is when the condition was last checked.
	LastProbeTime metav1.Time `json:"lastProbeTime,omitempty"`
	// LastTransitionTime is when Status last changed.
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
	// Reason is a one-word CamelCase cause.
	Reason string `json:"reason,omitempty"`
	// Message explains the condition to a human.
	Message string `json:"message,omitempty"`
}

// PersistentVolumeClaimList is a list of claims.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type PersistentVolumeClaimList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the claims.
	Items []PersistentVolumeClaim `json:"items"`
}
