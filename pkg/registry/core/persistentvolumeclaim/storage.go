// Package persistentvolumeclaim serves persistentvolumeclaims: requests for storage
// and their status subresource through the generic Store.
package persistentvolumeclaim

import (
	"context"

	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStrategy returns the strategy of persistentvolumeclaims: status only through /status.
func NewStrategy() *strategy.Strategy[*corev1.PersistentVolumeClaim] {
	return &strategy.Strategy[*corev1.PersistentVolumeClaim]{
		Namespaced:        true,
		StatusSubresource: true,
		// The status the client sent is dropped; a new claim is Pending until
		// it is bound, as Kubernetes reports it.
		PrepareCreate: func(_ context.Context, obj *corev1.PersistentVolumeClaim) {
			obj.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}
		},
		ValidateFunc:       validation.ValidatePersistentVolumeClaim,
		ValidateUpdateFunc: validation.ValidatePersistentVolumeClaimUpdate,
	}
}

// NewStorage returns the storage of persistentvolumeclaims and their status.
func NewStorage(opts generic.StoreOptions) (*strategy.WithStatus, error) {
	return strategy.NewWithStatus(opts, strategy.Of[corev1.PersistentVolumeClaim, corev1.PersistentVolumeClaimList](corev1.Resource("persistentvolumeclaims"), "persistentvolumeclaim", NewStrategy()).Short("pvc"))
}
