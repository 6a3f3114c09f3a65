// Package resourcequota serves resourcequotas and their status, which the
// quota controller and admission write, through the generic Store.
package resourcequota

import (
	corev1 "kubecore.io/api/core/v1"

	"kubecore.io/kubecore/pkg/apis/core/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStrategy returns the strategy of resourcequotas: the status a client
// sends with the spec is dropped on create and kept on update.
func NewStrategy() *strategy.Strategy[*corev1.ResourceQuota] {
	return &strategy.Strategy[*corev1.ResourceQuota]{
		Namespaced:         true,
		StatusSubresource:  true,
		ValidateFunc:       validation.ValidateResourceQuota,
		ValidateUpdateFunc: validation.ValidateResourceQuotaUpdate,
	}
}

// NewStorage returns the storage of resourcequotas and their status.
func NewStorage(opts generic.StoreOptions) (*strategy.WithStatus, error) {
	r := strategy.Of[corev1.ResourceQuota, corev1.ResourceQuotaList](corev1.Resource("resourcequotas"), "resourcequota", NewStrategy()).Short("quota")
	return strategy.NewWithStatus(opts, r.StatusBy(&strategy.StatusStrategy[*corev1.ResourceQuota]{ValidateStatus: validation.ValidateResourceQuotaStatusUpdate}))
}
