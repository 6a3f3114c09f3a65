// +kubecore:deepcopy-gen=package

// Package v1 holds the rbac.authorization.k8s.io/v1 types: Roles and
// ClusterRoles grant verbs on resources, RoleBindings and
// ClusterRoleBindings grant a role to users, groups and service accounts.
package v1
