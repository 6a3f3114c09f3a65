// Package podtemplate serves podtemplates: stored pod templates
// through the generic Store.
package podtemplate

import (
	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewREST returns the storage of podtemplates.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	s := strategy.Namespaced(validation.ValidatePodTemplate, strategy.ValidateNew(validation.ValidatePodTemplate))
	return strategy.NewStore(opts, strategy.Of[corev1.PodTemplate, corev1.PodTemplateList](corev1.Resource("podtemplates"), "podtemplate", s))
}
