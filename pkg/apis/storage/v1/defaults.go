// Package v1 registers the storage.k8s.io/v1 kinds with a server's scheme
// together with their defaults.
package v1

import (
	corev1 "kubecore.io/api/core/v1"
	storagev1 "kubecore.io/api/storage/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

// AddToScheme registers the storage.k8s.io/v1 kinds and their defaults.
func AddToScheme(s *runtime.Scheme) error {
	if err := storagev1.AddToScheme(s); err != nil {
		return err
	}
	runtime.AddDefaultingFunc(s, SetDefaultsStorageClass)
	runtime.AddDefaultingFunc(s, SetDefaultsCSIDriver)
	return nil
}

// SetDefaultsStorageClass: volumes are deleted with their claim and bound
// at once unless the class says otherwise.
func SetDefaultsStorageClass(sc *storagev1.StorageClass) {
	if sc.ReclaimPolicy == nil {
		p := corev1.PersistentVolumeReclaimDelete
		sc.ReclaimPolicy = &p
	}
	if sc.VolumeBindingMode == nil {
		m := storagev1.VolumeBindingImmediate
		sc.VolumeBindingMode = &m
	}
}

// SetDefaultsCSIDriver gives a CSIDriver Kubernetes' defaults: attach
// required, no pod info, persistent volumes only.
func SetDefaultsCSIDriver(d *storagev1.CSIDriver) {
	boolp := func(b bool) *bool { return &b }
	if d.Spec.AttachRequired == nil {
		d.Spec.AttachRequired = boolp(true)
	}
	if d.Spec.PodInfoOnMount == nil {
		d.Spec.PodInfoOnMount = boolp(false)
	}
	if d.Spec.StorageCapacity == nil {
		d.Spec.StorageCapacity = boolp(false)
	}
	if d.Spec.FSGroupPolicy == nil {
		p := storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy
		d.Spec.FSGroupPolicy = &p
	}
	if len(d.Spec.VolumeLifecycleModes) == 0 {
		d.Spec.VolumeLifecycleModes = []storagev1.VolumeLifecycleMode{storagev1.VolumeLifecyclePersistent}
	}
	if d.Spec.RequiresRepublish == nil {
		d.Spec.RequiresRepublish = boolp(false)
	}
	if d.Spec.SELinuxMount == nil {
		d.Spec.SELinuxMount = boolp(false)
	}
}
