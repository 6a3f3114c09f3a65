// Package resourceclaimtemplate serves resourceclaimtemplates: the
// templates of the claims made for pods, through the generic Store.
package resourceclaimtemplate

import (
	resourcev1 "kubecore.io/api/resource/v1"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/resource/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

type template = resourcev1.ResourceClaimTemplate

// NewREST returns the builder of the storage of resourceclaimtemplates,
// whose CEL selectors sel compiles.
func NewREST(sel validation.SelectorChecker) func(generic.StoreOptions) (*generic.Store, error) {
	return func(opts generic.StoreOptions) (*generic.Store, error) {
		s := strategy.Namespaced(
			func(t *template) field.ErrorList { return validation.ValidateResourceClaimTemplate(t, sel) },
			func(t, old *template) field.ErrorList {
				return validation.ValidateResourceClaimTemplateUpdate(t, old, sel)
			})
		return strategy.NewStore(opts, strategy.Of[template, resourcev1.ResourceClaimTemplateList](resourcev1.Resource("resourceclaimtemplates"), "resourceclaimtemplate", s))
	}
}
