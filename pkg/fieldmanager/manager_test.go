package fieldmanager

import (
	"strings"
	"testing"
)

func TestManagerFromUserAgent(t *testing.T) {
	cases := map[string]string{
		"kubectl/v1.32.0 (linux/amd64) kubernetes/70d3cc9":                   "kubectl",
		"kubectl-client-side-apply/v1.32.0 (linux/amd64) kubernetes/70d3cc9": "kubectl-client-side-apply",
		"helm":                   "helm",
		"":                       "",
		"tab\there/1.0":          "tabhere",
		strings.Repeat("é", 100): strings.Repeat("é", 64),
	}
	for ua, want := range cases {
		if got := ManagerFromUserAgent(ua); got != want {
			t.Errorf("ManagerFromUserAgent(%q) = %q, want %q", ua, got, want)
		}
	}
	if got := ManagerName("flux", "kubectl/v1"); got != "flux" {
		t.Errorf("fieldManager not preferred: %q", got)
	}
	if got := ManagerName("", "kubectl/v1"); got != "kubectl" {
		t.Errorf("user agent not used: %q", got)
	}
}

func TestValidateManager(t *testing.T) {
	cases := []struct {
		name    string
		apply   bool
		wantErr string
	}{
		{"kubectl", true, ""},
		{"", false, ""},
		{"", true, "fieldManager: Required value: is required for apply patch"},
		{strings.Repeat("a", 129), false, "fieldManager: Too long"},
		{"bad\x01", false, `fieldManager: Invalid value: "bad\x01": invalid character U+0001 (at position 3)`},
	}
	for _, tc := range cases {
		errs := ValidateManager(tc.name, tc.apply)
		if tc.wantErr == "" {
			if len(errs) != 0 {
				t.Errorf("%q: %v", tc.name, errs)
			}
			continue
		}
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.wantErr) {
			t.Errorf("%q: errors %v, want %q", tc.name, errs, tc.wantErr)
		}
	}
}
