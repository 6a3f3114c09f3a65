package leaderelection

import (
	coordinationv1 "kubecore.io/api/coordination/v1"
	"kubecore.io/client/typed"
)

// The typed client's Leases satisfy LeaseClient without an adapter.
var _ LeaseClient = (*typed.Client[*coordinationv1.Lease, *coordinationv1.LeaseList])(nil)
