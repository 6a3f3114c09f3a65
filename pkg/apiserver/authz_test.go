package apiserver

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"kubecore.io/kubecore/pkg/apirequest"
	authz "kubecore.io/kubecore/pkg/auth/authorizer"
)

// aliceReadsWidgets lets alice get widgets and bob impersonate alice only.
type aliceReadsWidgets struct{}

func (aliceReadsWidgets) Authorize(_ context.Context, a authz.Attributes) (authz.Decision, string, error) {
	r := a.Request
	switch {
	case a.User.Name == "alice" && r.Resource == "widgets" && (r.Verb == "get" || r.Verb == "list"):
		return authz.Allow, "", nil
	case a.User.Name == "bob" && r.Verb == "impersonate" && r.Resource == "users" && r.Name == "alice":
		return authz.Allow, "", nil
	case a.User.Name == "mallory":
		return authz.Deny, "mallory is banned", nil
	}
	return authz.NoOpinion, "", nil
}

func TestAuthorizationAndImpersonation(t *testing.T) {
	ts, _ := newTestServer(t, func(c *Config) {
		c.Authorizer = authz.Union{authz.Masters{}, aliceReadsWidgets{}}
	})
	send := func(user, method, path string, headers ...string) (int, string) {
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(`{"apiVersion":"test.kubecore.io/v1","kind":"Widget","metadata":{"name":"w"}}`))
		req.Header.Set("X-Test-User", user)
		req.Header.Set("X-Test-Group", "system:authenticated")
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Add(headers[i], headers[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	list := "/apis/test.kubecore.io/v1/namespaces/default/widgets"
	tests := []struct {
		name, user, method, path string
		headers                  []string
		code                     int
		msg                      string
	}{
		{"allowed", "alice", "GET", list, nil, 200, ""},
		{"no rule", "alice", "POST", list, nil, 403, `widgets.test.kubecore.io is forbidden: User \"alice\" cannot create resource \"widgets\" in API group \"test.kubecore.io\" in the namespace \"default\"`},
		{"named object", "carol", "GET", list + "/w", nil, 403, `widgets.test.kubecore.io \"w\" is forbidden: User \"carol\"`},
		{"non-resource path", "carol", "GET", "/apis", nil, 403, `forbidden: User \"carol\" cannot get path \"/apis\"`},
		{"denied with a reason", "mallory", "GET", list, nil, 403, `: mallory is banned`},
		{"health needs nothing", "carol", "GET", "/healthz", nil, 200, ""},
		{"bob acts as alice", "bob", "GET", list, []string{"Impersonate-User", "alice"}, 200, ""},
		{"bob as alice gets alice's rights only", "bob", "POST", list, []string{"Impersonate-User", "alice"}, 403, `User \"alice\" cannot create`},
		{"bob may not be carol", "bob", "GET", list, []string{"Impersonate-User", "carol"}, 403, `users \"carol\" is forbidden: User \"bob\" cannot impersonate resource \"users\" in API group \"\" at the cluster scope`},
		{"nor add groups", "bob", "GET", list, []string{"Impersonate-User", "alice", "Impersonate-Group", "system:masters"}, 403, `groups \"system:masters\" is forbidden`},
		{"groups without a user", "bob", "GET", list, []string{"Impersonate-Group", "x"}, 400, "without impersonating a user"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, body := send(tt.user, tt.method, tt.path, tt.headers...)
			if code != tt.code || !strings.Contains(body, tt.msg) {
				t.Errorf("%d %s\nwant %d with %s", code, body, tt.code, tt.msg)
			}
		})
	}
}

// The impersonated user reaches the handlers.
func TestImpersonatedUserInContext(t *testing.T) {
	var got *apirequest.UserInfo
	s := &Server{cfg: &completedConfig{Config: Config{Authorizer: authz.Masters{}}}}
	h := s.withImpersonation(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got, _ = apirequest.UserFrom(r.Context()) }))
	req, _ := http.NewRequest("GET", "/api", nil)
	req = req.WithContext(apirequest.WithUser(req.Context(), &apirequest.UserInfo{Name: "root", Groups: []string{"system:masters"}}))
	req.Header.Set("Impersonate-User", "system:serviceaccount:dev:robot")
	req.Header.Add("Impersonate-Group", "extra")
	h.ServeHTTP(nil, req)
	if got == nil || got.Name != "system:serviceaccount:dev:robot" || strings.Join(got.Groups, ",") != "system:serviceaccounts,system:serviceaccounts:dev,extra,system:authenticated" {
		t.Errorf("user %+v", got)
	}
}
