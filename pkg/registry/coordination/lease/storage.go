// Package lease serves leases: leader election and node heartbeats
// through the generic Store.
package lease

import (
	coordinationv1 "kubecore.io/api/coordination/v1"

	"kubecore.io/kubecore/pkg/apis/coordination/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewREST returns the storage of leases.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	s := strategy.Namespaced(validation.ValidateLease, validation.ValidateLeaseUpdate)
	return strategy.NewStore(opts, strategy.Of[coordinationv1.Lease, coordinationv1.LeaseList](coordinationv1.Resource("leases"), "lease", s))
}
