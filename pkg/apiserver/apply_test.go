package apiserver

import (
	"strings"
	"testing"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/apimachinery/pkg/runtime/schema"
)

// TestValidateApplyFields: duplicate fields in an apply configuration are
// refused under Strict, warned about under Warn and let through under
// Ignore, with the YAML line named as Kubernetes names it.
func TestValidateApplyFields(t *testing.T) {
	dup := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  a: x\n  a: y\n")
	const want = `line 7: key "a" already set in map`

	_, err := validateApplyFields(dup, fieldValidationStrict)
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "error strict decoding YAML") || !strings.Contains(err.Error(), want) {
		t.Errorf("Strict: %v", err)
	}
	warnings, err := validateApplyFields(dup, fieldValidationWarn)
	if err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], want) {
		t.Errorf("Warn: %v %v", warnings, err)
	}
	if warnings, err := validateApplyFields(dup, fieldValidationIgnore); err != nil || len(warnings) != 0 {
		t.Errorf("Ignore: %v %v", warnings, err)
	}
	if warnings, err := validateApplyFields([]byte("kind: ConfigMap\nbogus: 1\n"), fieldValidationStrict); err != nil || len(warnings) != 0 {
		t.Errorf("an unknown field is the field manager's to refuse: %v %v", warnings, err)
	}
}

// TestCheckApplyTargetName: a configuration may leave the name out (the
// Store refuses to create from one), at the main resource and at a
// subresource, as client-go's ApplyScale sends it; a name other than the
// path's is refused everywhere.
func TestCheckApplyTargetName(t *testing.T) {
	deployments := &endpoint{resource: "deployments", namespaced: true, kind: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}}
	scale := &endpoint{resource: "deployments", subresource: "scale", namespaced: true, kind: schema.GroupVersionKind{Group: "autoscaling", Version: "v1", Kind: "Scale"}}
	status := &endpoint{resource: "deployments", subresource: "status", namespaced: true, kind: deployments.kind}
	cfg := func(apiVersion, kind, name string) map[string]any {
		c := map[string]any{"apiVersion": apiVersion, "kind": kind, "spec": map[string]any{"replicas": 3}}
		if name != "" {
			c["metadata"] = map[string]any{"name": name}
		}
		return c
	}
	for _, tc := range []struct {
		what string
		e    *endpoint
		cfg  map[string]any
		bad  bool // 400
	}{
		{"main resource, no name", deployments, cfg("apps/v1", "Deployment", ""), false},
		{"main resource, the path's name", deployments, cfg("apps/v1", "Deployment", "web"), false},
		{"main resource, another name", deployments, cfg("apps/v1", "Deployment", "other"), true},
		{"scale, no name", scale, cfg("autoscaling/v1", "Scale", ""), false},
		{"scale, another name", scale, cfg("autoscaling/v1", "Scale", "other"), true},
		{"status, no name", status, cfg("apps/v1", "Deployment", ""), false},
	} {
		err := tc.e.checkApplyTarget(tc.cfg, "ns", "web")
		switch {
		case tc.bad && !apierrors.IsBadRequest(err):
			t.Errorf("%s: %v, want 400 BadRequest", tc.what, err)
		case !tc.bad && err != nil:
			t.Errorf("%s: %v, want it accepted", tc.what, err)
		}
	}
}
