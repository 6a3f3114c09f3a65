package e2e

import (
	"regexp"
	"testing"
)

// TestAuthWhoami: the stock kubectl's `auth whoami` (a SelfSubjectReview)
// prints the admin's user and groups, in a table and as YAML.
func TestAuthWhoami(t *testing.T) {
	t.Parallel()
	k := server.Kubectl(t)
	out := k.MustRun(t, "auth", "whoami")
	tb := parseTable(t, out)
	expectHeader(t, "auth whoami", tb, "ATTRIBUTE", "VALUE")
	if !regexp.MustCompile(`(?m)^Username\s+\S+$`).MatchString(out) || !regexp.MustCompile(`(?m)^Groups\s+\[.*system:masters.*system:authenticated\]$`).MatchString(out) {
		t.Errorf("auth whoami printed:\n%s", out)
	}
	y := decodeYAML(t, k.MustRun(t, "auth", "whoami", "-o", "yaml"))
	if y.str("apiVersion") != "authentication.k8s.io/v1" || y.str("kind") != "SelfSubjectReview" || y.str("status.userInfo.username") == "" {
		t.Errorf("auth whoami -o yaml: %v", y)
	}
}
