// +kubecore:deepcopy-gen=package

// Package v1 holds the storage.k8s.io/v1 types: StorageClasses, the CSI
// objects (CSIDriver, CSINode, CSIStorageCapacity), VolumeAttachments and
// VolumeAttributesClasses.
package v1
