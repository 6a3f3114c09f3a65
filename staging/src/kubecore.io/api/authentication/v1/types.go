package v1

import (
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
)

// TokenRequest asks for a token of a service account: it is POSTed to the
// service account's token subresource, which answers with the token in
// the status.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type TokenRequest struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec is what the client asks for.
	Spec TokenRequestSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// Status is filled in by the server: the token and its expiry.
	Status TokenRequestStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// TokenRequestSpec is what a token request asks for.
type TokenRequestSpec struct {
	// Audiences the token is meant for: a recipient accepts it only if it
	// identifies itself by one of them. Empty means the API server's.
	// +listType=atomic
	Audiences []string `json:"audiences" protobuf:"bytes,1,rep,name=audiences"`
	// ExpirationSeconds is the requested lifetime of the token, at least
	// 10 minutes; one hour when not set. The server may give another, so
	// the client reads status.expirationTimestamp.
	ExpirationSeconds *int64 `json:"expirationSeconds" protobuf:"varint,4,opt,name=expirationSeconds"`
	// BoundObjectRef is a Pod or Secret the token is bound to: it is valid
	// only as long as that object exists.
	BoundObjectRef *BoundObjectReference `json:"boundObjectRef" protobuf:"bytes,3,opt,name=boundObjectRef"`
}

// TokenRequestStatus is the issued token.
type TokenRequestStatus struct {
	// Token is the bearer token.
	Token string `json:"token" protobuf:"bytes,1,opt,name=token"`
	// ExpirationTimestamp is when the token expires.
	ExpirationTimestamp metav1.Time `json:"expirationTimestamp" protobuf:"bytes,2,opt,name=expirationTimestamp"`
}

// BoundObjectReference names the object a token is bound to.
type BoundObjectReference struct {
	// Kind of the object: Pod or Secret.
	Kind string `json:"kind,omitempty" protobuf:"bytes,1,opt,name=kind"`
	// APIVersion of the object: v1.
	APIVersion string `json:"apiVersion,omitempty" protobuf:"bytes,2,opt,name=apiVersion"`
	// Name of the object, in the service account's namespace.
	Name string `json:"name,omitempty" protobuf:"bytes,3,opt,name=name"`
	// UID of the object; when set, it must be the object's.
	UID types.UID `json:"uid,omitempty" protobuf:"bytes,4,opt,name=uID"`
}

// TokenReview asks the API server who a bearer token belongs to: the
// answer, from the same authenticators that check requests, comes back in
// the status. Nothing is stored.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type TokenReview struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Spec holds the token to check.
	Spec TokenReviewSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
	// Status is filled in by the server: whether the token is valid, and
	// whose it is.
	Status TokenReviewStatus `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
}

// TokenReviewSpec is the token to check.
type TokenReviewSpec struct {
	// Token is the opaque bearer token.
	Token string `json:"token,omitempty" protobuf:"bytes,1,opt,name=token"`
	// Audiences the caller accepts; when set, a token is valid only if it
	// was issued for one of them, and status.audiences lists those it is
	// valid for. Empty means the API server's own audiences.
	// +listType=atomic
	Audiences []string `json:"audiences,omitempty" protobuf:"bytes,2,rep,name=audiences"`
}

// TokenReviewStatus is the answer about a token.
type TokenReviewStatus struct {
	// Authenticated says the token is valid and names a user.
	Authenticated bool `json:"authenticated,omitempty" protobuf:"varint,1,opt,name=authenticated"`
	// User is whom the token identifies.
	User UserInfo `json:"user,omitempty" protobuf:"bytes,2,opt,name=user"`
	// Audiences are those of spec.audiences (or the API server's) the
	// token is valid for.
	// +listType=atomic
	Audiences []string `json:"audiences,omitempty" protobuf:"bytes,4,rep,name=audiences"`
	// Error says why the token could not be checked, when it could not.
	Error string `json:"error,omitempty" protobuf:"bytes,3,opt,name=error"`
}

// UserInfo is what an authenticator knows of a user.
type UserInfo struct {
	// Username identifies the user among all active users.
	Username string `json:"username,omitempty" protobuf:"bytes,1,opt,name=username"`
	// UID identifies the user across time: a user deleted and made again
	// under the same name has another UID.
	UID string `json:"uid,omitempty" protobuf:"bytes,2,opt,name=uid"`
	// Groups the user belongs to.
	// +listType=atomic
	Groups []string `json:"groups,omitempty" protobuf:"bytes,3,rep,name=groups"`
	// Extra is what else the authenticator tells of the user, which
	// authorizers may use.
	Extra map[string]ExtraValue `json:"extra,omitempty" protobuf:"bytes,4,rep,name=extra"`
}

// ExtraValue holds the values of one extra attribute of a user.
type ExtraValue []string

// SelfSubjectReview asks the API server who the caller is, as its
// authenticators saw it (`kubectl auth whoami`). Nothing is stored.
//
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type SelfSubjectReview struct {
	metav1.TypeMeta `json:",inline"`
	// Standard object metadata.
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`
	// Status is filled in by the server with the caller's user.
	Status SelfSubjectReviewStatus `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
}

// SelfSubjectReviewStatus holds the caller's user.
type SelfSubjectReviewStatus struct {
	// UserInfo is the caller, as authenticated.
	UserInfo UserInfo `json:"userInfo,omitempty" protobuf:"bytes,1,opt,name=userInfo"`
}
