// Package errors builds and inspects the API errors a server returns as a
// meta/v1 Status, with Kubernetes' reasons, HTTP codes and messages.
package errors

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

// OptimisticLockErrorMsg is the error detail of an update made with a stale
// resourceVersion; NewConflict wraps it into the message kubectl prints.
const OptimisticLockErrorMsg = "the object has been modified; please apply your changes to the latest version and try again"

// APIStatus is implemented by errors that carry a Status.
type APIStatus interface {
	Status() metav1.Status
}

// StatusError is an error carrying the Status the server returns (or
// returned) for it.
type StatusError struct {
	ErrStatus metav1.Status
}

var (
	_ error     = (*StatusError)(nil)
	_ APIStatus = (*StatusError)(nil)
)

// Error returns the Status message.
func (e *StatusError) Error() string { return e.ErrStatus.Message }

// Status returns the Status to send or that was received.
func (e *StatusError) Status() metav1.Status { return e.ErrStatus }

// DebugError returns a format and arguments printing the whole Status.
func (e *StatusError) DebugError() (string, []any) {
	if out, err := json.MarshalIndent(e.ErrStatus, "", "  "); err == nil {
		return "server response object: %s", []any{string(out)}
	}
	return "server response object: %#v", []any{e.ErrStatus}
}

// failure returns a Failure Status with kind and apiVersion set, ready to
// be written as a response body.
func failure(code int, reason metav1.StatusReason, message string, details *metav1.StatusDetails) *StatusError {
	return &StatusError{ErrStatus: metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Code:     int32(code),
		Reason:   reason,
		Message:  message,
		Details:  details,
	}}
}

// about returns the details naming an object of a resource.
func about(gr schema.GroupResource, name string) *metav1.StatusDetails {
	return &metav1.StatusDetails{Group: gr.Group, Kind: gr.Resource, Name: name}
}

// UnexpectedObjectError is FromObject's error for an object that is not a Status.
type UnexpectedObjectError struct {
	Object runtime.Object
}

// Error describes the object.
func (u *UnexpectedObjectError) Error() string {
	return fmt.Sprintf("unexpected object: %v", u.Object)
}

// unstructured is the part of an unstructured object FromObject reads.
type unstructured interface {
	UnstructuredContent() map[string]any
}

// FromObject returns the StatusError of a *metav1.Status, or of an
// unstructured object of kind Status (apiVersion v1 or meta.k8s.io/v1), and
// an *UnexpectedObjectError for anything else.
func FromObject(obj runtime.Object) error {
	switch t := obj.(type) {
	case *metav1.Status:
		if t != nil {
			return &StatusError{ErrStatus: *t}
		}
	case unstructured:
		content := t.UnstructuredContent()
		if content["kind"] != "Status" {
			break
		}
		raw, err := json.Marshal(content)
		if err != nil {
			return fmt.Errorf("encode unstructured Status: %w", err)
		}
		var status metav1.Status
		if err := json.Unmarshal(raw, &status); err != nil {
			return fmt.Errorf("decode unstructured Status: %w", err)
		}
		if status.APIVersion != "v1" && status.APIVersion != "meta.k8s.io/v1" {
			break
		}
		return &StatusError{ErrStatus: status}
	}
	return &UnexpectedObjectError{Object: obj}
}

// NewNotFound: 404 NotFound, `pods "x" not found`.
func NewNotFound(qualifiedResource schema.GroupResource, name string) *StatusError {
	return failure(http.StatusNotFound, metav1.StatusReasonNotFound,
		fmt.Sprintf("%s %q not found", qualifiedResource, name), about(qualifiedResource, name))
}

// NewAlreadyExists: 409 AlreadyExists, `pods "x" already exists`.
func NewAlreadyExists(qualifiedResource schema.GroupResource, name string) *StatusError {
	return failure(http.StatusConflict, metav1.StatusReasonAlreadyExists,
		fmt.Sprintf("%s %q already exists", qualifiedResource, name), about(qualifiedResource, name))
}

