package cmdutil

import (
	"errors"
	"fmt"
	"testing"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

func TestErrorMessage(t *testing.T) {
	notFound := apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, "x")
	invalid := &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Reason: metav1.StatusReasonInvalid, Message: "ignored",
		Details: &metav1.StatusDetails{Kind: "ConfigMap", Name: "c", Causes: []metav1.StatusCause{
			{Field: "metadata.name", Message: "Invalid value: \"C\": bad"},
		}},
	}}
	invalidTwo := &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Reason: metav1.StatusReasonInvalid,
		Details: &metav1.StatusDetails{Kind: "Service", Name: "s", Causes: []metav1.StatusCause{
			{Field: "spec.ports[0].port", Message: "Required value"}, {Field: "spec.type", Message: "Unsupported value"},
		}},
	}}
	invalidNoDetails := &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Reason: metav1.StatusReasonInvalid, Message: "the JSON patch could not be applied",
		Details: &metav1.StatusDetails{},
	}}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{name: "not found", err: notFound, want: `Error from server (NotFound): pods "x" not found`},
		{name: "with source", err: AddSourceToErr("creating", "f.yaml", apierrors.NewAlreadyExists(schema.GroupResource{Resource: "configmaps"}, "c")),
			want: `Error from server (AlreadyExists): error when creating "f.yaml": configmaps "c" already exists`},
		{name: "invalid, one cause", err: invalid, want: `The ConfigMap "c" is invalid: metadata.name: Invalid value: "C": bad`},
		{name: "invalid, causes", err: invalidTwo, want: "The Service \"s\" is invalid: \n* spec.ports[0].port: Required value\n* spec.type: Unsupported value"},
		{name: "invalid, no details", err: invalidNoDetails, want: "The request is invalid: the JSON patch could not be applied"},
		{name: "wrapped server error is ours", err: fmt.Errorf("failed to create configmap: %w", notFound), want: `error: failed to create configmap: pods "x" not found`},
		{name: "plain", err: errors.New(`the server doesn't have a resource type "podz"`), want: `error: the server doesn't have a resource type "podz"`},
		{name: "joined, repeated once", err: errors.Join(notFound, notFound, errors.New("boom")), want: "Error from server (NotFound): pods \"x\" not found\nboom"},
		{name: "joined, one", err: errors.Join(nil, errors.Join(errors.New("boom"))), want: "error: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ErrorMessage(tt.err); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestSuggest(t *testing.T) {
	verbs := []string{"get", "set", "delete", "describe", "apply", "api-resources"}
	for in, want := range map[string]string{"gett": "get,set", "delet": "delete", "describ": "describe", "api": "api-resources", "aply": "apply", "zzz": ""} {
		got := ""
		for i, s := range Suggest(in, verbs) {
			if i > 0 {
				got += ","
			}
			got += s
		}
		if got != want {
			t.Errorf("Suggest(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseRequestTimeout(t *testing.T) {
	for in, want := range map[string]string{"": "0s", "0": "0s", "5": "5s", "1m": "1m0s", "250ms": "250ms"} {
		got, err := ParseRequestTimeout(in)
		if err != nil || got.String() != want {
			t.Errorf("ParseRequestTimeout(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"-1", "abc", "-2s"} {
		if _, err := ParseRequestTimeout(bad); err == nil {
			t.Errorf("ParseRequestTimeout(%q) should fail", bad)
		}
	}
}
