package controlplane

import (
	"context"
	"fmt"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/admission/plugin/limitranger"
	"kubecore.io/kubecore/pkg/admission/plugin/resourcequota"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

var (
	_ resourcequota.Quotas         = (*objectReader)(nil)
	_ limitranger.LimitRangeLister = (*objectReader)(nil)
)

// ListQuotas implements resourcequota.Quotas from the watch cache.
func (r *objectReader) ListQuotas(ctx context.Context, namespace string) ([]*corev1.ResourceQuota, error) {
	return r.quotas.list(ctx, namespace, nil)
}

// UpdateQuota implements resourcequota.Quotas: a compare-and-swap on the
// stored quota in etcd, retried on the fresh quota on conflict.
func (r *objectReader) UpdateQuota(ctx context.Context, namespace, name string, update func(*corev1.ResourceQuota) error) error {
	store := r.quotas.store
	_, err := store.Storage.GuaranteedUpdate(ctx, r.quotas.key(namespace, name), nil, false, func(current runtime.Object) (runtime.Object, error) {
		q, ok := current.(*corev1.ResourceQuota)
		if !ok {
			return nil, fmt.Errorf("resourcequotas storage returned %T", current)
		}
		if err := update(q); err != nil {
			return nil, err
		}
		return q, nil
	}, nil)
	if err != nil {
		return strategy.StorageError(err, store.DefaultQualifiedResource, name)
	}
	return nil
}

// ListLimitRanges implements limitranger.LimitRangeLister from the watch
// cache.
func (r *objectReader) ListLimitRanges(ctx context.Context, namespace string) ([]*corev1.LimitRange, error) {
	return r.limitRanges.list(ctx, namespace, nil)
}
