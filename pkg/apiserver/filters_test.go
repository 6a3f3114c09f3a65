package apiserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestAuthenticationTellsTheLogger checks that the user authentication
// finds reaches the slot the logging filter, which runs outside it, reads.
func TestAuthenticationTellsTheLogger(t *testing.T) {
	s := &Server{cfg: &completedConfig{Config: Config{Authenticator: headerAuth{}}}}
	for _, c := range []struct{ header, want string }{{"alice", "alice"}, {"", ""}} {
		slot := &requestUser{}
		h := s.withAuthentication(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
		req := httptest.NewRequest(http.MethodGet, "/healthz", nil)
		req = req.WithContext(context.WithValue(req.Context(), requestUserKey{}, slot))
		if c.header != "" {
			req.Header.Set("X-Test-User", c.header)
		}
		h.ServeHTTP(httptest.NewRecorder(), req)
		if slot.name != c.want {
			t.Errorf("user %q: the logger sees %q", c.header, slot.name)
		}
	}
}
