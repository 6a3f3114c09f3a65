package controlplane

import (
	"context"

	nodev1 "kubecore.io/api/node/v1"

	"kubecore.io/kubecore/pkg/admission/plugin/runtimeclass"
)

var _ runtimeclass.Getter = (*objectReader)(nil)

// GetRuntimeClass implements runtimeclass.Getter, as GetPriorityClass:
// a class missing from the cache is looked up again in etcd.
func (r *objectReader) GetRuntimeClass(ctx context.Context, name string) (*nodev1.RuntimeClass, error) {
	rc, err := r.runtimeClasses.get(ctx, "", name, true)
	if err != nil {
		return nil, err
	}
	if rc == nil {
		return nil, notFound(r.runtimeClasses, name)
	}
	return rc, nil
}
