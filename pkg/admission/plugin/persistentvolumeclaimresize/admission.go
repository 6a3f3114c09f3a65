// Package persistentvolumeclaimresize is the PersistentVolumeClaimResize
// admission plugin: a claim may ask for more storage only when its
// StorageClass allows volume expansion.
package persistentvolumeclaimresize

import (
	"context"
	"errors"

	corev1 "kubecore.io/api/core/v1"
	storagev1 "kubecore.io/api/storage/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"

	"kubecore.io/kubecore/pkg/admission"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// ClassGetter reads StorageClasses; a missing class is nil without error.
type ClassGetter interface {
	GetStorageClass(ctx context.Context, name string) (*storagev1.StorageClass, error)
}

// Plugin is PersistentVolumeClaimResize admission, of the validating
// phase.
type Plugin struct {
	Classes ClassGetter
}

var _ admission.ValidationInterface = (*Plugin)(nil)

// Handles implements admission.Interface: the updates of claims.
func (*Plugin) Handles(a *rest.Attributes) bool {
	return a.Operation == rest.OperationUpdate && a.Resource.GroupResource() == corev1.Resource("persistentvolumeclaims") && a.Subresource == ""
}

// Validate implements admission.ValidationInterface: a larger storage
// request is Forbidden unless the claim's class exists and sets
// allowVolumeExpansion.
func (p *Plugin) Validate(ctx context.Context, a *rest.Attributes) error {
	claim, ok1 := a.Object.(*corev1.PersistentVolumeClaim)
	old, ok2 := a.OldObject.(*corev1.PersistentVolumeClaim)
	if !ok1 || !ok2 {
		return nil
	}
	want, have := claim.Spec.Resources.Requests[corev1.ResourceStorage], old.Spec.Resources.Requests[corev1.ResourceStorage]
	if want.Cmp(have) <= 0 {
		return nil
	}
	allowed, err := p.allowResize(ctx, claim)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	if !allowed {
		return apierrors.NewForbidden(corev1.Resource("persistentvolumeclaims"), claim.Name,
			errors.New("only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize"))
	}
	return nil
}

func (p *Plugin) allowResize(ctx context.Context, claim *corev1.PersistentVolumeClaim) (bool, error) {
	name := claim.Spec.StorageClassName
	if name == nil || *name == "" {
		return false, nil
	}
	class, err := p.Classes.GetStorageClass(ctx, *name)
	if err != nil || class == nil {
		return false, err
	}
	return class.AllowVolumeExpansion != nil && *class.AllowVolumeExpansion, nil
}
