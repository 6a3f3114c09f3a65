// Package csidriver serves csidrivers: the CSI volume drivers installed in the cluster, through the generic Store.
package csidriver

import (
	storagev1 "kubecore.io/api/storage/v1"

	"kubecore.io/kubecore/pkg/apis/storage/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewREST returns the storage of csidrivers.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	s := strategy.ClusterScoped(validation.ValidateCSIDriver, validation.ValidateCSIDriverUpdate)
	return strategy.NewStore(opts, strategy.Of[storagev1.CSIDriver, storagev1.CSIDriverList](storagev1.Resource("csidrivers"), "csidriver", s))
}