// NewGenerateNameConflict: 409 AlreadyExists when no unique name could be
// generated from generateName; the client may retry after the delay.
func NewGenerateNameConflict(qualifiedResource schema.GroupResource, name string, retryAfterSeconds int) *StatusError {
	d := about(qualifiedResource, name)
	d.RetryAfterSeconds = int32(retryAfterSeconds)
	return failure(http.StatusConflict, metav1.StatusReasonAlreadyExists,
		fmt.Sprintf("%s %q already exists, the server was not able to generate a unique name for the object", qualifiedResource, name), d)
}

// NewUnauthorized: 401 Unauthorized; an empty reason reads "not authorized".
func NewUnauthorized(reason string) *StatusError {
	if reason == "" {
		reason = "not authorized"
	}
	return failure(http.StatusUnauthorized, metav1.StatusReasonUnauthorized, reason, nil)
}

// NewForbidden: 403 Forbidden, `pods "x" is forbidden: <err>`.
func NewForbidden(qualifiedResource schema.GroupResource, name string, err error) *StatusError {
	var message string
	switch {
	case qualifiedResource.Empty():
		message = fmt.Sprintf("forbidden: %v", err)
	case name == "":
		message = fmt.Sprintf("%s is forbidden: %v", qualifiedResource, err)
	default:
		message = fmt.Sprintf("%s %q is forbidden: %v", qualifiedResource, name, err)
	}
	return failure(http.StatusForbidden, metav1.StatusReasonForbidden, message, about(qualifiedResource, name))
}

