package strategy

import (
	"context"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// StatusREST serves a /status subresource: GET, and PUT or PATCH through
// the status strategy of a copy of the main resource's Store.
type StatusREST struct {
	store *generic.Store
}

var (
	_ rest.Getter  = (*StatusREST)(nil)
	_ rest.Updater = (*StatusREST)(nil)
)

// NewStatusREST serves main's objects with only status writable.
func NewStatusREST(main *generic.Store, status rest.UpdateStrategy) *StatusREST {
	s := *main
	s.CreateStrategy, s.DeleteStrategy, s.UpdateStrategy = nil, nil, status
	s.DestroyFunc = nil
	s.Subresource = "status"
	return &StatusREST{store: &s}
}

// New implements rest.Storage.
func (r *StatusREST) New() runtime.Object { return r.store.New() }

// Destroy implements rest.Storage; the main resource owns the storage.
func (r *StatusREST) Destroy() {}

// Get implements rest.Getter.
func (r *StatusREST) Get(ctx context.Context, name string, opts *metav1.GetOptions) (runtime.Object, error) {
	return r.store.Get(ctx, name, opts)
}

// Update implements rest.Updater. A status update never creates the
// object.
func (r *StatusREST) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, _ bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	return r.store.Update(ctx, name, objInfo, createValidation, updateValidation, false, opts)
}
