package authenticator

import (
	"crypto/tls"
	"crypto/x509"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"kubecore.io/client/util/cert"
)

// newCA returns a CA and a function issuing its client certificates.
func newCA(t *testing.T, name string) (*x509.CertPool, func(cn string) *x509.Certificate) {
	t.Helper()
	key, err := cert.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	ca, err := cert.NewSelfSignedCACert(cert.Config{CommonName: name}, key)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return pool, func(cn string) *x509.Certificate {
		k, err := cert.NewPrivateKey()
		if err != nil {
			t.Fatal(err)
		}
		c, err := cert.NewSignedCert(cert.Config{CommonName: cn, Usages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, k, ca, key)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
}

func TestRequestHeader(t *testing.T) {
	proxyCAs, proxyCert := newCA(t, "front-proxy-ca")
	_, otherCert := newCA(t, "cluster-ca")
	a := NewRequestHeader(proxyCAs, []string{"front-proxy-client"})
	tests := []struct {
		name    string
		cert    *x509.Certificate
		headers map[string][]string
		want    *struct {
			name   string
			groups []string
			extra  map[string][]string
		}
		wantErr string
	}{
		{name: "no header, not ours", cert: proxyCert("front-proxy-client")},
		{
			name: "front proxy", cert: proxyCert("front-proxy-client"),
			headers: map[string][]string{"X-Remote-User": {"alice"}, "X-Remote-Group": {"a", "b"}, "X-Remote-Extra-Scopes": {"x", "y"}, "X-Remote-Extra-Foo%2fbar": {"z"}},
			want: &struct {
				name   string
				groups []string
				extra  map[string][]string
			}{"alice", []string{"a", "b"}, map[string][]string{"scopes": {"x", "y"}, "foo/bar": {"z"}}},
		},
		{name: "no certificate", headers: map[string][]string{"X-Remote-User": {"alice"}}, wantErr: "without a front-proxy client certificate"},
		{name: "another CA", cert: otherCert("front-proxy-client"), headers: map[string][]string{"X-Remote-User": {"alice"}}, wantErr: "unknown authority"},
		{name: "name not allowed", cert: proxyCert("someone"), headers: map[string][]string{"X-Remote-User": {"alice"}}, wantErr: "not one of the allowed names"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/api", nil)
			for k, v := range tc.headers {
				for _, x := range v {
					r.Header.Add(k, x)
				}
			}
			if tc.cert != nil {
				r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{tc.cert}}
			}
			user, ok, err := a.AuthenticateRequest(r)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || ok {
					t.Fatalf("got %v %v, want error %q", ok, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if ok {
					t.Fatalf("authenticated %v without headers", user)
				}
				return
			}
			if !ok || user.Name != tc.want.name || !reflect.DeepEqual(user.Groups, tc.want.groups) || !reflect.DeepEqual(user.Extra, tc.want.extra) {
				t.Fatalf("got %+v, want %+v", user, tc.want)
			}
			for k := range r.Header {
				if strings.HasPrefix(k, "X-Remote-") {
					t.Errorf("header %s left on the request", k)
				}
			}
		})
	}
}
