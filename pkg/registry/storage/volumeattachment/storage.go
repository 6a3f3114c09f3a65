// Package volumeattachment serves volumeattachments: the intent to attach
// a volume to a node, and its status subresource, through the generic
// Store.
package volumeattachment

import (
	storagev1 "kubecore.io/api/storage/v1"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/storage/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStrategy returns the strategy of volumeattachments: status only
// through /status.
func NewStrategy() *strategy.Strategy[*storagev1.VolumeAttachment] {
	return &strategy.Strategy[*storagev1.VolumeAttachment]{
		StatusSubresource:  true,
		ValidateFunc:       validation.ValidateVolumeAttachment,
		ValidateUpdateFunc: validation.ValidateVolumeAttachmentUpdate,
	}
}

// NewStorage returns the storage of volumeattachments and their status.
func NewStorage(opts generic.StoreOptions) (*strategy.WithStatus, error) {
	r := strategy.Of[storagev1.VolumeAttachment, storagev1.VolumeAttachmentList](storagev1.Resource("volumeattachments"), "volumeattachment", NewStrategy())
	return strategy.NewWithStatus(opts, r.StatusBy(&strategy.StatusStrategy[*storagev1.VolumeAttachment]{
		ResetMetadata: true,
		ValidateStatus: func(obj, old *storagev1.VolumeAttachment) field.ErrorList {
			return validation.ValidateVolumeAttachmentUpdate(obj, old)
		},
	}))
}
