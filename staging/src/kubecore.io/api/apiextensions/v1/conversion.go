package v1

import (
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/types"
)

// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object

// ConversionReview is one call to a conversion webhook: the API server
// sends Request, the webhook answers with Response.
type ConversionReview struct {
	metav1.TypeMeta `json:",inline"`
	Request         *ConversionRequest  `json:"request,omitempty" protobuf:"bytes,1,opt,name=request"`
	Response        *ConversionResponse `json:"response,omitempty" protobuf:"bytes,2,opt,name=response"`
}

// ConversionRequest asks for objects in another apiVersion.
type ConversionRequest struct {
	// UID identifies this call; the response repeats it.
	UID types.UID `json:"uid" protobuf:"bytes,1,opt,name=uid"`
	// DesiredAPIVersion is the apiVersion to convert to ("group/version").
	DesiredAPIVersion string `json:"desiredAPIVersion" protobuf:"bytes,2,opt,name=desiredAPIVersion"`
	// Objects are the objects to convert.
	// +listType=atomic
	Objects []runtime.RawExtension `json:"objects" protobuf:"bytes,3,rep,name=objects"`
}

// ConversionResponse is a conversion webhook's answer.
type ConversionResponse struct {
	// UID repeats the request's.
	UID types.UID `json:"uid" protobuf:"bytes,1,opt,name=uid"`
	// ConvertedObjects are the objects converted, in the request's order.
	// +listType=atomic
	ConvertedObjects []runtime.RawExtension `json:"convertedObjects" protobuf:"bytes,2,rep,name=convertedObjects"`
	// Result says whether the conversion succeeded: status Success, or
	// Failure with a message.
	Result metav1.Status `json:"result" protobuf:"bytes,3,opt,name=result"`
}
