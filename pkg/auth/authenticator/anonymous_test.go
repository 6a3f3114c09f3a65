package authenticator

import (
	"crypto/tls"
	"crypto/x509"
	"net/http/httptest"
	"slices"
	"testing"
)

func TestAnonymous(t *testing.T) {
	const public = "/api/v1/namespaces/kube-public/configmaps/cluster-info"
	a := Union{Anonymous{Paths: []string{public}}}
	for _, tc := range []struct {
		name, method, path, auth string
		cert, want               bool
	}{
		{"public object", "GET", public, "", false, true},
		{"with a query", "GET", public + "?resourceVersion=0", "", false, true},
		{"another object", "GET", "/api/v1/namespaces/kube-public/configmaps/other", "", false, false},
		{"the list", "GET", "/api/v1/namespaces/kube-public/configmaps", "", false, false},
		{"a write", "PUT", public, "", false, false},
		{"with a token", "GET", public, "Bearer abc", false, false},
		{"with a certificate", "GET", public, "", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, "https://example.com"+tc.path, nil)
			if tc.auth != "" {
				r.Header.Set("Authorization", tc.auth)
			}
			if tc.cert {
				r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{{}}}
			}
			u, ok, err := a.AuthenticateRequest(r)
			if err != nil || ok != tc.want {
				t.Fatalf("ok %v err %v, want ok %v", ok, err, tc.want)
			}
			if ok && (u.Name != AnonymousUser || !slices.Equal(u.Groups, []string{UnauthenticatedGroup})) {
				t.Errorf("user %+v: want system:anonymous in system:unauthenticated only", u)
			}
		})
	}
}