// NewConflict: 409 Conflict, `Operation cannot be fulfilled on pods "x": <err>`.
// Pass errors.New(OptimisticLockErrorMsg) for a stale resourceVersion.
func NewConflict(qualifiedResource schema.GroupResource, name string, err error) *StatusError {
	return failure(http.StatusConflict, metav1.StatusReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: %v", qualifiedResource, name, err), about(qualifiedResource, name))
}

// NewApplyConflict: 409 Conflict listing the fields other managers own.
func NewApplyConflict(causes []metav1.StatusCause, message string) *StatusError {
	return failure(http.StatusConflict, metav1.StatusReasonConflict, message, &metav1.StatusDetails{Causes: causes})
}

// NewGone: 410 Gone. Prefer NewResourceExpired for stale resourceVersions.
func NewGone(message string) *StatusError {
	return failure(http.StatusGone, metav1.StatusReasonGone, message, nil)
}

// NewResourceExpired: 410 Expired, for a watch or continue token whose
// resourceVersion was compacted; the client relists.
func NewResourceExpired(message string) *StatusError {
	return failure(http.StatusGone, metav1.StatusReasonExpired, message, nil)
}

// NewInvalid: 422 Invalid, `Pod "x" is invalid: spec.containers: Required
// value` for one error or `... is invalid: [a, b]` for several, with one
// cause per field error.
func NewInvalid(qualifiedKind schema.GroupKind, name string, errs field.ErrorList) *StatusError {
	causes := make([]metav1.StatusCause, 0, len(errs))
	for _, e := range errs {
		causes = append(causes, metav1.StatusCause{
			Type:    metav1.CauseType(e.Type),
			Message: e.ErrorBody(),
			Field:   e.Field,
		})
	}
	message := fmt.Sprintf("%s %q is invalid", qualifiedKind, name)
	if agg := errs.ToAggregate(); agg != nil {
		message = fmt.Sprintf("%s: %v", message, agg)
	}
	return failure(http.StatusUnprocessableEntity, metav1.StatusReasonInvalid, message, &metav1.StatusDetails{
		Group:  qualifiedKind.Group,
		Kind:   qualifiedKind.Kind,
		Name:   name,
		Causes: causes,
	})
}

// NewBadRequest: 400 BadRequest with reason as the message.
func NewBadRequest(reason string) *StatusError {
	return failure(http.StatusBadRequest, metav1.StatusReasonBadRequest, reason, nil)
}

// NewTooManyRequests: 429 TooManyRequests with a retry delay.
func NewTooManyRequests(message string, retryAfterSeconds int) *StatusError {
	return failure(http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests, message,
		&metav1.StatusDetails{RetryAfterSeconds: int32(retryAfterSeconds)})
}

// NewTooManyRequestsError: 429 TooManyRequests, "Too many requests: <message>".
func NewTooManyRequestsError(message string) *StatusError {
	return failure(http.StatusTooManyRequests, metav1.StatusReasonTooManyRequests,
		"Too many requests: "+message, nil)
}

// NewServiceUnavailable: 503 ServiceUnavailable with reason as the message.
func NewServiceUnavailable(reason string) *StatusError {
	return failure(http.StatusServiceUnavailable, metav1.StatusReasonServiceUnavailable, reason, nil)
}

// NewMethodNotSupported: 405 MethodNotAllowed,
// `create is not supported on resources of kind "pods/log"`.
func NewMethodNotSupported(qualifiedResource schema.GroupResource, action string) *StatusError {
	return failure(http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed,
		fmt.Sprintf("%s is not supported on resources of kind %q", action, qualifiedResource),
		&metav1.StatusDetails{Group: qualifiedResource.Group, Kind: qualifiedResource.Resource})
}

// NewServerTimeout: 500 ServerTimeout; the client retries after the delay.
func NewServerTimeout(qualifiedResource schema.GroupResource, operation string, retryAfterSeconds int) *StatusError {
	d := about(qualifiedResource, operation)
	d.RetryAfterSeconds = int32(retryAfterSeconds)
	return failure(http.StatusInternalServerError, metav1.StatusReasonServerTimeout,
		fmt.Sprintf("The %s operation against %s could not be completed at this time, please try again.", operation, qualifiedResource), d)
}

// NewServerTimeoutForKind is NewServerTimeout naming a kind instead of a resource.
func NewServerTimeoutForKind(qualifiedKind schema.GroupKind, operation string, retryAfterSeconds int) *StatusError {
	return NewServerTimeout(schema.GroupResource{Group: qualifiedKind.Group, Resource: qualifiedKind.Kind}, operation, retryAfterSeconds)
}

// NewInternalError: 500 InternalError, "Internal error occurred: <err>".
func NewInternalError(err error) *StatusError {
	return failure(http.StatusInternalServerError, metav1.StatusReasonInternalError,
		"Internal error occurred: "+errText(err),
		&metav1.StatusDetails{Causes: []metav1.StatusCause{{Message: errText(err)}}})
}

// errText is err's message, or "<nil>" as fmt prints a nil error.
func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// NewTimeoutError: 504 Timeout, "Timeout: <message>".
func NewTimeoutError(message string, retryAfterSeconds int) *StatusError {
	return failure(http.StatusGatewayTimeout, metav1.StatusReasonTimeout, "Timeout: "+message,
		&metav1.StatusDetails{RetryAfterSeconds: int32(retryAfterSeconds)})
}

// NewRequestEntityTooLargeError: 413 RequestEntityTooLarge,
// "Request entity too large: <message>".
func NewRequestEntityTooLargeError(message string) *StatusError {
	return failure(http.StatusRequestEntityTooLarge, metav1.StatusReasonRequestEntityTooLarge,
		"Request entity too large: "+message, nil)
}

// NewUnsupportedMediaType: 415 UnsupportedMediaType for a request body in a
// content type the endpoint does not take, e.g. a strategic merge patch on
// a custom resource: "the body of the request was in an unknown format -
// accepted media types include: application/json-patch+json, ...".
func NewUnsupportedMediaType(accepted []string) *StatusError {
	return failure(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType,
		"the body of the request was in an unknown format - accepted media types include: "+strings.Join(accepted, ", "), nil)
}

// NewNotAcceptable: 406 NotAcceptable when no media type in Accept can be
// served: "only the following media types are accepted: application/json, ...".
func NewNotAcceptable(accepted []string) *StatusError {
	return failure(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable,
		"only the following media types are accepted: "+strings.Join(accepted, ", "), nil)
}

// NewGenericServerResponse is the client's error for a failed response that
// carried no Status: the reason and message follow from the HTTP code, and
// the verb, resource and name are appended. isUnexpectedResponse adds an
// UnexpectedServerResponse cause holding serverMessage.
func NewGenericServerResponse(code int, verb string, qualifiedResource schema.GroupResource, name, serverMessage string, retryAfterSeconds int, isUnexpectedResponse bool) *StatusError {
	reason, message := genericReasonAndMessage(code, verb, serverMessage)
	switch {
	case !qualifiedResource.Empty() && name != "":
		message = fmt.Sprintf("%s (%s %s %s)", message, strings.ToLower(verb), qualifiedResource, name)
	case !qualifiedResource.Empty():
		message = fmt.Sprintf("%s (%s %s)", message, strings.ToLower(verb), qualifiedResource)
	}
	d := about(qualifiedResource, name)
	d.RetryAfterSeconds = int32(retryAfterSeconds)
	if isUnexpectedResponse {
		d.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeUnexpectedServerResponse, Message: serverMessage}}
	}
	return failure(code, reason, message, d)
}

