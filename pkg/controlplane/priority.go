package controlplane

import (
	"context"
	"fmt"

	schedulingv1 "kubecore.io/api/scheduling/v1"

	"kubecore.io/kubecore/pkg/apis/strategy"
	"kubecore.io/kubecore/pkg/registry/core/pod"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/storage"
)

// priorityClassReader reads PriorityClasses for pod priority admission,
// from the watch cache when it has them and from etcd otherwise.
type priorityClassReader struct {
	store *generic.Store
}

var _ pod.PriorityClassGetter = (*priorityClassReader)(nil)

// GetPriorityClass implements pod.PriorityClassGetter. A class missing
// from the cache is looked up again in etcd, so that a class created
// just before the pod is found.
func (r *priorityClassReader) GetPriorityClass(ctx context.Context, name string) (*schedulingv1.PriorityClass, error) {
	key := r.store.KeyPrefix() + "/" + name
	obj, err := r.store.Storage.Get(ctx, key, storage.GetOptions{ResourceVersion: "0"})
	if storage.IsNotFound(err) {
		obj, err = r.store.Storage.Get(ctx, key, storage.GetOptions{})
	}
	if err != nil {
		return nil, strategy.StorageError(err, r.store.DefaultQualifiedResource, name)
	}
	return asPriorityClass(obj)
}

// ListPriorityClasses implements pod.PriorityClassGetter.
func (r *priorityClassReader) ListPriorityClasses(ctx context.Context) ([]*schedulingv1.PriorityClass, error) {
	list, err := r.store.Storage.GetList(ctx, r.store.KeyPrefix(), storage.ListOptions{ResourceVersion: "0", Recursive: true})
	if err != nil {
		return nil, strategy.StorageError(err, r.store.DefaultQualifiedResource, "")
	}
	out := make([]*schedulingv1.PriorityClass, 0, len(list.Items))
	for _, obj := range list.Items {
		pc, err := asPriorityClass(obj)
		if err != nil {
			return nil, err
		}
		out = append(out, pc)
	}
	return out, nil
}

// asPriorityClass unwraps what the storage returned; callers only read it.
func asPriorityClass(obj any) (*schedulingv1.PriorityClass, error) {
	if e, ok := obj.(*storage.EncodedObject); ok {
		obj = e.Unwrap()
	}
	pc, ok := obj.(*schedulingv1.PriorityClass)
	if !ok {
		return nil, fmt.Errorf("priorityclasses storage returned %T", obj)
	}
	return pc, nil
}
