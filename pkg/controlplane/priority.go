package controlplane

import (
	"context"

	schedulingv1 "kubecore.io/api/scheduling/v1"

	"kubecore.io/kubecore/pkg/admission/plugin/priority"
)

var _ priority.PriorityClassGetter = (*objectReader)(nil)

// GetPriorityClass implements priority.PriorityClassGetter. A class
// missing from the cache is looked up again in etcd, so that a class
// created just before the pod is found; a missing class is NotFound.
func (r *objectReader) GetPriorityClass(ctx context.Context, name string) (*schedulingv1.PriorityClass, error) {
	pc, err := r.priorityClasses.get(ctx, "", name, true)
	if err != nil {
		return nil, err
	}
	if pc == nil {
		return nil, notFound(r.priorityClasses, name)
	}
	return pc, nil
}

// ListPriorityClasses implements priority.PriorityClassGetter.
func (r *objectReader) ListPriorityClasses(ctx context.Context) ([]*schedulingv1.PriorityClass, error) {
	return r.priorityClasses.list(ctx, "", nil)
}
