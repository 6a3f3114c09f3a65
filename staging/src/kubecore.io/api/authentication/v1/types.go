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
