// Package storageobjectinuseprotection is the StorageObjectInUseProtection
// admission plugin: a new PersistentVolumeClaim gets the
// kubernetes.io/pvc-protection finalizer and a new PersistentVolume the
// kubernetes.io/pv-protection one, so that neither is removed while in use;
// the volume protection controllers remove them once it is not.
package storageobjectinuseprotection

import (
	"context"
	"slices"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/admission"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// The finalizers, with Kubernetes' names.
const (
	PVCProtectionFinalizer = "kubernetes.io/pvc-protection"
	PVProtectionFinalizer  = "kubernetes.io/pv-protection"
)

// Name is the plugin's name in Kubernetes.
const Name = "StorageObjectInUseProtection"

// Plugin is StorageObjectInUseProtection admission, of the mutating phase.
type Plugin struct{}

var _ admission.MutationInterface = Plugin{}

// finalizerFor is the finalizer of a resource, "" for another.
func finalizerFor(a *rest.Attributes) string {
	switch a.Resource.GroupResource() {
	case corev1.Resource("persistentvolumeclaims"):
		return PVCProtectionFinalizer
	case corev1.Resource("persistentvolumes"):
		return PVProtectionFinalizer
	}
	return ""
}

// Name is the plugin's name, by which it is disabled.
func (Plugin) Name() string { return Name }

// Handles implements admission.Interface: the creates of claims and
// volumes.
func (Plugin) Handles(a *rest.Attributes) bool {
	return a.Operation == rest.OperationCreate && a.Subresource == "" && finalizerFor(a) != ""
}

// Admit implements admission.MutationInterface.
func (Plugin) Admit(_ context.Context, a *rest.Attributes) error {
	obj, ok := a.Object.(metav1.Object)
	if !ok {
		return nil
	}
	f := finalizerFor(a)
	if fs := obj.GetFinalizers(); !slices.Contains(fs, f) {
		obj.SetFinalizers(append(fs, f))
	}
	return nil
}
