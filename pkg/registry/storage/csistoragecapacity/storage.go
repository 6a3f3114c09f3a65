// Package csistoragecapacity serves csistoragecapacities: the storage capacity CSI drivers report per topology segment, through the generic Store.
package csistoragecapacity

import (
	storagev1 "kubecore.io/api/storage/v1"

	"kubecore.io/kubecore/pkg/apis/storage/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewREST returns the storage of csistoragecapacities.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	s := strategy.Namespaced(validation.ValidateCSIStorageCapacity, validation.ValidateCSIStorageCapacityUpdate)
	return strategy.NewStore(opts, strategy.Of[storagev1.CSIStorageCapacity, storagev1.CSIStorageCapacityList](storagev1.Resource("csistoragecapacities"), "csistoragecapacity", s))
}
