package v1

import (
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// ResourceAttributes describe a request on a resource.
type ResourceAttributes struct {
	// Namespace of the object; "" for cluster-scoped resources or every
	// namespace.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,1,opt,name=namespace"`
	// Verb: get, list, watch, create, update, patch, delete, ...
	Verb string `json:"verb,omitempty" protobuf:"bytes,2,opt,name=verb"`
	// Group of the resource; "" is the core group.
	Group string `json:"group,omitempty" protobuf:"bytes,3,opt,name=group"`
	// Version of the resource.
	Version string `json:"version,omitempty" protobuf:"bytes,4,opt,name=version"`
	// Resource: pods, deployments, ...
	Resource string `json:"resource,omitempty" protobuf:"bytes,5,opt,name=resource"`
	// Subresource: status, log, scale, ...
	Subresource string `json:"subresource,omitempty" protobuf:"bytes,6,opt,name=subresource"`
	// Name of the object; "" for every object.
	Name string `json:"name,omitempty" protobuf:"bytes,7,opt,name=name"`
}

// NonResourceAttributes describe a request on a path that is no resource.
type NonResourceAttributes struct {
	// Path of the request, e.g. /healthz.
	Path string `json:"path,omitempty" protobuf:"bytes,1,opt,name=path"`
	// Verb: get, post, put, ...
	Verb string `json:"verb,omitempty" protobuf:"bytes,2,opt,name=verb"`
}

// ExtraValue holds the values of one extra attribute of a user.
type ExtraValue []string

// SubjectAccessReviewSpec is the request to check: exactly one of
// ResourceAttributes and NonResourceAttributes, and who makes it.
type SubjectAccessReviewSpec struct {
	// ResourceAttributes of a resource request.
	ResourceAttributes *ResourceAttributes `json:"resourceAttributes,omitempty" protobuf:"bytes,1,opt,name=resourceAttributes"`
	// NonResourceAttributes of a non-resource request.
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty" protobuf:"bytes,2,opt,name=nonResourceAttributes"`
	// User making the request.
	User string `json:"user,omitempty" protobuf:"bytes,3,opt,name=user"`
	// Groups of the user.
	// +listType=atomic
	Groups []string `json:"groups,omitempty" protobuf:"bytes,4,rep,name=groups"`
	// Extra attributes of the user.
	Extra map[string]ExtraValue `json:"extra,omitempty" protobuf:"bytes,5,rep,name=extra"`
	// UID of the user.
	UID string `json:"uid,omitempty" protobuf:"bytes,6,opt,name=uid"`
}

// SubjectAccessReviewStatus is the answer.
type SubjectAccessReviewStatus struct {
	// Allowed says whether the request would be allowed.
	Allowed bool `json:"allowed" protobuf:"varint,1,opt,name=allowed"`
	// Denied says whether it would be explicitly denied.
	Denied bool `json:"denied,omitempty" protobuf:"varint,4,opt,name=denied"`
	// Reason explains the answer.
	Reason string `json:"reason,omitempty" protobuf:"bytes,2,opt,name=reason"`
	// EvaluationError says what went wrong while checking, if anything.
	EvaluationError string `json:"evaluationError,omitempty" protobuf:"bytes,3,opt,name=evaluationError"`
}

// SubjectAccessReview asks whether a given user may make a request.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type SubjectAccessReview struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the request to check.
	Spec SubjectAccessReviewSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// Status is filled in by the server.
	Status SubjectAccessReviewStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// SelfSubjectAccessReviewSpec is a request the caller itself would make.
type SelfSubjectAccessReviewSpec struct {
	// ResourceAttributes of a resource request.
	ResourceAttributes *ResourceAttributes `json:"resourceAttributes,omitempty" protobuf:"bytes,1,opt,name=resourceAttributes"`
	// NonResourceAttributes of a non-resource request.
	NonResourceAttributes *NonResourceAttributes `json:"nonResourceAttributes,omitempty" protobuf:"bytes,2,opt,name=nonResourceAttributes"`
}

// SelfSubjectAccessReview asks whether the caller may make a request.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type SelfSubjectAccessReview struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the request to check.
	Spec SelfSubjectAccessReviewSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// Status is filled in by the server.
	Status SubjectAccessReviewStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// SelfSubjectRulesReviewSpec names the namespace whose rules to list.
type SelfSubjectRulesReviewSpec struct {
	// Namespace to evaluate the rules in.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,1,opt,name=namespace"`
}

// ResourceRule is what the caller may do on resources.
type ResourceRule struct {
	// Verbs allowed.
	// +listType=atomic
	Verbs []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	// APIGroups of the resources.
	// +listType=atomic
	APIGroups []string `json:"apiGroups,omitempty" protobuf:"bytes,2,rep,name=apiGroups"`
	// Resources allowed.
	// +listType=atomic
	Resources []string `json:"resources,omitempty" protobuf:"bytes,3,rep,name=resources"`
	// ResourceNames the rule is limited to.
	// +listType=atomic
	ResourceNames []string `json:"resourceNames,omitempty" protobuf:"bytes,4,rep,name=resourceNames"`
}

// NonResourceRule is what the caller may do on non-resource URLs.
type NonResourceRule struct {
	// Verbs allowed.
	// +listType=atomic
	Verbs []string `json:"verbs" protobuf:"bytes,1,rep,name=verbs"`
	// NonResourceURLs allowed.
	// +listType=atomic
	NonResourceURLs []string `json:"nonResourceURLs,omitempty" protobuf:"bytes,2,rep,name=nonResourceURLs"`
}

// SubjectRulesReviewStatus lists the rules.
type SubjectRulesReviewStatus struct {
	// ResourceRules on resources.
	// +listType=atomic
	ResourceRules []ResourceRule `json:"resourceRules" protobuf:"bytes,1,rep,name=resourceRules"`
	// NonResourceRules on non-resource URLs.
	// +listType=atomic
	NonResourceRules []NonResourceRule `json:"nonResourceRules" protobuf:"bytes,2,rep,name=nonResourceRules"`
	// Incomplete is set when some rules could not be evaluated.
	Incomplete bool `json:"incomplete" protobuf:"varint,3,opt,name=incomplete"`
	// EvaluationError says what could not be evaluated.
	EvaluationError string `json:"evaluationError,omitempty" protobuf:"bytes,4,opt,name=evaluationError"`
}

// SelfSubjectRulesReview lists what the caller may do in a namespace.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type SelfSubjectRulesReview struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec names the namespace.
	Spec SelfSubjectRulesReviewSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// Status is filled in by the server.
	Status SubjectRulesReviewStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// LocalSubjectAccessReview asks whether a given user may make a request
// in one namespace: it is created in that namespace, and its resource
// attributes must name the same one. Namespace administrators may be
// granted it without the cluster-wide SubjectAccessReview.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type LocalSubjectAccessReview struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is the request to check; spec.resourceAttributes.namespace must
	// be empty or the review's namespace, and nonResourceAttributes unset.
	Spec SubjectAccessReviewSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// Status is filled in by the server.
	Status SubjectAccessReviewStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}
