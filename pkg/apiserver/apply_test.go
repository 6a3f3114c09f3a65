package apiserver

import (
	"strings"
	"testing"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
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
