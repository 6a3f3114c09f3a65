package errors

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/apimachinery/pkg/util/validation/field"
)

var (
	podsGR        = schema.GroupResource{Resource: "pods"}
	deploymentsGR = schema.GroupResource{Group: "apps", Resource: "deployments"}
)

// predicates are checked against every constructor: exactly the listed ones
// must hold.
var predicates = map[string]func(error) bool{
	"IsNotFound":                   IsNotFound,
	"IsAlreadyExists":              IsAlreadyExists,
	"IsConflict":                   IsConflict,
	"IsInvalid":                    IsInvalid,
	"IsGone":                       IsGone,
	"IsResourceExpired":            IsResourceExpired,
	"IsNotAcceptable":              IsNotAcceptable,
	"IsUnsupportedMediaType":       IsUnsupportedMediaType,
	"IsMethodNotSupported":         IsMethodNotSupported,
	"IsServiceUnavailable":         IsServiceUnavailable,
	"IsBadRequest":                 IsBadRequest,
	"IsUnauthorized":               IsUnauthorized,
	"IsForbidden":                  IsForbidden,
	"IsTimeout":                    IsTimeout,
	"IsServerTimeout":              IsServerTimeout,
	"IsInternalError":              IsInternalError,
	"IsTooManyRequests":            IsTooManyRequests,
	"IsRequestEntityTooLargeError": IsRequestEntityTooLargeError,
	"IsUnexpectedServerError":      IsUnexpectedServerError,
	"IsStoreReadError":             IsStoreReadError,
}

