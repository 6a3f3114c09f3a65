// Package volumeattributesclass serves volumeattributesclasses: the classes of mutable volume attributes, through the generic Store.
package volumeattributesclass

import (
	storagev1 "kubecore.io/api/storage/v1"

	"kubecore.io/kubecore/pkg/apis/storage/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewREST returns the storage of volumeattributesclasses.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	s := strategy.ClusterScoped(validation.ValidateVolumeAttributesClass, validation.ValidateVolumeAttributesClassUpdate)
	return strategy.NewStore(opts, strategy.Of[storagev1.VolumeAttributesClass, storagev1.VolumeAttributesClassList](storagev1.Resource("volumeattributesclasses"), "volumeattributesclass", s).Short("vac"))
}
