package strategy

import (
	"context"
	"errors"

	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/generic"
)

// Group is the storage provider of an API group version whose resources
// need only the StoreOptions: NewGroup lists them, Served names each.
type Group struct {
	gv        schema.GroupVersion
	resources []func(rs Resources, opts generic.StoreOptions) error
}

// NewGroup is the provider of group version gv serving resources.
func NewGroup(gv schema.GroupVersion, resources ...func(rs Resources, opts generic.StoreOptions) error) Group {
	return Group{gv: gv, resources: resources}
}

// Served is resource, built by newStorage, in a Group.
func Served[S any](resource string, newStorage func(generic.StoreOptions) (S, error)) func(rs Resources, opts generic.StoreOptions) error {
	return func(rs Resources, opts generic.StoreOptions) error { return Add(rs, resource, opts, newStorage) }
}

// GroupVersion is the group version served.
func (g Group) GroupVersion() schema.GroupVersion { return g.gv }

// NewStorage adds every resource of the group to rs.
func (g Group) NewStorage(_ context.Context, rs Resources, opts generic.StoreOptions) error {
	errs := make([]error, 0, len(g.resources))
	for _, add := range g.resources {
		errs = append(errs, add(rs, opts))
	}
	return errors.Join(errs...)
}
