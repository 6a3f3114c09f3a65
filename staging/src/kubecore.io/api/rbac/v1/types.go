package v1

import (
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// Wildcards and kinds that rules and subjects use.
const (
	// VerbAll, APIGroupAll, ResourceAll and NonResourceAll match anything.
	VerbAll        = "*"
	APIGroupAll    = "*"
	ResourceAll    = "*"
	NonResourceAll = "*"

	// Subject kinds.
	UserKind           = "User"
	GroupKind          = "Group"
	ServiceAccountKind = "ServiceAccount"
)

// PolicyRule grants verbs on resources of API groups, optionally only on
// the named objects, or verbs on non-resource URLs such as /healthz.
type PolicyRule struct {
	// Verbs granted: get, list, watch, create, update, patch, delete,
	// deletecollection, or "*" for all.
	// +listType=atomic
	Verbs []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	// API groups of the resources; "" is the core group, "*" all groups.
	// +listType=atomic
	APIGroups []string `json:"apiGroups,omitempty" protobuf:"bytes,2,rep,name=apiGroups"`
	// Resources granted ("pods", "pods/log" for a subresource, "*" for all).
	// +listType=atomic
	Resources []string `json:"resources,omitempty" protobuf:"bytes,3,rep,name=resources"`
	// ResourceNames narrows the rule to objects of these names.
	// +listType=atomic
	ResourceNames []string `json:"resourceNames,omitempty" protobuf:"bytes,4,rep,name=resourceNames"`
	// NonResourceURLs are paths ("/healthz", "/api/*") a ClusterRole may
	// grant; a rule has either resources or these, not both.
	// +listType=atomic
	NonResourceURLs []string `json:"nonResourceURLs,omitempty" protobuf:"bytes,5,rep,name=nonResourceURLs"`
}

// Subject is who a binding grants its role to: a User, a Group or a
// ServiceAccount (in Namespace).
// +structType=atomic
type Subject struct {
	// Kind is User, Group or ServiceAccount.
	Kind string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	// APIGroup is rbac.authorization.k8s.io for users and groups, "" for
	// service accounts.
	APIGroup string `json:"apiGroup,omitempty" protobuf:"bytes,2,opt,name=apiGroup"`
	// Name of the user, group or service account.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
	// Namespace of a service account.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,4,opt,name=namespace"`
}

// RoleRef names the Role or ClusterRole a binding grants. It cannot
// change after the binding is created.
// +structType=atomic
type RoleRef struct {
	// APIGroup is rbac.authorization.k8s.io.
	APIGroup string `json:"apiGroup" protobuf:"bytes,1,opt,name=apiGroup"`
	// Kind is Role or ClusterRole.
	Kind string `json:"kind" protobuf:"bytes,2,opt,name=kind"`
	// Name of the role.
	Name string `json:"name" protobuf:"bytes,3,opt,name=name"`
}

// Role is a set of rules within one namespace.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Role struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Rules granted by the role.
	// +listType=atomic
	Rules []PolicyRule `json:"rules" protobuf:"bytes,2,rep,name=rules"`
}

// RoleList is a list of Roles.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type RoleList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the roles.
	Items []Role `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ClusterRole is a set of rules valid in every namespace, on
// cluster-scoped resources and on non-resource URLs.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ClusterRole struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Rules granted by the role.
	// +listType=atomic
	Rules []PolicyRule `json:"rules" protobuf:"bytes,2,rep,name=rules"`
}

// ClusterRoleList is a list of ClusterRoles.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ClusterRoleList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the cluster roles.
	Items []ClusterRole `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// RoleBinding grants a Role, or a ClusterRole's rules, to subjects within
// its own namespace.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type RoleBinding struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Subjects receiving the role.
	// +listType=atomic
	Subjects []Subject `json:"subjects,omitempty" protobuf:"bytes,2,rep,name=subjects"`
	// RoleRef is the role granted.
	RoleRef RoleRef `json:"roleRef" protobuf:"bytes,3,opt,name=roleRef"`
}

// RoleBindingList is a list of RoleBindings.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type RoleBindingList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the role bindings.
	Items []RoleBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}

// ClusterRoleBinding grants a ClusterRole to subjects in every namespace.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ClusterRoleBinding struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Subjects receiving the role.
	// +listType=atomic
	Subjects []Subject `json:"subjects,omitempty" protobuf:"bytes,2,rep,name=subjects"`
	// RoleRef is the ClusterRole granted.
	RoleRef RoleRef `json:"roleRef" protobuf:"bytes,3,opt,name=roleRef"`
}

// ClusterRoleBindingList is a list of ClusterRoleBindings.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type ClusterRoleBindingList struct {
	metav1.TypeMeta `json:",inline"`
	// Standard list metadata.
	metav1.ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Items are the cluster role bindings.
	Items []ClusterRoleBinding `json:"items" protobuf:"bytes,2,rep,name=items"`
}
