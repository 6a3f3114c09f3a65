// Package limitrange serves limitranges: the per-namespace defaults and
// bounds of compute and storage resources, through the generic Store.
package limitrange

import (
	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewREST returns the storage of limitranges.
func NewREST(opts generic.StoreOptions) (*generic.Store, error) {
	s := strategy.Namespaced(validation.ValidateLimitRange, validation.ValidateLimitRangeUpdate)
	return strategy.NewStore(opts, strategy.Of[corev1.LimitRange, corev1.LimitRangeList](corev1.Resource("limitranges"), "limitrange", s).Short("limits"))
}
