// Package persistentvolume serves persistentvolumes: cluster-wide pieces of storage
// and their status subresource through the generic Store.
package persistentvolume

import (
	"context"

	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStrategy returns the strategy of persistentvolumes: status only through /status.
func NewStrategy() *strategy.Strategy[*corev1.PersistentVolume] {
	return &strategy.Strategy[*corev1.PersistentVolume]{
		StatusSubresource: true,
		// The status the client sent is dropped; a new volume is Pending until
		// it is bound, as Kubernetes reports it.
		PrepareCreate: func(_ context.Context, obj *corev1.PersistentVolume) {
			obj.Status = corev1.PersistentVolumeStatus{Phase: corev1.VolumePending}
		},
		ValidateFunc:       validation.ValidatePersistentVolume,
		ValidateUpdateFunc: strategy.ValidateNew(validation.ValidatePersistentVolume),
	}
}

// NewStorage returns the storage of persistentvolumes and their status.
func NewStorage(opts generic.StoreOptions) (*strategy.WithStatus, error) {
	return strategy.NewWithStatus(opts, strategy.Of[corev1.PersistentVolume, corev1.PersistentVolumeList](corev1.Resource("persistentvolumes"), "persistentvolume", NewStrategy()).Short("pv"))
}
