// Package storageclass serves storageclasses: the classes of dynamically provisioned volumes, through the generic Store.
package storageclass

import (
	storagev1 "kubecore.io/api/storage/v1"

	"kubecore.io/kubecore/pkg/apis/storage/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewREST returns the storage of storageclasses.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	s := strategy.ClusterScoped(validation.ValidateStorageClass, validation.ValidateStorageClassUpdate)
	return strategy.NewStore(opts, strategy.Of[storagev1.StorageClass, storagev1.StorageClassList](storagev1.Resource("storageclasses"), "storageclass", s).Short("sc"))
}
