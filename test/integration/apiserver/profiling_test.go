package apiserver

import (
	"net/http"
	"strings"
	"testing"

	"kubecore.io/kubecore/test/integration/framework"
)

// TestProfiling: /debug/pprof/ serves Go's profiles to cluster admins, and
// refuses a user without a role granting the path.
func TestProfiling(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	c := s.HTTPClient(t)
	if r := do(t, c, s, request{method: http.MethodGet, path: "/debug/pprof/"}); r.code != http.StatusOK || !strings.Contains(string(r.body), "goroutine") {
		t.Errorf("admin GET /debug/pprof/: %d %.200s", r.code, r.body)
	}
	if r := do(t, c, s, request{method: http.MethodGet, path: "/debug/pprof/heap?debug=1"}); r.code != http.StatusOK || !strings.Contains(string(r.body), "heap profile") {
		t.Errorf("admin GET heap profile: %d %.200s", r.code, r.body)
	}
	req, err := http.NewRequest(http.MethodGet, s.URL+"/debug/pprof/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Impersonate-User", "jane")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("GET /debug/pprof/ as jane: %d, want 403", resp.StatusCode)
	}
}
