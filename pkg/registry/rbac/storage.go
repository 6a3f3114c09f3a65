// Package rbac serves the four RBAC resources — roles, clusterroles,
// rolebindings and clusterrolebindings — through the generic Store.
package rbac

import (
	rbacv1 "kubecore.io/api/rbac/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/util/validation/field"

	"kubecore.io/kubecore/pkg/apis/rbac/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// REST serves one RBAC resource.
type REST struct{ *generic.Store }

// kind describes one RBAC resource for newREST.
type kind[T runtime.Object] struct {
	resource, singular string
	namespaced         bool
	newObj, newList    func() runtime.Object
	validate           func(T) field.ErrorList
	// update adds the checks of a change; nil when there are none.
	update func(obj, old T) field.ErrorList
}

// newREST builds the storage of the resource k describes.
func newREST[T runtime.Object](opts generic.StoreOptions, k kind[T]) (*REST, error) {
	validate, update := k.validate, k.update
	s := &strategy.Strategy[T]{
		Namespaced:   k.namespaced,
		ValidateFunc: validate,
		ValidateUpdateFunc: func(obj, old T) field.ErrorList {
			errs := validate(obj)
			if update != nil {
				errs = append(errs, update(obj, old)...)
			}
			return errs
		},
	}
	store, err := strategy.NewStore(opts, strategy.Resource[T]{
		Resource: rbacv1.Resource(k.resource), Singular: rbacv1.Resource(k.singular),
		NewObj: k.newObj, NewList: k.newList, Strategy: s,
	})
	if err != nil {
		return nil, err
	}
	return &REST{Store: store}, nil
}

// NewRoles returns the storage of roles.
func NewRoles(opts generic.StoreOptions) (*REST, error) {
	return newREST(opts, kind[*rbacv1.Role]{
		resource: "roles", singular: "role", namespaced: true,
		newObj:   func() runtime.Object { return &rbacv1.Role{} },
		newList:  func() runtime.Object { return &rbacv1.RoleList{} },
		validate: validation.ValidateRole,
	})
}

// NewClusterRoles returns the storage of clusterroles.
func NewClusterRoles(opts generic.StoreOptions) (*REST, error) {
	return newREST(opts, kind[*rbacv1.ClusterRole]{
		resource: "clusterroles", singular: "clusterrole",
		newObj:   func() runtime.Object { return &rbacv1.ClusterRole{} },
		newList:  func() runtime.Object { return &rbacv1.ClusterRoleList{} },
		validate: validation.ValidateClusterRole,
	})
}

// NewRoleBindings returns the storage of rolebindings.
func NewRoleBindings(opts generic.StoreOptions) (*REST, error) {
	return newREST(opts, kind[*rbacv1.RoleBinding]{
		resource: "rolebindings", singular: "rolebinding", namespaced: true,
		newObj:   func() runtime.Object { return &rbacv1.RoleBinding{} },
		newList:  func() runtime.Object { return &rbacv1.RoleBindingList{} },
		validate: validation.ValidateRoleBinding,
		update: func(obj, old *rbacv1.RoleBinding) field.ErrorList {
			return validation.ValidateRoleRefUpdate(obj.RoleRef, old.RoleRef)
		},
	})
}

// NewClusterRoleBindings returns the storage of clusterrolebindings.
func NewClusterRoleBindings(opts generic.StoreOptions) (*REST, error) {
	return newREST(opts, kind[*rbacv1.ClusterRoleBinding]{
		resource: "clusterrolebindings", singular: "clusterrolebinding",
		newObj:   func() runtime.Object { return &rbacv1.ClusterRoleBinding{} },
		newList:  func() runtime.Object { return &rbacv1.ClusterRoleBindingList{} },
		validate: validation.ValidateClusterRoleBinding,
		update: func(obj, old *rbacv1.ClusterRoleBinding) field.ErrorList {
			return validation.ValidateRoleRefUpdate(obj.RoleRef, old.RoleRef)
		},
	})
}

// Provider builds the storage of rbac.authorization.k8s.io/v1.
func Provider() strategy.Group {
	return strategy.NewGroup(rbacv1.SchemeGroupVersion,
		strategy.Served("roles", NewRoles),
		strategy.Served("clusterroles", NewClusterRoles),
		strategy.Served("rolebindings", NewRoleBindings),
		strategy.Served("clusterrolebindings", NewClusterRoleBindings),
	)
}
