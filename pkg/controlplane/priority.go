package controlplane

import (
	"context"

	schedulingv1 "kubecore.io/api/scheduling/v1"

	"kubecore.io/kubecore/pkg/registry/core/pod"
)

// priorityClassReader reads PriorityClasses for pod priority admission.
type priorityClassReader struct {
	classes cached[*schedulingv1.PriorityClass]
}

var _ pod.PriorityClassGetter = (*priorityClassReader)(nil)

// GetPriorityClass implements pod.PriorityClassGetter. A class missing
// from the cache is looked up again in etcd, so that a class created
// just before the pod is found; a missing class is NotFound.
func (r *priorityClassReader) GetPriorityClass(ctx context.Context, name string) (*schedulingv1.PriorityClass, error) {
	pc, err := r.classes.get(ctx, "", name, true)
	if err != nil {
		return nil, err
	}
	if pc == nil {
		return nil, notFound(r.classes, name)
	}
	return pc, nil
}

// ListPriorityClasses implements pod.PriorityClassGetter.
func (r *priorityClassReader) ListPriorityClasses(ctx context.Context) ([]*schedulingv1.PriorityClass, error) {
	return r.classes.list(ctx, "", nil)
}
