// Package resourceclaimtemplate serves resourceclaimtemplates: the
// templates of the claims made for pods, through the generic Store.
package resourceclaimtemplate

import (
	resourcev1 "kubecore.io/api/resource/v1"

	"kubecore.io/kubecore/pkg/apis/resource/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewREST returns the storage of resourceclaimtemplates.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	s := strategy.Namespaced(validation.ValidateResourceClaimTemplate, validation.ValidateResourceClaimTemplateUpdate)
	return strategy.NewStore(opts, strategy.Of[resourcev1.ResourceClaimTemplate, resourcev1.ResourceClaimTemplateList](resourcev1.Resource("resourceclaimtemplates"), "resourceclaimtemplate", s))
}
