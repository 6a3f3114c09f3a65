// Package servicecidr serves servicecidrs, the ranges Services take their
// ClusterIPs from, and their status subresource through the generic
// Store.
package servicecidr

import (
	networkingv1 "kubecore.io/api/networking/v1"

	"kubecore.io/kubecore/pkg/apis/networking/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

type cidr = networkingv1.ServiceCIDR

// NewStrategy returns the strategy of servicecidrs: cluster scoped,
// status only through /status.
func NewStrategy() *strategy.Strategy[*cidr] {
	return &strategy.Strategy[*cidr]{
		StatusSubresource:  true,
		ValidateFunc:       validation.ValidateServiceCIDR,
		ValidateUpdateFunc: validation.ValidateServiceCIDRUpdate,
	}
}

// NewStorage returns the storage of servicecidrs and their status.
func NewStorage(opts generic.StoreOptions) (*strategy.WithStatus, error) {
	r := strategy.Of[cidr, networkingv1.ServiceCIDRList](networkingv1.Resource("servicecidrs"), "servicecidr", NewStrategy())
	return strategy.NewWithStatus(opts, r.StatusBy(&strategy.StatusStrategy[*cidr]{ResetMetadata: true, ValidateStatus: validation.ValidateServiceCIDRStatusUpdate}))
}
