// Package defaultstorageclass is the DefaultStorageClass admission plugin:
// a new PersistentVolumeClaim that names no StorageClass gets the class
// marked as the cluster's default.
package defaultstorageclass

import (
	"context"
	"fmt"

	corev1 "kubecore.io/api/core/v1"
	storagev1 "kubecore.io/api/storage/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"

	"kubecore.io/kubecore/pkg/admission"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// ClassLister lists the StorageClasses the default is chosen among.
type ClassLister interface {
	ListStorageClasses(ctx context.Context) ([]*storagev1.StorageClass, error)
}

// Plugin is DefaultStorageClass admission, of the mutating phase.
type Plugin struct {
	Classes ClassLister
}

var _ admission.MutationInterface = (*Plugin)(nil)

// Handles implements admission.Interface: the creates of claims.
func (*Plugin) Handles(a *rest.Attributes) bool {
	return a.Operation == rest.OperationCreate && a.Resource.GroupResource() == corev1.Resource("persistentvolumeclaims") && a.Subresource == ""
}

// Admit implements admission.MutationInterface. A claim with
// spec.storageClassName set (even to "", which asks for static binding)
// is left alone; so is every claim when no class is the default. When
// several classes are marked default, the newest wins, as in Kubernetes
// since 1.26.
func (p *Plugin) Admit(ctx context.Context, a *rest.Attributes) error {
	claim, ok := a.Object.(*corev1.PersistentVolumeClaim)
	if !ok || claim.Spec.StorageClassName != nil {
		return nil
	}
	def, err := DefaultClass(ctx, p.Classes)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("find the default storage class: %w", err))
	}
	if def != nil {
		name := def.Name
		claim.Spec.StorageClassName = &name
	}
	return nil
}

// IsDefault reports whether the class is marked as the default.
func IsDefault(sc *storagev1.StorageClass) bool {
	return sc.Annotations[storagev1.IsDefaultStorageClassAnnotation] == "true"
}

// DefaultClass returns the default class among those classes lists: the
// newest one marked (by name when created at the same second); nil when
// none is.
func DefaultClass(ctx context.Context, classes ClassLister) (*storagev1.StorageClass, error) {
	all, err := classes.ListStorageClasses(ctx)
	if err != nil {
		return nil, err
	}
	var def *storagev1.StorageClass
	for _, sc := range all {
		if !IsDefault(sc) {
			continue
		}
		if def == nil || def.CreationTimestamp.Before(&sc.CreationTimestamp) ||
			def.CreationTimestamp.Equal(&sc.CreationTimestamp) && sc.Name < def.Name {
			def = sc
		}
	}
	return def, nil
}
