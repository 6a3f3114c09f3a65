// Package admission runs the checks of a write that look at the objects
// themselves, which authorization (it sees only the request's attributes)
// cannot: a Store wrapper calls an admission Func inside the write, on the
// object about to be stored and the one it replaces, with the request's
// user in the context (pkg/apirequest).
package admission

import (
	"context"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"

	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// Func checks a write: obj is the object to store (nil on delete), old
// the stored one (nil on create). An error refuses the write as it is.
type Func func(ctx context.Context, obj, old runtime.Object) error

// Store is a generic Store whose creates, updates and deletes pass Admit,
// run by the Store after its strategy and before it writes, on every
// retry of a conflicting update.
type Store struct {
	*generic.Store
	Admit Func
}

var (
	_ rest.Creater           = (*Store)(nil)
	_ rest.Updater           = (*Store)(nil)
	_ rest.GracefulDeleter   = (*Store)(nil)
	_ rest.CollectionDeleter = (*Store)(nil)
)

// Create implements rest.Creater.
func (s *Store) Create(ctx context.Context, obj runtime.Object, validate rest.ValidateObjectFunc, opts *metav1.CreateOptions) (runtime.Object, error) {
	return s.Store.Create(ctx, obj, s.OnCreate(validate), opts)
}

// Update implements rest.Updater.
func (s *Store) Update(ctx context.Context, name string, objInfo rest.UpdatedObjectInfo, createValidation rest.ValidateObjectFunc, updateValidation rest.ValidateObjectUpdateFunc, forceAllowCreate bool, opts *metav1.UpdateOptions) (runtime.Object, bool, error) {
	admitUpdate := func(ctx context.Context, obj, old runtime.Object) error {
		if updateValidation != nil {
			if err := updateValidation(ctx, obj, old); err != nil {
				return err
			}
		}
		return s.Admit(ctx, obj, old)
	}
	return s.Store.Update(ctx, name, objInfo, s.OnCreate(createValidation), admitUpdate, forceAllowCreate, opts)
}

// Delete implements rest.GracefulDeleter.
func (s *Store) Delete(ctx context.Context, name string, validate rest.ValidateObjectFunc, opts *metav1.DeleteOptions) (runtime.Object, bool, error) {
	return s.Store.Delete(ctx, name, s.OnDelete(validate), opts)
}

// DeleteCollection implements rest.CollectionDeleter.
func (s *Store) DeleteCollection(ctx context.Context, validate rest.ValidateObjectFunc, opts *metav1.DeleteOptions, listOpts *rest.ListOptions) (runtime.Object, error) {
	return s.Store.DeleteCollection(ctx, s.OnDelete(validate), opts, listOpts)
}

// OnCreate returns validate (nil for none) followed by Admit of a create.
func (s *Store) OnCreate(validate rest.ValidateObjectFunc) rest.ValidateObjectFunc {
	return chain(validate, func(ctx context.Context, obj runtime.Object) error { return s.Admit(ctx, obj, nil) })
}

// OnDelete returns validate (nil for none) followed by Admit of a delete.
func (s *Store) OnDelete(validate rest.ValidateObjectFunc) rest.ValidateObjectFunc {
	return chain(validate, func(ctx context.Context, obj runtime.Object) error { return s.Admit(ctx, nil, obj) })
}

func chain(first, then rest.ValidateObjectFunc) rest.ValidateObjectFunc {
	if first == nil {
		return then
	}
	return func(ctx context.Context, obj runtime.Object) error {
		if err := first(ctx, obj); err != nil {
			return err
		}
		return then(ctx, obj)
	}
}
