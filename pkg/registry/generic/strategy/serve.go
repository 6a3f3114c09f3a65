package strategy

import (
	"fmt"

	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// Resources is the storage of one group version by resource path
// ("deployments", "deployments/status"), as the API server serves it.
type Resources map[string]rest.Storage

// Add builds the storage of resource with newStorage and adds it, with its
// status and scale subresources when it has them, to rs.
func Add[S any](rs Resources, resource string, opts generic.StoreOptions, newStorage func(generic.StoreOptions) (S, error)) error {
	st, err := newStorage(opts)
	if err != nil {
		return fmt.Errorf("storage of %s: %w", resource, err)
	}
	switch s := any(st).(type) {
	case subresources:
		for path, storage := range s.subresources() {
			rs[resource+path] = storage
		}
	case rest.Storage:
		rs[resource] = s
	default:
		return fmt.Errorf("storage of %s: %T is no rest.Storage", resource, st)
	}
	return nil
}

// subresources is the storage of a resource and its subresources by path
// below the resource ("", "/status").
type subresources interface {
	subresources() map[string]rest.Storage
}

func (w *WithStatus) subresources() map[string]rest.Storage {
	return map[string]rest.Storage{"": w.Store, "/status": w.Status}
}

func (w *WorkloadStorage[T]) subresources() map[string]rest.Storage {
	return map[string]rest.Storage{"": w.Store, "/status": w.Status, "/scale": w.Scale}
}