func genericReasonAndMessage(code int, verb, serverMessage string) (metav1.StatusReason, string) {
	switch code {
	case http.StatusConflict:
		if verb == http.MethodPost {
			return metav1.StatusReasonAlreadyExists, "the server reported a conflict"
		}
		return metav1.StatusReasonConflict, "the server reported a conflict"
	case http.StatusNotFound:
		return metav1.StatusReasonNotFound, "the server could not find the requested resource"
	case http.StatusBadRequest:
		return metav1.StatusReasonBadRequest, "the server rejected our request for an unknown reason"
	case http.StatusUnauthorized:
		return metav1.StatusReasonUnauthorized, "the server has asked for the client to provide credentials"
	case http.StatusForbidden:
		// The server's message says who may not do what: keep it.
		return metav1.StatusReasonForbidden, serverMessage
	case http.StatusNotAcceptable:
		if serverMessage == "" || serverMessage == "unknown" {
			return metav1.StatusReasonNotAcceptable, "the server was unable to respond with a content type that the client supports"
		}
		return metav1.StatusReasonNotAcceptable, serverMessage
	case http.StatusUnsupportedMediaType:
		return metav1.StatusReasonUnsupportedMediaType, serverMessage
	case http.StatusMethodNotAllowed:
		return metav1.StatusReasonMethodNotAllowed, "the server does not allow this method on the requested resource"
	case http.StatusUnprocessableEntity:
		return metav1.StatusReasonInvalid, "the server rejected our request due to an error in our request"
	case http.StatusServiceUnavailable:
		return metav1.StatusReasonServiceUnavailable, "the server is currently unable to handle the request"
	case http.StatusGatewayTimeout:
		return metav1.StatusReasonTimeout, "the server was unable to return a response in the time allotted, but may still be processing the request"
	case http.StatusTooManyRequests:
		return metav1.StatusReasonTooManyRequests, "the server has received too many requests and has asked us to try again later"
	}
	if code >= http.StatusInternalServerError {
		return metav1.StatusReasonInternalError, fmt.Sprintf("an error on the server (%q) has prevented the request from succeeding", serverMessage)
	}
	return metav1.StatusReasonUnknown, fmt.Sprintf("the server responded with the status code %d but did not return more information", code)
}

// ErrorReporter turns stream decoding errors into Status objects for
// watch.StreamWatcher's Error events.
type ErrorReporter struct {
	code   int
	verb   string
	reason string
}

// NewClientErrorReporter returns a reporter answering with code and verb;
// reason (default "ClientError") becomes an extra cause type.
func NewClientErrorReporter(code int, verb string, reason string) *ErrorReporter {
	return &ErrorReporter{code: code, verb: verb, reason: reason}
}

// AsObject returns a *metav1.Status describing err as an unexpected
// server response.
func (r *ErrorReporter) AsObject(err error) runtime.Object {
	status := NewGenericServerResponse(r.code, r.verb, schema.GroupResource{}, "", errText(err), 0, true)
	reason := r.reason
	if reason == "" {
		reason = "ClientError"
	}
	status.ErrStatus.Details.Causes = append(status.ErrStatus.Details.Causes, metav1.StatusCause{
		Type:    metav1.CauseType(reason),
		Message: errText(err),
	})
	return &status.ErrStatus
}

// statusOf finds the Status carried by err or by an error it wraps.
func statusOf(err error) (metav1.Status, bool) {
	var s APIStatus
	if errors.As(err, &s) {
		return s.Status(), true
	}
	return metav1.Status{}, false
}
