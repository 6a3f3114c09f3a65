package apiserver

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// wantInvalid checks err is nil when msg is empty, else a 422 Invalid
// whose message is msg.
func wantInvalid(t *testing.T, name string, err error, msg string) {
	t.Helper()
	if msg == "" {
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		return
	}
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		t.Errorf("%s: error %v, want a 422 Status", name, err)
		return
	}
	st := se.ErrStatus
	if st.Code != http.StatusUnprocessableEntity || st.Reason != metav1.StatusReasonInvalid || st.Details == nil || st.Details.Group != metav1.GroupName {
		t.Errorf("%s: %d %s %+v, want 422 Invalid in group meta.k8s.io", name, st.Code, st.Reason, st.Details)
	}
	if st.Message != msg {
		t.Errorf("%s: message\n%q, want\n%q", name, st.Message, msg)
	}
}

// TestWriteOptions: dryRun, fieldManager and fieldValidation are checked
// as Kubernetes checks them, 422 Invalid on the options kind.
func TestWriteOptions(t *testing.T) {
	tests := []struct {
		name, kind, manager, validation string
		dryRun                          []string
		directive                       string
		msg                             string
	}{
		{name: "defaults", kind: "CreateOptions", directive: fieldValidationWarn},
		{name: "dry run and strict", kind: "CreateOptions", dryRun: []string{"All"}, validation: "Strict", directive: fieldValidationStrict},
		{name: "ignore", kind: "PatchOptions", validation: "Ignore", directive: fieldValidationIgnore},
		{name: "unknown dry run", kind: "CreateOptions", dryRun: []string{"Some"},
			msg: `CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Some"]: supported values: "All"`},
		{name: "unknown field validation", kind: "UpdateOptions", validation: "Loose",
			msg: `UpdateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"`},
		{name: "long field manager", kind: "PatchOptions", manager: strings.Repeat("m", 129),
			msg: `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Too long: may not be more than 128 bytes`},
		{name: "unprintable field manager", kind: "CreateOptions", manager: "a\x01",
			msg: `CreateOptions.meta.k8s.io "" is invalid: fieldManager: Invalid value: "a\x01": invalid character U+0001 (at position 1)`},
	}
	for _, tt := range tests {
		got, err := writeOptions(tt.kind, tt.dryRun, tt.manager, tt.validation)
		wantInvalid(t, tt.name, err, tt.msg)
		if tt.msg == "" && got != tt.directive {
			t.Errorf("%s: directive %q, want %q", tt.name, got, tt.directive)
		}
	}
}

func TestValidateDeleteOptions(t *testing.T) {
	policy := func(p metav1.DeletionPropagation) *metav1.DeletionPropagation { return &p }
	orphan := true
	tests := []struct {
		name string
		opts metav1.DeleteOptions
		msg  string
	}{
		{name: "empty"},
		{name: "background", opts: metav1.DeleteOptions{PropagationPolicy: policy(metav1.DeletePropagationBackground), DryRun: []string{"All"}}},
		{name: "unknown policy", opts: metav1.DeleteOptions{PropagationPolicy: policy("Sideways")},
			msg: `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"`},
		{name: "policy and orphanDependents", opts: metav1.DeleteOptions{PropagationPolicy: policy(metav1.DeletePropagationOrphan), OrphanDependents: &orphan},
			msg: `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Orphan": orphanDependents and deletionPropagation cannot be both set`},
		{name: "unknown dry run", opts: metav1.DeleteOptions{DryRun: []string{"x"}},
			msg: `DeleteOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["x"]: supported values: "All"`},
	}
	for _, tt := range tests {
		wantInvalid(t, tt.name, validateDeleteOptions(&tt.opts), tt.msg)
	}
}

func TestValidateListOptions(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name string
		opts rest.ListOptions
		msg  string
	}{
		{name: "none"},
		{name: "exact", opts: rest.ListOptions{ResourceVersion: "5", ResourceVersionMatch: metav1.ResourceVersionMatchExact}},
		{name: "not older than", opts: rest.ListOptions{ResourceVersion: "0", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}},
		{name: "unknown match", opts: rest.ListOptions{ResourceVersion: "5", ResourceVersionMatch: "Newest"},
			msg: `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""`},
		{name: "match without resourceVersion", opts: rest.ListOptions{ResourceVersionMatch: metav1.ResourceVersionMatchExact},
			msg: `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`},
		{name: "match with continue", opts: rest.ListOptions{ResourceVersion: "5", Continue: "x", ResourceVersionMatch: metav1.ResourceVersionMatchExact},
			msg: `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided`},
		{name: "exact at 0", opts: rest.ListOptions{ResourceVersion: "0", ResourceVersionMatch: metav1.ResourceVersionMatchExact},
			msg: `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`},
		{name: "watch with match", opts: rest.ListOptions{Watch: true, ResourceVersion: "5", ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan},
			msg: `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided`},
		{name: "watch list", opts: rest.ListOptions{Watch: true, SendInitialEvents: &yes, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}},
		{name: "watch list from 0", opts: rest.ListOptions{Watch: true, ResourceVersion: "0", SendInitialEvents: &yes, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}},
		{name: "watch without initial events", opts: rest.ListOptions{Watch: true, ResourceVersion: "7", SendInitialEvents: &no, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}},
		{name: "watch list without match", opts: rest.ListOptions{Watch: true, SendInitialEvents: &yes},
			msg: `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan`},
		{name: "watch list exact", opts: rest.ListOptions{Watch: true, ResourceVersion: "5", SendInitialEvents: &yes, ResourceVersionMatch: metav1.ResourceVersionMatchExact},
			msg: `ListOptions.meta.k8s.io "" is invalid: [resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"]`},
		{name: "watch list with continue", opts: rest.ListOptions{Watch: true, Continue: "x", SendInitialEvents: &yes, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan},
			msg: `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided`},
		{name: "list with initial events", opts: rest.ListOptions{SendInitialEvents: &no},
			msg: `ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list`},
	}
	for _, tt := range tests {
		wantInvalid(t, tt.name, validateListOptions(&tt.opts), tt.msg)
	}
}
