package strategy

import (
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/storage"
)

// Resource describes a resource served through the generic Store under
// one strategy.
type Resource[T runtime.Object] struct {
	// Resource and Singular name it ("nodes", "node").
	Resource, Singular     schema.GroupResource
	NewObj, NewList        func() runtime.Object
	ShortNames, Categories []string
	// GetAttrs returns the selectable fields, when the resource has more
	// than metadata.name and metadata.namespace.
	GetAttrs storage.AttrFunc
	Strategy *Strategy[T]
}

// NewStore builds and completes the Store of r.
func NewStore[T runtime.Object](opts generic.StoreOptions, r Resource[T]) (*generic.Store, error) {
	store := &generic.Store{
		NewFunc:                   r.NewObj,
		NewListFunc:               r.NewList,
		DefaultQualifiedResource:  r.Resource,
		SingularQualifiedResource: r.Singular,
		CreateStrategy:            r.Strategy,
		UpdateStrategy:            r.Strategy,
		DeleteStrategy:            r.Strategy,
		GetAttrs:                  r.GetAttrs,
		ShortNamesList:            r.ShortNames,
		CategoriesList:            r.Categories,
	}
	if err := store.CompleteWithOptions(opts); err != nil {
		return nil, err
	}
	return store, nil
}

// WithStatus is the Store of a resource and its status subresource.
type WithStatus struct {
	Store  *generic.Store
	Status *StatusREST
}

// NewWithStatus builds the Store of r and its /status, through which only
// the status changes.
func NewWithStatus[T runtime.Object](opts generic.StoreOptions, r Resource[T]) (*WithStatus, error) {
	store, err := NewStore(opts, r)
	if err != nil {
		return nil, err
	}
	return &WithStatus{Store: store, Status: NewStatusREST(store, &StatusStrategy[T]{Namespaced: r.Strategy.Namespaced})}, nil
}