// The expected JSON is what the Kubernetes apiserver sends for each error.
func TestConstructors(t *testing.T) {
	forbidden := errors.New(`User "bob" cannot get resource "pods" in API group "" in the namespace "default"`)
	tests := []struct {
		name     string
		err      *StatusError
		wantCode int
		wantJSON string
		wantIs   []string
	}{
		{
			name: "NotFound", err: NewNotFound(podsGR, "nginx"), wantCode: 404, wantIs: []string{"IsNotFound"},
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"nginx\" not found",
				"reason":"NotFound","details":{"name":"nginx","kind":"pods"},"code":404}`,
		},
		{
			name: "AlreadyExists", err: NewAlreadyExists(deploymentsGR, "web"), wantCode: 409, wantIs: []string{"IsAlreadyExists"},
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deployments.apps \"web\" already exists",
				"reason":"AlreadyExists","details":{"name":"web","group":"apps","kind":"deployments"},"code":409}`,
		},
		{
			name: "GenerateNameConflict", err: NewGenerateNameConflict(podsGR, "web-x7k2p", 1), wantCode: 409, wantIs: []string{"IsAlreadyExists"},
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
				"message":"pods \"web-x7k2p\" already exists, the server was not able to generate a unique name for the object",
				"reason":"AlreadyExists","details":{"name":"web-x7k2p","kind":"pods","retryAfterSeconds":1},"code":409}`,
		},
		{
			name: "Conflict", err: NewConflict(deploymentsGR, "web", errors.New(OptimisticLockErrorMsg)), wantCode: 409, wantIs: []string{"IsConflict"},
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
				"message":"Operation cannot be fulfilled on deployments.apps \"web\": the object has been modified; please apply your changes to the latest version and try again",
				"reason":"Conflict","details":{"name":"web","group":"apps","kind":"deployments"},"code":409}`,
		},
		{
			name: "Invalid one field", wantCode: 422, wantIs: []string{"IsInvalid"},
			err: NewInvalid(schema.GroupKind{Kind: "Pod"}, "x", field.ErrorList{field.Required(field.NewPath("spec", "containers"), "")}),
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
				"message":"Pod \"x\" is invalid: spec.containers: Required value","reason":"Invalid",
				"details":{"name":"x","kind":"Pod","causes":[{"reason":"FieldValueRequired","message":"Required value","field":"spec.containers"}]},"code":422}`,
		},
		{
			name: "Invalid two fields", wantCode: 422, wantIs: []string{"IsInvalid"},
			err: NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "web", field.ErrorList{
				field.Invalid(field.NewPath("spec", "replicas"), int64(-1), "must be greater than or equal to 0"),
				field.Required(field.NewPath("spec", "selector"), ""),
			}),
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
				"message":"Deployment.apps \"web\" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.selector: Required value]",
				"reason":"Invalid","details":{"name":"web","group":"apps","kind":"Deployment","causes":[
				 {"reason":"FieldValueInvalid","message":"Invalid value: -1: must be greater than or equal to 0","field":"spec.replicas"},
				 {"reason":"FieldValueRequired","message":"Required value","field":"spec.selector"}]},"code":422}`,
		},
		{
			name: "Invalid no errors", wantCode: 422, wantIs: []string{"IsInvalid"},
			err: NewInvalid(schema.GroupKind{Kind: "Pod"}, "x", nil),
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Pod \"x\" is invalid",
				"reason":"Invalid","details":{"name":"x","kind":"Pod"},"code":422}`,
		},
		{
			name: "Forbidden", err: NewForbidden(podsGR, "x", forbidden), wantCode: 403, wantIs: []string{"IsForbidden"},
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
				"message":"pods \"x\" is forbidden: User \"bob\" cannot get resource \"pods\" in API group \"\" in the namespace \"default\"",
				"reason":"Forbidden","details":{"name":"x","kind":"pods"},"code":403}`,
		},
		{
			name: "Forbidden list", err: NewForbidden(podsGR, "", forbidden), wantCode: 403, wantIs: []string{"IsForbidden"},
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
				"message":"pods is forbidden: User \"bob\" cannot get resource \"pods\" in API group \"\" in the namespace \"default\"",
				"reason":"Forbidden","details":{"kind":"pods"},"code":403}`,
		},
		{
			name: "Forbidden path", err: NewForbidden(schema.GroupResource{}, "", errors.New(`User "bob" cannot get path "/x"`)), wantCode: 403, wantIs: []string{"IsForbidden"},
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
				"message":"forbidden: User \"bob\" cannot get path \"/x\"","reason":"Forbidden","details":{},"code":403}`,
		},
		{
			name: "Unauthorized", err: NewUnauthorized("Unauthorized"), wantCode: 401, wantIs: []string{"IsUnauthorized"},
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`,
		},
		{
			name: "Unauthorized default", err: NewUnauthorized(""), wantCode: 401, wantIs: []string{"IsUnauthorized"},
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"not authorized","reason":"Unauthorized","code":401}`,
		},
		{
			name: "MethodNotSupported", err: NewMethodNotSupported(schema.GroupResource{Resource: "pods/log"}, "create"), wantCode: 405, wantIs: []string{"IsMethodNotSupported"},
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
				"message":"create is not supported on resources of kind \"pods/log\"","reason":"MethodNotAllowed","details":{"kind":"pods/log"},"code":405}`,
		},
		{
			name: "Gone", err: NewGone("gone"), wantCode: 410, wantIs: []string{"IsGone"},
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"gone","reason":"Gone","code":410}`,
		},
		{
			name: "ResourceExpired", err: NewResourceExpired("too old resource version: 10 (250)"), wantCode: 410, wantIs: []string{"IsResourceExpired"},
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 10 (250)","reason":"Expired","code":410}`,
		},
		{
			name: "BadRequest", err: NewBadRequest(`invalid query parameter limit="x": invalid syntax`), wantCode: 400, wantIs: []string{"IsBadRequest"},
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"invalid query parameter limit=\"x\": invalid syntax","reason":"BadRequest","code":400}`,
		},
		{
			name: "TooManyRequests", err: NewTooManyRequests("please try again later", 1), wantCode: 429, wantIs: []string{"IsTooManyRequests"},
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"please try again later","reason":"TooManyRequests","details":{"retryAfterSeconds":1},"code":429}`,
		},
		{
			name: "TooManyRequestsError", err: NewTooManyRequestsError("limit reached"), wantCode: 429, wantIs: []string{"IsTooManyRequests"},
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Too many requests: limit reached","reason":"TooManyRequests","code":429}`,
		},
		{
			name: "ServerTimeout", err: NewServerTimeout(podsGR, "list", 2), wantCode: 500, wantIs: []string{"IsServerTimeout"},
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
				"message":"The list operation against pods could not be completed at this time, please try again.",
				"reason":"ServerTimeout","details":{"name":"list","kind":"pods","retryAfterSeconds":2},"code":500}`,
		},
		{
			name: "ServerTimeoutForKind", err: NewServerTimeoutForKind(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "create", 0), wantCode: 500, wantIs: []string{"IsServerTimeout"},
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
				"message":"The create operation against Deployment.apps could not be completed at this time, please try again.",
				"reason":"ServerTimeout","details":{"name":"create","group":"apps","kind":"Deployment"},"code":500}`,
		},
		{
			name: "Timeout", err: NewTimeoutError("request did not complete within requested timeout - context deadline exceeded", 0), wantCode: 504, wantIs: []string{"IsTimeout"},
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
				"message":"Timeout: request did not complete within requested timeout - context deadline exceeded","reason":"Timeout","details":{},"code":504}`,
		},
		{
			name: "InternalError", err: NewInternalError(errors.New("etcdserver: request timed out")), wantCode: 500, wantIs: []string{"IsInternalError"},
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Internal error occurred: etcdserver: request timed out",
				"reason":"InternalError","details":{"causes":[{"message":"etcdserver: request timed out"}]},"code":500}`,
		},
		{
			name: "ServiceUnavailable", err: NewServiceUnavailable("apiserver is shutting down"), wantCode: 503, wantIs: []string{"IsServiceUnavailable"},
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"apiserver is shutting down","reason":"ServiceUnavailable","code":503}`,
		},
		{
			name: "RequestEntityTooLarge", err: NewRequestEntityTooLargeError("limit is 3145728"), wantCode: 413, wantIs: []string{"IsRequestEntityTooLargeError"},
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Request entity too large: limit is 3145728","reason":"RequestEntityTooLarge","code":413}`,
		},
		{
			name: "UnsupportedMediaType", wantCode: 415, wantIs: []string{"IsUnsupportedMediaType"},
			err: NewUnsupportedMediaType([]string{"application/json-patch+json", "application/merge-patch+json", "application/apply-patch+yaml"}),
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
				"message":"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml",
				"reason":"UnsupportedMediaType","code":415}`,
		},
		{
			name: "NotAcceptable", wantCode: 406, wantIs: []string{"IsNotAcceptable"},
			err: NewNotAcceptable([]string{"application/json", "application/yaml"}),
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
				"message":"only the following media types are accepted: application/json, application/yaml","reason":"NotAcceptable","code":406}`,
		},
		{
			name: "ApplyConflict", wantCode: 409, wantIs: []string{"IsConflict"},
			err: NewApplyConflict([]metav1.StatusCause{{Type: metav1.CauseTypeFieldManagerConflict, Message: `conflict with "kubectl"`, Field: ".spec.replicas"}},
				`Apply failed with 1 conflict: conflict with "kubectl": .spec.replicas`),
			wantJSON: `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
				"message":"Apply failed with 1 conflict: conflict with \"kubectl\": .spec.replicas","reason":"Conflict",
				"details":{"causes":[{"reason":"FieldManagerConflict","message":"conflict with \"kubectl\"","field":".spec.replicas"}]},"code":409}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want bytes.Buffer
			if err := json.Compact(&want, []byte(tt.wantJSON)); err != nil {
				t.Fatalf("bad expected JSON: %v", err)
			}
			got, err := json.Marshal(tt.err.Status())
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Errorf("Status JSON:\n got %s\nwant %s", got, want.Bytes())
			}
			if int(tt.err.Status().Code) != tt.wantCode {
				t.Errorf("code = %d, want %d", tt.err.Status().Code, tt.wantCode)
			}
			if tt.err.Error() != tt.err.Status().Message {
				t.Errorf("Error() = %q, want the message %q", tt.err.Error(), tt.err.Status().Message)
			}
			checkPredicates(t, tt.err, tt.wantIs)
			checkPredicates(t, fmt.Errorf("update deployment: %w", tt.err), tt.wantIs)
			checkPredicates(t, errors.Join(errors.New("first"), tt.err), tt.wantIs)
		})
	}
}

func checkPredicates(t *testing.T, err error, wantIs []string) {
	t.Helper()
	for name, is := range predicates {
		want := false
		for _, w := range wantIs {
			want = want || w == name
		}
		if got := is(err); got != want {
			t.Errorf("%s(%v) = %v, want %v", name, err, got, want)
		}
	}
}

func TestPredicatesOnOtherErrors(t *testing.T) {
	checkPredicates(t, nil, nil)
	checkPredicates(t, errors.New("plain"), nil)
	if ReasonForError(nil) != metav1.StatusReasonUnknown || ReasonForError(errors.New("x")) != metav1.StatusReasonUnknown {
		t.Error("ReasonForError of a non-status error is not Unknown")
	}
	if got := ReasonForError(fmt.Errorf("x: %w", NewNotFound(podsGR, "a"))); got != metav1.StatusReasonNotFound {
		t.Errorf("ReasonForError(wrapped NotFound) = %q", got)
	}
}

// A Status with no known reason is recognized by its code, as Kubernetes does
// for responses from older or foreign servers; a few predicates go by reason only.
func TestPredicatesByCode(t *testing.T) {
	byCode := map[int32][]string{
		400: {"IsBadRequest"},
		401: {"IsUnauthorized"},
		403: {"IsForbidden"},
		404: {"IsNotFound"},
		405: {"IsMethodNotSupported"},
		406: {"IsNotAcceptable"},
		409: {"IsConflict"},
		410: {"IsGone"},
		413: {"IsRequestEntityTooLargeError"},
		415: {"IsUnsupportedMediaType"},
		422: {"IsInvalid"},
		429: {"IsTooManyRequests"},
		500: {"IsInternalError"},
		503: {"IsServiceUnavailable"},
		504: {"IsTimeout"},
	}
	for code, want := range byCode {
		err := &StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: code, Reason: "SomethingNew"}}
		checkPredicates(t, err, want)
	}
	// A known reason wins over a contradicting code, except for 429 and 413.
	err := &StatusError{ErrStatus: metav1.Status{Code: 404, Reason: metav1.StatusReasonConflict}}
	checkPredicates(t, err, []string{"IsConflict"})
	err = &StatusError{ErrStatus: metav1.Status{Code: 429, Reason: metav1.StatusReasonServiceUnavailable}}
	checkPredicates(t, err, []string{"IsServiceUnavailable", "IsTooManyRequests"})
}

func TestNewGenericServerResponse(t *testing.T) {
	tests := []struct {
		code          int
		verb          string
		gr            schema.GroupResource
		name, message string
		unexpected    bool
		wantReason    metav1.StatusReason
		wantMessage   string
		wantIs        []string
	}{
		{404, "GET", podsGR, "x", "", false, metav1.StatusReasonNotFound,
			"the server could not find the requested resource (get pods x)", []string{"IsNotFound"}},
		{409, "POST", podsGR, "x", "", false, metav1.StatusReasonAlreadyExists,
			"the server reported a conflict (post pods x)", []string{"IsAlreadyExists"}},
		{409, "PUT", deploymentsGR, "", "", false, metav1.StatusReasonConflict,
			"the server reported a conflict (put deployments.apps)", []string{"IsConflict"}},
		{400, "GET", schema.GroupResource{}, "", "", false, metav1.StatusReasonBadRequest,
			"the server rejected our request for an unknown reason", []string{"IsBadRequest"}},
		{401, "GET", schema.GroupResource{}, "", "", false, metav1.StatusReasonUnauthorized,
			"the server has asked for the client to provide credentials", []string{"IsUnauthorized"}},
		{403, "GET", podsGR, "", "no way", false, metav1.StatusReasonForbidden,
			"no way (get pods)", []string{"IsForbidden"}},
		{406, "GET", schema.GroupResource{}, "", "unknown", false, metav1.StatusReasonNotAcceptable,
			"the server was unable to respond with a content type that the client supports", []string{"IsNotAcceptable"}},
		{406, "GET", schema.GroupResource{}, "", "only json", false, metav1.StatusReasonNotAcceptable,
			"only json", []string{"IsNotAcceptable"}},
		{415, "PATCH", schema.GroupResource{}, "", "bad type", false, metav1.StatusReasonUnsupportedMediaType,
			"bad type", []string{"IsUnsupportedMediaType"}},
		{405, "DELETE", schema.GroupResource{}, "", "", false, metav1.StatusReasonMethodNotAllowed,
			"the server does not allow this method on the requested resource", []string{"IsMethodNotSupported"}},
		{422, "POST", schema.GroupResource{}, "", "", false, metav1.StatusReasonInvalid,
			"the server rejected our request due to an error in our request", []string{"IsInvalid"}},
		{503, "GET", schema.GroupResource{}, "", "", false, metav1.StatusReasonServiceUnavailable,
			"the server is currently unable to handle the request", []string{"IsServiceUnavailable"}},
		{504, "GET", schema.GroupResource{}, "", "", false, metav1.StatusReasonTimeout,
			"the server was unable to return a response in the time allotted, but may still be processing the request", []string{"IsTimeout"}},
		{429, "GET", schema.GroupResource{}, "", "", false, metav1.StatusReasonTooManyRequests,
			"the server has received too many requests and has asked us to try again later", []string{"IsTooManyRequests"}},
		{502, "GET", podsGR, "x", "<html>bad gateway</html>", true, metav1.StatusReasonInternalError,
			`an error on the server ("<html>bad gateway</html>") has prevented the request from succeeding (get pods x)`,
			[]string{"IsInternalError", "IsUnexpectedServerError"}},
		{418, "GET", schema.GroupResource{}, "", "", false, metav1.StatusReasonUnknown,
			"the server responded with the status code 418 but did not return more information", nil},
	}
	for _, tt := range tests {
		err := NewGenericServerResponse(tt.code, tt.verb, tt.gr, tt.name, tt.message, 0, tt.unexpected)
		s := err.Status()
		if s.Reason != tt.wantReason || s.Message != tt.wantMessage || int(s.Code) != tt.code {
			t.Errorf("NewGenericServerResponse(%d, %s) = %q %q %d, want %q %q", tt.code, tt.verb, s.Reason, s.Message, s.Code, tt.wantReason, tt.wantMessage)
		}
		if s.Details == nil || s.Details.Name != tt.name || s.Details.Kind != tt.gr.Resource || s.Details.Group != tt.gr.Group {
			t.Errorf("NewGenericServerResponse(%d) details = %+v", tt.code, s.Details)
		}
		checkPredicates(t, err, tt.wantIs)
	}
	err := NewGenericServerResponse(500, "GET", podsGR, "", "boom", 3, true)
	if delay, ok := SuggestsClientDelay(err); !ok || delay != 3 {
		t.Errorf("SuggestsClientDelay = %d, %v", delay, ok)
	}
	if c, ok := StatusCause(err, metav1.CauseTypeUnexpectedServerResponse); !ok || c.Message != "boom" {
		t.Errorf("StatusCause = %+v, %v", c, ok)
	}
	if HasStatusCause(err, metav1.CauseTypeFieldValueInvalid) || HasStatusCause(nil, metav1.CauseTypeUnexpectedServerResponse) {
		t.Error("HasStatusCause found a missing cause")
	}
}

func TestSuggestsClientDelay(t *testing.T) {
	tests := []struct {
		err       error
		wantDelay int
		wantOK    bool
	}{
		{NewServerTimeout(podsGR, "get", 0), 0, true},
		{NewServerTimeout(podsGR, "get", 5), 5, true},
		{fmt.Errorf("wrapped: %w", NewTooManyRequests("slow", 3)), 3, true},
		{NewTooManyRequests("slow", 0), 0, false},
		{NewTimeoutError("t", 2), 2, true},
		{NewNotFound(podsGR, "x"), 0, false},
		{errors.New("plain"), 0, false},
		{nil, 0, false},
	}
	for _, tt := range tests {
		delay, ok := SuggestsClientDelay(tt.err)
		if delay != tt.wantDelay || ok != tt.wantOK {
			t.Errorf("SuggestsClientDelay(%v) = %d, %v; want %d, %v", tt.err, delay, ok, tt.wantDelay, tt.wantOK)
		}
	}
}

// unstructuredObject stands in for an unstructured API object.
type unstructuredObject struct {
	content map[string]any
}

func (u *unstructuredObject) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }
func (u *unstructuredObject) DeepCopyObject() runtime.Object {
	return &unstructuredObject{content: u.content}
}
func (u *unstructuredObject) UnstructuredContent() map[string]any { return u.content }

func TestFromObject(t *testing.T) {
	status := NewNotFound(podsGR, "x").Status()
	err := FromObject(&status)
	if !IsNotFound(err) || err.Error() != `pods "x" not found` {
		t.Errorf("FromObject(*Status) = %v", err)
	}

	u := &unstructuredObject{content: map[string]any{
		"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Expired",
		"message": "too old", "code": int64(410),
	}}
	err = FromObject(u)
	if !IsResourceExpired(err) || err.Error() != "too old" {
		t.Errorf("FromObject(unstructured Status) = %v", err)
	}

	for _, obj := range []runtime.Object{
		&unstructuredObject{content: map[string]any{"kind": "Pod", "apiVersion": "v1"}},
		&unstructuredObject{content: map[string]any{"kind": "Status", "apiVersion": "example.com/v1"}},
		&metav1.Table{},
		(*metav1.Status)(nil),
		nil,
	} {
		err := FromObject(obj)
		if !IsUnexpectedObjectError(err) || !IsUnexpectedObjectError(fmt.Errorf("w: %w", err)) {
			t.Errorf("FromObject(%v) = %v, want an UnexpectedObjectError", obj, err)
		}
		if !strings.HasPrefix(err.Error(), "unexpected object: ") {
			t.Errorf("UnexpectedObjectError text = %q", err)
		}
	}
	if IsUnexpectedObjectError(nil) || IsUnexpectedObjectError(errors.New("x")) {
		t.Error("IsUnexpectedObjectError true for other errors")
	}
}

func TestClientErrorReporter(t *testing.T) {
	obj := NewClientErrorReporter(http.StatusInternalServerError, "GET", "").AsObject(errors.New("bad frame"))
	status, ok := obj.(*metav1.Status)
	if !ok {
		t.Fatalf("AsObject returned %T", obj)
	}
	want := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Code:     500,
		Reason:   metav1.StatusReasonInternalError,
		Message:  `an error on the server ("bad frame") has prevented the request from succeeding`,
		Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{
			{Type: metav1.CauseTypeUnexpectedServerResponse, Message: "bad frame"},
			{Type: "ClientError", Message: "bad frame"},
		}},
	}
	if !reflect.DeepEqual(*status, want) {
		t.Errorf("AsObject = %+v, want %+v", *status, want)
	}
	obj = NewClientErrorReporter(http.StatusInternalServerError, "GET", "WatchDecode").AsObject(errors.New("x"))
	if !HasStatusCause(FromObject(obj), "WatchDecode") {
		t.Errorf("custom reason not a cause: %+v", obj)
	}
}

func TestDebugError(t *testing.T) {
	format, args := NewNotFound(podsGR, "x").DebugError()
	got := fmt.Sprintf(format, args...)
	if !strings.HasPrefix(got, "server response object: {") || !strings.Contains(got, `"reason": "NotFound"`) {
		t.Errorf("DebugError = %q", got)
	}
}

func TestNilErrors(t *testing.T) {
	if got := NewInternalError(nil).Error(); got != "Internal error occurred: <nil>" {
		t.Errorf("NewInternalError(nil) = %q", got)
	}
	obj := NewClientErrorReporter(500, "GET", "").AsObject(nil)
	if !IsInternalError(FromObject(obj)) {
		t.Errorf("AsObject(nil) = %+v", obj)
	}
}
