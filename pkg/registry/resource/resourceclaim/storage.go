// Package resourceclaim serves resourceclaims: requests for devices, and
// their status subresource (allocation and reservations), through the
// generic Store.
package resourceclaim

import (
	resourcev1 "kubecore.io/api/resource/v1"

	"kubecore.io/kubecore/pkg/apis/resource/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStrategy returns the strategy of resourceclaims: status only through
// /status.
func NewStrategy() *strategy.Strategy[*resourcev1.ResourceClaim] {
	return &strategy.Strategy[*resourcev1.ResourceClaim]{
		Namespaced:         true,
		StatusSubresource:  true,
		ValidateFunc:       validation.ValidateResourceClaim,
		ValidateUpdateFunc: validation.ValidateResourceClaimUpdate,
	}
}

// NewStorage returns the storage of resourceclaims and their status.
func NewStorage(opts generic.StoreOptions) (*strategy.WithStatus, error) {
	store, err := strategy.NewStore(opts, strategy.Of[resourcev1.ResourceClaim, resourcev1.ResourceClaimList](resourcev1.Resource("resourceclaims"), "resourceclaim", NewStrategy()))
	if err != nil {
		return nil, err
	}
	status := &strategy.StatusStrategy[*resourcev1.ResourceClaim]{Namespaced: true, ResetMetadata: true, ValidateStatus: validation.ValidateResourceClaimStatusUpdate}
	return &strategy.WithStatus{Store: store, Status: strategy.NewStatusREST(store, status)}, nil
}
