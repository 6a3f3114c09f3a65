package v1

import "kubecore.io/apimachinery/pkg/types"

// Status is the body of every API error and of a successful DELETE that
// returns no object. It is served as kind Status, apiVersion v1.
// +kubecore:deepcopy-gen:interfaces=kubecore.io/apimachinery/pkg/runtime.Object
type Status struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	// Status is StatusSuccess or StatusFailure.
	Status string `json:"status,omitempty" protobuf:"bytes,2,opt,name=status"`
	// Message is the human-readable description kubectl prints.
	Message string `json:"message,omitempty" protobuf:"bytes,3,opt,name=message"`
	// Reason is the machine-readable cause of a Failure.
	Reason StatusReason `json:"reason,omitempty" protobuf:"bytes,4,opt,name=reason"`
	// Details names the object concerned and the causes.
	Details *StatusDetails `json:"details,omitempty" protobuf:"bytes,5,opt,name=details"`
	// Code is the HTTP status code of the response.
	Code int32 `json:"code,omitempty" protobuf:"varint,6,opt,name=code"`
}

// StatusDetails names the object a Status is about and lists its causes.
type StatusDetails struct {
	// Name of the object, when there is one.
	Name string `json:"name,omitempty" protobuf:"bytes,1,opt,name=name"`
	// Group of the object's resource or kind.
	Group string `json:"group,omitempty" protobuf:"bytes,2,opt,name=group"`
	// Kind holds the resource (e.g. "pods") for most errors and the kind
	// (e.g. "Pod") for Invalid, as Kubernetes does.
	Kind string `json:"kind,omitempty" protobuf:"bytes,3,opt,name=kind"`
	// UID of the object, when known.
	UID types.UID `json:"uid,omitempty" protobuf:"bytes,6,opt,name=uid"`
	// Causes are the individual problems, one per field for Invalid.
	Causes []StatusCause `json:"causes,omitempty" protobuf:"bytes,4,rep,name=causes"`
	// RetryAfterSeconds suggests how long the client waits before retrying.
	RetryAfterSeconds int32 `json:"retryAfterSeconds,omitempty" protobuf:"varint,5,opt,name=retryAfterSeconds"`
}

// The values of Status.Status.
const (
	StatusSuccess = "Success"
	StatusFailure = "Failure"
)

// StatusReason is the machine-readable reason of a failed request. Each maps
// to one HTTP status code; several reasons may share a code.
type StatusReason string

// The reasons Kubernetes returns, with their HTTP status codes.
const (
	// StatusReasonUnknown: no reason given (500).
	StatusReasonUnknown StatusReason = ""
	// StatusReasonUnauthorized: credentials missing or rejected (401).
	StatusReasonUnauthorized StatusReason = "Unauthorized"
	// StatusReasonForbidden: the user may not perform the action (403).
	StatusReasonForbidden StatusReason = "Forbidden"
	// StatusReasonNotFound: the object or resource does not exist (404).
	StatusReasonNotFound StatusReason = "NotFound"
	// StatusReasonAlreadyExists: an object of that name exists (409).
	StatusReasonAlreadyExists StatusReason = "AlreadyExists"
	// StatusReasonConflict: the write lost an optimistic-concurrency race (409).
	StatusReasonConflict StatusReason = "Conflict"
	// StatusReasonGone: the item is no longer available (410).
	StatusReasonGone StatusReason = "Gone"
	// StatusReasonInvalid: the object failed validation; causes list fields (422).
	StatusReasonInvalid StatusReason = "Invalid"
	// StatusReasonServerTimeout: the server could not finish in time; retry (500).
	StatusReasonServerTimeout StatusReason = "ServerTimeout"
	// StatusReasonStoreReadError: the stored data could not be read (500).
	StatusReasonStoreReadError StatusReason = "StorageReadError"
	// StatusReasonTimeout: the request's own timeout expired (504).
	StatusReasonTimeout StatusReason = "Timeout"
	// StatusReasonTooManyRequests: rate limited; wait retryAfterSeconds (429).
	StatusReasonTooManyRequests StatusReason = "TooManyRequests"
	// StatusReasonBadRequest: the request can never succeed as sent (400).
	StatusReasonBadRequest StatusReason = "BadRequest"
	// StatusReasonMethodNotAllowed: the verb is not supported on the resource (405).
	StatusReasonMethodNotAllowed StatusReason = "MethodNotAllowed"
	// StatusReasonNotAcceptable: no acceptable response media type (406).
	StatusReasonNotAcceptable StatusReason = "NotAcceptable"
	// StatusReasonRequestEntityTooLarge: the body is too large (413).
	StatusReasonRequestEntityTooLarge StatusReason = "RequestEntityTooLarge"
	// StatusReasonUnsupportedMediaType: the body's content type is not accepted (415).
	StatusReasonUnsupportedMediaType StatusReason = "UnsupportedMediaType"
	// StatusReasonInternalError: an unexpected server error (500).
	StatusReasonInternalError StatusReason = "InternalError"
	// StatusReasonExpired: the requested resourceVersion or continue token
	// is too old (410).
	StatusReasonExpired StatusReason = "Expired"
	// StatusReasonServiceUnavailable: try again later (503).
	StatusReasonServiceUnavailable StatusReason = "ServiceUnavailable"
)

// StatusCause is one problem behind a failed request.
type StatusCause struct {
	// Type is the machine-readable cause; it is "reason" on the wire.
	Type CauseType `json:"reason,omitempty" protobuf:"bytes,1,opt,name=reason"`
	// Message is the human-readable cause.
	Message string `json:"message,omitempty" protobuf:"bytes,2,opt,name=message"`
	// Field is the JSON path of the offending field, e.g. "spec.containers[0].name".
	Field string `json:"field,omitempty" protobuf:"bytes,3,opt,name=field"`
}

// CauseType is the machine-readable type of a StatusCause. The FieldValue*
// values equal the field.ErrorType of a validation error.
type CauseType string

// The cause types Kubernetes defines.
const (
	CauseTypeFieldValueNotFound       CauseType = "FieldValueNotFound"
	CauseTypeFieldValueRequired       CauseType = "FieldValueRequired"
	CauseTypeFieldValueDuplicate      CauseType = "FieldValueDuplicate"
	CauseTypeFieldValueInvalid        CauseType = "FieldValueInvalid"
	CauseTypeFieldValueNotSupported   CauseType = "FieldValueNotSupported"
	CauseTypeForbidden                CauseType = "FieldValueForbidden"
	CauseTypeTooLong                  CauseType = "FieldValueTooLong"
	CauseTypeTooShort                 CauseType = "FieldValueTooShort"
	CauseTypeTooMany                  CauseType = "FieldValueTooMany"
	CauseTypeTooFew                   CauseType = "FieldValueTooFew"
	CauseTypeInternal                 CauseType = "InternalError"
	CauseTypeTypeInvalid              CauseType = "FieldValueTypeInvalid"
	CauseTypeUnexpectedServerResponse CauseType = "UnexpectedServerResponse"
	CauseTypeFieldManagerConflict     CauseType = "FieldManagerConflict"
	CauseTypeResourceVersionTooLarge  CauseType = "ResourceVersionTooLarge"
)
