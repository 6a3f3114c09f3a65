package strategy

import (
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/rest"
	"kubecore.io/kubecore/pkg/storage"
)

// Resource describes a resource served through the generic Store under
// one strategy. Of builds one; Short, InCategories and Selectable add to
// it.
type Resource[T runtime.Object] struct {
	// Resource and Singular name it ("nodes", "node").
	Resource, Singular     schema.GroupResource
	NewObj, NewList        func() runtime.Object
	ShortNames, Categories []string
	// GetAttrs returns the selectable fields, when the resource has more
	// than metadata.name and metadata.namespace.
	GetAttrs storage.AttrFunc
	Strategy *Strategy[T]
	// ReturnDeleted answers a delete with the deleted object, not a
	// Status.
	ReturnDeleted bool
	// Delete replaces Strategy on delete: a graceful deletion.
	Delete rest.DeleteStrategy
	// Status is the strategy of the /status NewWithStatus adds; nil keeps
	// the spec and checks nothing more.
	Status *StatusStrategy[T]
}

// Of describes the resource gr ("configmaps", singular "configmap") of
// objects *O listed in *L, under s.
func Of[O, L any, PO interface {
	*O
	runtime.Object
}, PL interface {
	*L
	runtime.Object
}](gr schema.GroupResource, singular string, s *Strategy[PO]) Resource[PO] {
	return Resource[PO]{
		Resource: gr, Singular: schema.GroupResource{Group: gr.Group, Resource: singular},
		NewObj: func() runtime.Object { return PO(new(O)) }, NewList: func() runtime.Object { return PL(new(L)) },
		Strategy: s,
	}
}

// Short returns r with the short names kubectl knows it by ("cm").
func (r Resource[T]) Short(names ...string) Resource[T] {
	r.ShortNames = names
	return r
}

// InCategories returns r in the categories ("all").
func (r Resource[T]) InCategories(categories ...string) Resource[T] {
	r.Categories = categories
	return r
}

// Selectable returns r with the labels and selectable fields attrs gives.
func (r Resource[T]) Selectable(attrs storage.AttrFunc) Resource[T] {
	r.GetAttrs = attrs
	return r
}

// DeletedBy returns r deleting through d (a rest.GracefulDeleteStrategy).
func (r Resource[T]) DeletedBy(d rest.DeleteStrategy) Resource[T] {
	r.Delete = d
	return r
}

// ReturnsDeleted returns r answering a delete with the deleted object.
func (r Resource[T]) ReturnsDeleted() Resource[T] {
	r.ReturnDeleted = true
	return r
}

// StatusBy returns r with s the strategy of its /status; s takes r's
// scope.
func (r Resource[T]) StatusBy(s *StatusStrategy[T]) Resource[T] {
	r.Status = s
	return r
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
		ReturnDeletedObject:       r.ReturnDeleted,
	}
	if r.Delete != nil {
		store.DeleteStrategy = r.Delete
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
// the status changes, under r.Status.
func NewWithStatus[T runtime.Object](opts generic.StoreOptions, r Resource[T]) (*WithStatus, error) {
	store, err := NewStore(opts, r)
	if err != nil {
		return nil, err
	}
	return &WithStatus{Store: store, Status: NewStatusREST(store, r.statusStrategy())}, nil
}

// statusStrategy is r.Status (or one that checks nothing) in r's scope.
func (r Resource[T]) statusStrategy() *StatusStrategy[T] {
	status := StatusStrategy[T]{}
	if r.Status != nil {
		status = *r.Status
	}
	status.Namespaced = r.Strategy.Namespaced
	return &status
}
