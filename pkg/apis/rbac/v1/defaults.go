// Package v1 registers the rbac.authorization.k8s.io/v1 kinds with a
// server's scheme together with the defaults the API server applies to them
// when it decodes a request.
package v1

import (
	rbacv1 "kubecore.io/api/rbac/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

// AddToScheme registers the rbac.authorization.k8s.io/v1 kinds and their
// defaults.
func AddToScheme(s *runtime.Scheme) error {
	if err := rbacv1.AddToScheme(s); err != nil {
		return err
	}
	RegisterDefaults(s)
	return nil
}

// RegisterDefaults adds the rbac/v1 defaulting functions to s.
func RegisterDefaults(s *runtime.Scheme) {
	runtime.AddDefaultingFunc(s, SetDefaultsRoleBinding)
	runtime.AddDefaultingFunc(s, SetDefaultsClusterRoleBinding)
}

// SetDefaultsRoleBinding: a roleRef without an apiGroup refers to the rbac
// group (the only one it may name), and each subject gets its kind's group.
func SetDefaultsRoleBinding(b *rbacv1.RoleBinding) {
	defaultRoleRef(&b.RoleRef)
	defaultSubjects(b.Subjects)
}

// SetDefaultsClusterRoleBinding defaults as SetDefaultsRoleBinding does.
func SetDefaultsClusterRoleBinding(b *rbacv1.ClusterRoleBinding) {
	defaultRoleRef(&b.RoleRef)
	defaultSubjects(b.Subjects)
}

func defaultRoleRef(ref *rbacv1.RoleRef) {
	if ref.APIGroup == "" {
		ref.APIGroup = rbacv1.GroupName
	}
}

// defaultSubjects gives a subject without an apiGroup the group of its
// kind: users and groups belong to the rbac group, service accounts to the
// core group (""). A subject of another kind is left for validation.
func defaultSubjects(subjects []rbacv1.Subject) {
	for i := range subjects {
		s := &subjects[i]
		if s.APIGroup != "" {
			continue
		}
		switch s.Kind {
		case rbacv1.UserKind, rbacv1.GroupKind:
			s.APIGroup = rbacv1.GroupName
		}
	}
}
