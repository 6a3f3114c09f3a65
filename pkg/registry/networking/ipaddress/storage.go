// Package ipaddress serves ipaddresses: one object per allocated IP
// address, named by the address, through the generic Store. The Service
// ClusterIP allocator creates and deletes them; creating one is what
// reserves its address.
package ipaddress

import (
	networkingv1 "kubecore.io/api/networking/v1"

	"kubecore.io/kubecore/pkg/apis/networking/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

type address = networkingv1.IPAddress

// NewStrategy returns the strategy of ipaddresses: cluster scoped, the
// parent immutable.
func NewStrategy() *strategy.Strategy[*address] {
	return strategy.ClusterScoped(validation.ValidateIPAddress, validation.ValidateIPAddressUpdate)
}

// NewREST returns the storage of ipaddresses.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	return strategy.NewStore(opts, strategy.Of[address, networkingv1.IPAddressList](networkingv1.Resource("ipaddresses"), "ipaddress", NewStrategy()).Short("ip"))
}
