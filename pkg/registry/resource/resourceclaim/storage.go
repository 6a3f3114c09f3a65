// Package resourceclaim serves resourceclaims: requests for devices, and
// their status subresource (allocation and reservations), through the
// generic Store.
package resourceclaim

import (
	resourcev1 "kubecore.io/api/resource/v1"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/resource/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

type claim = resourcev1.ResourceClaim

// NewStrategy returns the strategy of resourceclaims, whose CEL
// selectors sel compiles: status only through /status.
func NewStrategy(sel validation.SelectorChecker) *strategy.Strategy[*claim] {
	return &strategy.Strategy[*claim]{
		Namespaced:         true,
		StatusSubresource:  true,
		ValidateFunc:       func(c *claim) field.ErrorList { return validation.ValidateResourceClaim(c, sel) },
		ValidateUpdateFunc: func(c, old *claim) field.ErrorList { return validation.ValidateResourceClaimUpdate(c, old, sel) },
	}
}

// NewStorage returns the builder of the storage of resourceclaims and
// their status.
func NewStorage(sel validation.SelectorChecker) func(generic.StoreOptions) (*strategy.WithStatus, error) {
	return func(opts generic.StoreOptions) (*strategy.WithStatus, error) {
		r := strategy.Of[claim, resourcev1.ResourceClaimList](resourcev1.Resource("resourceclaims"), "resourceclaim", NewStrategy(sel))
		return strategy.NewWithStatus(opts, r.StatusBy(&strategy.StatusStrategy[*claim]{ResetMetadata: true, ValidateStatus: validation.ValidateResourceClaimStatusUpdate}))
	}
}
