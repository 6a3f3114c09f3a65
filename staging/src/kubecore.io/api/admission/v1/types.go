package v1

import (
	authenticationv1 "kubecore.io/api/authentication/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/types"
)

// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object

// AdmissionReview is one call to an admission webhook: the API server
// sends Request, the webhook answers with Response.
type AdmissionReview struct {
	metav1.TypeMeta `json:",inline"`
	// Request is what the API server asks about.
	Request *AdmissionRequest `json:"request,omitempty" protobuf:"bytes,1,opt,name=request"`
	// Response is the webhook's verdict.
	Response *AdmissionResponse `json:"response,omitempty" protobuf:"bytes,2,opt,name=response"`
}

// GroupVersionKind names a kind with lowercase JSON fields, as admission
// requests carry it.
type GroupVersionKind struct {
	Group   string `json:"group" protobuf:"bytes,1,opt,name=group"`
	Version string `json:"version" protobuf:"bytes,2,opt,name=version"`
	Kind    string `json:"kind" protobuf:"bytes,3,opt,name=kind"`
}

// GroupVersionResource names a resource with lowercase JSON fields, as
// admission requests carry it.
type GroupVersionResource struct {
	Group    string `json:"group" protobuf:"bytes,1,opt,name=group"`
	Version  string `json:"version" protobuf:"bytes,2,opt,name=version"`
	Resource string `json:"resource" protobuf:"bytes,3,opt,name=resource"`
}

// Operation is the kind of write admitted.
type Operation string

// The operations.
const (
	Create  Operation = "CREATE"
	Update  Operation = "UPDATE"
	Delete  Operation = "DELETE"
	Connect Operation = "CONNECT"
)

// AdmissionRequest describes one write to a webhook.
type AdmissionRequest struct {
	// UID identifies this call; the response must repeat it.
	UID types.UID `json:"uid" protobuf:"bytes,1,opt,name=uid"`
	// Kind is the kind of Object, in the version sent to the webhook.
	Kind GroupVersionKind `json:"kind" protobuf:"bytes,2,opt,name=kind"`
	// Resource is the resource written, in the version sent.
	Resource GroupVersionResource `json:"resource" protobuf:"bytes,3,opt,name=resource"`
	// SubResource is the subresource written ("status"), if any.
	SubResource string `json:"subResource,omitempty" protobuf:"bytes,4,opt,name=subResource"`
	// RequestKind is the kind the client sent.
	RequestKind *GroupVersionKind `json:"requestKind,omitempty" protobuf:"bytes,13,opt,name=requestKind"`
	// RequestResource is the resource the client named.
	RequestResource *GroupVersionResource `json:"requestResource,omitempty" protobuf:"bytes,14,opt,name=requestResource"`
	// RequestSubResource is the subresource the client named.
	RequestSubResource string `json:"requestSubResource,omitempty" protobuf:"bytes,15,opt,name=requestSubResource"`
	// Name of the object; empty on a create whose name is generated.
	Name string `json:"name,omitempty" protobuf:"bytes,5,opt,name=name"`
	// Namespace of the object, if namespaced.
	Namespace string `json:"namespace,omitempty" protobuf:"bytes,6,opt,name=namespace"`
	// Operation is CREATE, UPDATE, DELETE or CONNECT.
	Operation Operation `json:"operation" protobuf:"bytes,7,opt,name=operation"`
	// UserInfo is the requesting user.
	UserInfo authenticationv1.UserInfo `json:"userInfo" protobuf:"bytes,8,opt,name=userInfo"`
	// Object is the new object (not on DELETE).
	Object runtime.RawExtension `json:"object,omitempty" protobuf:"bytes,9,opt,name=object"`
	// OldObject is the stored object (UPDATE, DELETE).
	OldObject runtime.RawExtension `json:"oldObject,omitempty" protobuf:"bytes,10,opt,name=oldObject"`
	// DryRun says the write will not be persisted.
	DryRun *bool `json:"dryRun,omitempty" protobuf:"varint,11,opt,name=dryRun"`
	// Options are the write's CreateOptions, UpdateOptions or DeleteOptions.
	Options runtime.RawExtension `json:"options,omitempty" protobuf:"bytes,12,opt,name=options"`
}

// PatchType names the form of a mutating webhook's patch.
type PatchType string

// PatchTypeJSONPatch is RFC 6902 JSON Patch, the only form there is.
const PatchTypeJSONPatch PatchType = "JSONPatch"

// AdmissionResponse is a webhook's verdict.
type AdmissionResponse struct {
	// UID repeats the request's.
	UID types.UID `json:"uid" protobuf:"bytes,1,opt,name=uid"`
	// Allowed says whether the write may go on.
	Allowed bool `json:"allowed" protobuf:"varint,2,opt,name=allowed"`
	// Result says why a write is refused.
	Result *metav1.Status `json:"status,omitempty" protobuf:"bytes,3,opt,name=status"`
	// Patch is a mutating webhook's change, base64 in JSON.
	Patch []byte `json:"patch,omitempty" protobuf:"bytes,4,opt,name=patch"`
	// PatchType says what Patch is.
	PatchType *PatchType `json:"patchType,omitempty" protobuf:"bytes,5,opt,name=patchType"`
	// AuditAnnotations go to the audit event, each key prefixed with the
	// webhook's name.
	AuditAnnotations map[string]string `json:"auditAnnotations,omitempty" protobuf:"bytes,6,rep,name=auditAnnotations"`
	// Warnings go back to the client as Warning headers.
	// +listType=atomic
	Warnings []string `json:"warnings,omitempty" protobuf:"bytes,7,rep,name=warnings"`
}
