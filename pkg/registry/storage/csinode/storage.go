// Package csinode serves csinodes: the CSI drivers installed on each node, through the generic Store.
package csinode

import (
	storagev1 "kubecore.io/api/storage/v1"

	"kubecore.io/kubecore/pkg/apis/storage/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewREST returns the storage of csinodes.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	s := strategy.ClusterScoped(validation.ValidateCSINode, validation.ValidateCSINodeUpdate)
	return strategy.NewStore(opts, strategy.Of[storagev1.CSINode, storagev1.CSINodeList](storagev1.Resource("csinodes"), "csinode", s))
}
