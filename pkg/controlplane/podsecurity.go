package controlplane

import (
	"context"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"

	"kubecore.io/kubecore/pkg/admission/plugin/podsecurity"
)

var _ podsecurity.Objects = (*objectReader)(nil)

// Namespace implements podsecurity.Objects: from the watch cache, or etcd
// for a namespace created an instant ago.
func (r *objectReader) Namespace(ctx context.Context, name string) (*corev1.Namespace, error) {
	ns, err := r.namespaces.get(ctx, "", name, true)
	if err == nil && ns == nil {
		return nil, apierrors.NewNotFound(corev1.Resource("namespaces"), name)
	}
	return ns, err
}

// PodsInNamespace implements podsecurity.Objects.
func (r *objectReader) PodsInNamespace(ctx context.Context, namespace string) ([]*corev1.Pod, error) {
	return r.pods.list(ctx, namespace, nil)
}
