package errors

import (
	"errors"
	"net/http"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// The predicates below see through wrapped errors and are false for nil.
// Most also match a Status with no known reason but the right HTTP code, as
// a response from an older or foreign server may carry.

// knownReasons are the reasons that identify an error on their own.
func knownReason(r metav1.StatusReason) bool {
	switch r {
	case metav1.StatusReasonUnauthorized, metav1.StatusReasonForbidden, metav1.StatusReasonNotFound,
		metav1.StatusReasonAlreadyExists, metav1.StatusReasonConflict, metav1.StatusReasonGone,
		metav1.StatusReasonInvalid, metav1.StatusReasonServerTimeout, metav1.StatusReasonStoreReadError,
		metav1.StatusReasonTimeout, metav1.StatusReasonTooManyRequests, metav1.StatusReasonBadRequest,
		metav1.StatusReasonMethodNotAllowed, metav1.StatusReasonNotAcceptable,
		metav1.StatusReasonRequestEntityTooLarge, metav1.StatusReasonUnsupportedMediaType,
		metav1.StatusReasonInternalError, metav1.StatusReasonExpired, metav1.StatusReasonServiceUnavailable:
		return true
	}
	return false
}

// is reports whether err has the reason, or an unknown reason and the code.
func is(err error, reason metav1.StatusReason, code int32) bool {
	s, ok := statusOf(err)
	if !ok {
		return false
	}
	return s.Reason == reason || (!knownReason(s.Reason) && s.Code == code)
}

// IsNotFound: 404 NotFound.
func IsNotFound(err error) bool { return is(err, metav1.StatusReasonNotFound, http.StatusNotFound) }

// IsAlreadyExists: 409 AlreadyExists (by reason only).
func IsAlreadyExists(err error) bool {
	return ReasonForError(err) == metav1.StatusReasonAlreadyExists
}

// IsConflict: 409 Conflict.
func IsConflict(err error) bool { return is(err, metav1.StatusReasonConflict, http.StatusConflict) }

// IsInvalid: 422 Invalid.
func IsInvalid(err error) bool {
	return is(err, metav1.StatusReasonInvalid, http.StatusUnprocessableEntity)
}

// IsGone: 410 Gone.
func IsGone(err error) bool { return is(err, metav1.StatusReasonGone, http.StatusGone) }

// IsResourceExpired: 410 Expired (by reason only).
func IsResourceExpired(err error) bool {
	return ReasonForError(err) == metav1.StatusReasonExpired
}

// IsNotAcceptable: 406 NotAcceptable.
func IsNotAcceptable(err error) bool {
	return is(err, metav1.StatusReasonNotAcceptable, http.StatusNotAcceptable)
}

// IsUnsupportedMediaType: 415 UnsupportedMediaType.
func IsUnsupportedMediaType(err error) bool {
	return is(err, metav1.StatusReasonUnsupportedMediaType, http.StatusUnsupportedMediaType)
}

// IsMethodNotSupported: 405 MethodNotAllowed.
func IsMethodNotSupported(err error) bool {
	return is(err, metav1.StatusReasonMethodNotAllowed, http.StatusMethodNotAllowed)
}

// IsServiceUnavailable: 503 ServiceUnavailable.
func IsServiceUnavailable(err error) bool {
	return is(err, metav1.StatusReasonServiceUnavailable, http.StatusServiceUnavailable)
}

// IsBadRequest: 400 BadRequest.
func IsBadRequest(err error) bool {
	return is(err, metav1.StatusReasonBadRequest, http.StatusBadRequest)
}

// IsUnauthorized: 401 Unauthorized.
func IsUnauthorized(err error) bool {
	return is(err, metav1.StatusReasonUnauthorized, http.StatusUnauthorized)
}

// IsForbidden: 403 Forbidden.
func IsForbidden(err error) bool {
	return is(err, metav1.StatusReasonForbidden, http.StatusForbidden)
}

// IsTimeout: 504 Timeout.
func IsTimeout(err error) bool {
	return is(err, metav1.StatusReasonTimeout, http.StatusGatewayTimeout)
}

// IsServerTimeout: ServerTimeout (by reason only: its 500 is shared).
func IsServerTimeout(err error) bool {
	return ReasonForError(err) == metav1.StatusReasonServerTimeout
}

// IsInternalError: 500 InternalError.
func IsInternalError(err error) bool {
	return is(err, metav1.StatusReasonInternalError, http.StatusInternalServerError)
}

// IsTooManyRequests: 429 TooManyRequests, or code 429 whatever the reason.
func IsTooManyRequests(err error) bool {
	s, ok := statusOf(err)
	return ok && (s.Reason == metav1.StatusReasonTooManyRequests || s.Code == http.StatusTooManyRequests)
}

// IsRequestEntityTooLargeError: 413 RequestEntityTooLarge, or code 413
// whatever the reason.
func IsRequestEntityTooLargeError(err error) bool {
	s, ok := statusOf(err)
	return ok && (s.Reason == metav1.StatusReasonRequestEntityTooLarge || s.Code == http.StatusRequestEntityTooLarge)
}

// IsStoreReadError: the stored object could not be read or decoded.
func IsStoreReadError(err error) bool {
	return ReasonForError(err) == metav1.StatusReasonStoreReadError
}

// IsUnexpectedServerError reports whether the response was not a Status,
// which may mean another HTTP server answered.
func IsUnexpectedServerError(err error) bool {
	return HasStatusCause(err, metav1.CauseTypeUnexpectedServerResponse)
}

// IsUnexpectedObjectError reports whether err is FromObject's error for a non-Status.
func IsUnexpectedObjectError(err error) bool {
	_, ok := errors.AsType[*UnexpectedObjectError](err)
	return ok
}

// HasStatusCause reports whether err's Status has a cause of the given type.
func HasStatusCause(err error, name metav1.CauseType) bool {
	_, ok := StatusCause(err, name)
	return ok
}

// StatusCause returns the first cause of the given type in err's Status.
func StatusCause(err error, name metav1.CauseType) (metav1.StatusCause, bool) {
	s, ok := statusOf(err)
	if !ok || s.Details == nil {
		return metav1.StatusCause{}, false
	}
	for _, c := range s.Details.Causes {
		if c.Type == name {
			return c, true
		}
	}
	return metav1.StatusCause{}, false
}

// SuggestsClientDelay returns the delay err's Status asks for: always for
// ServerTimeout, otherwise when retryAfterSeconds is positive.
func SuggestsClientDelay(err error) (int, bool) {
	s, ok := statusOf(err)
	if !ok || s.Details == nil {
		return 0, false
	}
	if s.Reason == metav1.StatusReasonServerTimeout || s.Details.RetryAfterSeconds > 0 {
		return int(s.Details.RetryAfterSeconds), true
	}
	return 0, false
}

// ReasonForError returns the reason of err's Status, or StatusReasonUnknown.
func ReasonForError(err error) metav1.StatusReason {
	s, _ := statusOf(err)
	return s.Reason
}
