package apiextensions

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kubecore.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"kubecore.io/client/rest"

	"kubecore.io/kubecore/test/integration/framework"
)

// TestAuthorization checks that custom resources are served behind the
// same authentication and RBAC as built-in ones: a user needs a role on
// the group's resource.
func TestAuthorization(t *testing.T) {
	tokens := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(tokens, []byte("alice-token,alice,1001,\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	fs := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd, TokenAuthFile: tokens})
	s := &server{APIServer: fs, t: t, http: fs.HTTPClient(t)}
	const group = "authz.example.com"
	s.createCRD(crontabCRD(group))
	ns := s.CreateNamespace(t, "crd-authz")
	base := "/apis/" + group + "/v1/namespaces/" + ns + "/crontabs"
	s.expect(http.StatusCreated, http.MethodPost, base, crontab(group, "v1", "ct", map[string]any{"cronSpec": "* * * * *"}))

	alice := &server{APIServer: fs, t: t, http: &http.Client{Transport: withToken{anonymousTransport(t, fs), "alice-token"}}}
	r := alice.expect(http.StatusForbidden, http.MethodGet, base+"/ct", nil)
	if !strings.Contains(string(r.body), `User \"alice\" cannot get resource \"crontabs\" in API group \"`+group+`\" in the namespace \"`+ns+`\"`) {
		t.Errorf("403 message %s", r.body)
	}
	anonymous := &server{APIServer: fs, t: t, http: &http.Client{Transport: anonymousTransport(t, fs)}}
	anonymous.expect(http.StatusUnauthorized, http.MethodGet, base+"/ct", nil)

	// A role on crontabs.<group> lets alice read them, and no more.
	role := map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
		"metadata": map[string]any{"name": "crontab-reader", "namespace": ns},
		"rules":    []any{map[string]any{"apiGroups": []any{group}, "resources": []any{"crontabs"}, "verbs": []any{"get", "list"}}},
	}
	s.expect(http.StatusCreated, http.MethodPost, "/apis/rbac.authorization.k8s.io/v1/namespaces/"+ns+"/roles", role)
	binding := map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
		"metadata": map[string]any{"name": "alice-reads", "namespace": ns},
		"roleRef":  map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "crontab-reader"},
		"subjects": []any{map[string]any{"kind": "User", "name": "alice", "apiGroup": "rbac.authorization.k8s.io"}},
	}
	s.expect(http.StatusCreated, http.MethodPost, "/apis/rbac.authorization.k8s.io/v1/namespaces/"+ns+"/rolebindings", binding)
	eventually(t, "alice may read crontabs", func() (bool, string) {
		r := alice.do(http.MethodGet, base+"/ct", nil)
		return r.code == http.StatusOK, fmt.Sprintf("%d %s", r.code, r.body)
	})
	alice.expect(http.StatusForbidden, http.MethodDelete, base+"/ct", nil)
	alice.expect(http.StatusForbidden, http.MethodGet, base+"/ct/status", nil)
	s.deleteCRD("crontabs." + group)
}

// withToken adds a bearer token to every request.
type withToken struct {
	next  http.RoundTripper
	token string
}

func (w withToken) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+w.token)
	return w.next.RoundTrip(r)
}

// anonymousTransport trusts the server's CA and presents no credentials.
func anonymousTransport(t *testing.T, s *framework.APIServer) http.RoundTripper {
	t.Helper()
	rc := rest.CopyConfig(s.Config)
	rc.TLSClientConfig.CertData, rc.TLSClientConfig.KeyData = nil, nil
	rc.TLSClientConfig.CertFile, rc.TLSClientConfig.KeyFile = "", ""
	hc, err := rest.HTTPClientFor(rc)
	if err != nil {
		t.Fatal(err)
	}
	return hc.Transport
}

// TestRestart checks that a server restarted on the same etcd serves the
// resources of the definitions it finds as soon as it is ready.
func TestRestart(t *testing.T) {
	dataDir := t.TempDir()
	fs := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd, DataDir: dataDir})
	s := &server{APIServer: fs, t: t, http: fs.HTTPClient(t)}
	const group = "restart.example.com"
	s.createCRD(crontabCRD(group))
	ns := s.CreateNamespace(t, "crd-restart")
	base := "/apis/" + group + "/v1/namespaces/" + ns + "/crontabs"
	created := s.expect(http.StatusCreated, http.MethodPost, base, crontab(group, "v1", "survivor", map[string]any{"cronSpec": "* * * * *"})).object(t)
	if err := fs.Stop(); err != nil {
		t.Fatal(err)
	}

	fs = framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd, DataDir: dataDir})
	s = &server{APIServer: fs, t: t, http: fs.HTTPClient(t)}
	eventually(t, "readyz", func() (bool, string) {
		r := s.do(http.MethodGet, "/readyz", nil)
		return r.code == http.StatusOK, string(r.body)
	})
	got := s.expect(http.StatusOK, http.MethodGet, base+"/survivor", nil).object(t)
	if unstructured.NestedString(got, "metadata", "uid") != unstructured.NestedString(created, "metadata", "uid") ||
		unstructured.NestedString(got, "metadata", "resourceVersion") != unstructured.NestedString(created, "metadata", "resourceVersion") {
		t.Errorf("after restart %v, before %v", got, created)
	}
	s.deleteCRD("crontabs." + group)
}
