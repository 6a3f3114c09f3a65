// Package lease serves leases: leader election and node heartbeats
// through the generic Store.
package lease

import (
	coordinationv1 "kubecore.io/api/coordination/v1"

	"kubecore.io/kubecore/pkg/apis/coordination/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStrategy returns the strategy of leases.
func NewStrategy() *strategy.Strategy[*coordinationv1.Lease] {
	return strategy.Namespaced(validation.ValidateLease, validation.ValidateLeaseUpdate)
}

// NewREST returns the storage of leases.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	return strategy.NewStore(opts, strategy.Of[coordinationv1.Lease, coordinationv1.LeaseList](coordinationv1.Resource("leases"), "lease", NewStrategy()))
}
