package rest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubecore.io/client/util/cert"
)

func newCA(t *testing.T) (*x509.Certificate, []byte, func(cn string, usage x509.ExtKeyUsage, hosts ...string) ([]byte, []byte)) {
	t.Helper()
	caKey, err := cert.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	ca, err := cert.NewSelfSignedCACert(cert.Config{CommonName: "test-ca"}, caKey)
	if err != nil {
		t.Fatal(err)
	}
	issue := func(cn string, usage x509.ExtKeyUsage, hosts ...string) ([]byte, []byte) {
		t.Helper()
		key, err := cert.NewPrivateKey()
		if err != nil {
			t.Fatal(err)
		}
		var alt cert.AltNames
		for _, h := range hosts {
			if ip := net.ParseIP(h); ip != nil {
				alt.IPs = append(alt.IPs, ip)
			} else {
				alt.DNSNames = append(alt.DNSNames, h)
			}
		}
		c, err := cert.NewSignedCert(cert.Config{CommonName: cn, AltNames: alt, Usages: []x509.ExtKeyUsage{usage}}, key, ca, caKey)
		if err != nil {
			t.Fatal(err)
		}
		keyPEM, err := cert.EncodePrivateKeyPEM(key)
		if err != nil {
			t.Fatal(err)
		}
		return cert.EncodeCertPEM(c), keyPEM
	}
	return ca, cert.EncodeCertPEM(ca), issue
}

// echo is what the test server reports about a request.
type echo struct {
	Proto         int
	ClientCN      string
	Authorization string
	UserAgent     string
	Impersonate   map[string][]string
}

// newTLSServer starts an HTTP/2 TLS server that asks for (but does not
// require) client certificates signed by ca, and echoes what it saw.
func newTLSServer(t *testing.T, ca *x509.Certificate, certPEM, keyPEM []byte) *httptest.Server {
	t.Helper()
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e := echo{Proto: r.ProtoMajor, Authorization: r.Header.Get("Authorization"), UserAgent: r.UserAgent(), Impersonate: map[string][]string{}}
		if len(r.TLS.PeerCertificates) > 0 {
			e.ClientCN = r.TLS.PeerCertificates[0].Subject.CommonName
		}
		for k, v := range r.Header {
			if strings.HasPrefix(k, "Impersonate-") {
				e.Impersonate[k] = v
			}
		}
		_ = json.NewEncoder(w).Encode(e)
	}))
	srv.EnableHTTP2 = true
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, ClientAuth: tls.VerifyClientCertIfGiven, ClientCAs: pool}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, c *Config) (echo, error) {
	t.Helper()
	client, err := HTTPClientFor(c)
	if err != nil {
		t.Fatalf("HTTPClientFor: %v", err)
	}
	defer client.CloseIdleConnections()
	return getWith(t, client, c.Host)
}

func getWith(t *testing.T, client *http.Client, url string) (echo, error) {
	t.Helper()
	resp, err := client.Get(url + "/")
	if err != nil {
		return echo{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	var e echo
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
		t.Fatal(err)
	}
	return e, nil
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTransportTLS(t *testing.T) {
	ca, caPEM, issue := newCA(t)
	srvCert, srvKey := issue("server", x509.ExtKeyUsageServerAuth, "127.0.0.1", "localhost")
	srv := newTLSServer(t, ca, srvCert, srvKey)
	clientCert, clientKey := issue("alice", x509.ExtKeyUsageClientAuth)
	_, otherCAPEM, _ := newCA(t)

	dir := t.TempDir()
	caFile := writeFile(t, dir, "ca.crt", caPEM)
	otherCAFile := writeFile(t, dir, "other-ca.crt", otherCAPEM)
	certFile := writeFile(t, dir, "client.crt", clientCert)
	keyFile := writeFile(t, dir, "client.key", clientKey)
	localhostURL := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)

	tests := []struct {
		name    string
		config  Config
		wantCN  string
		wantErr []string
	}{
		{name: "CA data and client cert data", config: Config{Host: srv.URL, TLSClientConfig: TLSClientConfig{CAData: caPEM, CertData: clientCert, KeyData: clientKey}}, wantCN: "alice"},
		{name: "CA file and client cert files", config: Config{Host: srv.URL, TLSClientConfig: TLSClientConfig{CAFile: caFile, CertFile: certFile, KeyFile: keyFile}}, wantCN: "alice"},
		{name: "data wins over files", config: Config{Host: srv.URL, TLSClientConfig: TLSClientConfig{CAData: caPEM, CAFile: "/nonexistent", CertData: clientCert, CertFile: "/nonexistent", KeyFile: keyFile}}, wantCN: "alice"},
		{name: "no client certificate", config: Config{Host: srv.URL, TLSClientConfig: TLSClientConfig{CAFile: caFile}}},
		{name: "insecure", config: Config{Host: srv.URL, TLSClientConfig: TLSClientConfig{Insecure: true}}},
		{name: "server name override", config: Config{Host: srv.URL, TLSClientConfig: TLSClientConfig{CAFile: caFile, ServerName: "localhost"}}},
		{name: "by host name", config: Config{Host: localhostURL, TLSClientConfig: TLSClientConfig{CAFile: caFile}}},
		{name: "CA mismatch", config: Config{Host: srv.URL, TLSClientConfig: TLSClientConfig{CAFile: otherCAFile}},
			wantErr: []string{"verify certificate of server " + strings.TrimPrefix(srv.URL, "https://") + " against CA file " + otherCAFile, "certificate signed by unknown authority"}},
		{name: "CA mismatch with data", config: Config{Host: srv.URL, TLSClientConfig: TLSClientConfig{CAData: otherCAPEM}},
			wantErr: []string{"against the CA data", "unknown authority"}},
		{name: "system roots", config: Config{Host: srv.URL},
			wantErr: []string{"against the system roots", "unknown authority"}},
		{name: "wrong server name", config: Config{Host: srv.URL, TLSClientConfig: TLSClientConfig{CAFile: caFile, ServerName: "example.com"}},
			wantErr: []string{"against CA file", "not example.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := get(t, &tt.config)
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatal("request succeeded, want an error")
				}
				for _, want := range tt.wantErr {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("err = %v, want it to contain %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if e.Proto != 2 {
				t.Errorf("protocol HTTP/%d, want HTTP/2", e.Proto)
			}
			if e.ClientCN != tt.wantCN {
				t.Errorf("client CN %q, want %q", e.ClientCN, tt.wantCN)
			}
		})
	}
}

func TestTLSConfigForErrors(t *testing.T) {
	_, caPEM, issue := newCA(t)
	clientCert, clientKey := issue("alice", x509.ExtKeyUsageClientAuth)
	_, otherKey := issue("bob", x509.ExtKeyUsageClientAuth)
	dir := t.TempDir()
	caFile := writeFile(t, dir, "ca.crt", caPEM)
	garbage := writeFile(t, dir, "garbage", []byte("garbage"))
	missing := filepath.Join(dir, "missing")

	tests := []struct {
		name    string
		tls     TLSClientConfig
		wantErr string
	}{
		{name: "insecure with CA", tls: TLSClientConfig{Insecure: true, CAFile: caFile}, wantErr: "specifying a root certificates file with the insecure flag is not allowed"},
		{name: "missing CA file", tls: TLSClientConfig{CAFile: missing}, wantErr: "CA file " + missing + ": open: no such file or directory"},
		{name: "garbage CA file", tls: TLSClientConfig{CAFile: garbage}, wantErr: "CA file " + garbage + ": no PEM CERTIFICATE block found"},
		{name: "garbage CA data", tls: TLSClientConfig{CAData: []byte("x")}, wantErr: "CA data: no PEM CERTIFICATE block found"},
		{name: "cert without key", tls: TLSClientConfig{CertData: clientCert}, wantErr: "client certificate given without a client key"},
		{name: "key without cert", tls: TLSClientConfig{KeyFile: missing}, wantErr: "client key given without a client certificate"},
		{name: "missing cert file", tls: TLSClientConfig{CertFile: missing, KeyData: clientKey}, wantErr: "client certificate " + missing + ": stat: no such file or directory"},
		{name: "mismatched key", tls: TLSClientConfig{CertData: clientCert, KeyData: otherKey}, wantErr: "client certificate data and client key data: tls: private key does not match public key"},
		{name: "garbage key file", tls: TLSClientConfig{CertData: clientCert, KeyFile: garbage}, wantErr: "client certificate data and client key " + garbage + ": tls:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := TLSConfigFor(&Config{Host: "https://h", TLSClientConfig: tt.tls})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
			}
			if _, err := TransportFor(&Config{Host: "https://h", TLSClientConfig: tt.tls}); err == nil {
				t.Error("TransportFor succeeded")
			}
		})
	}
}

func TestTransportForErrors(t *testing.T) {
	dir := t.TempDir()
	empty := writeFile(t, dir, "empty", []byte(" \n"))
	missing := filepath.Join(dir, "missing")
	tests := []struct {
		name    string
		config  Config
		wantErr string
	}{
		{name: "token and basic auth", config: Config{BearerToken: "t", Username: "u"}, wantErr: "username/password or bearer token may be set, but not both"},
		{name: "custom transport with TLS", config: Config{Transport: http.DefaultTransport, TLSClientConfig: TLSClientConfig{Insecure: true}}, wantErr: "custom transport"},
		{name: "missing token file", config: Config{BearerTokenFile: missing}, wantErr: "bearer token file " + missing + ": stat: no such file or directory"},
		{name: "empty token file", config: Config{BearerTokenFile: empty}, wantErr: "bearer token file " + empty + ": empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := TransportFor(&tt.config)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
			}
		})
	}
}

func TestHeaders(t *testing.T) {
	ca, caPEM, issue := newCA(t)
	srvCert, srvKey := issue("server", x509.ExtKeyUsageServerAuth, "127.0.0.1")
	srv := newTLSServer(t, ca, srvCert, srvKey)
	tokenFile := writeFile(t, t.TempDir(), "token", []byte("file-token\n"))
	base := func(c Config) *Config {
		c.Host, c.TLSClientConfig = srv.URL, TLSClientConfig{CAData: caPEM}
		return &c
	}
	tests := []struct {
		name     string
		config   *Config
		wantAuth string
		wantUA   string
		wantImp  map[string][]string
	}{
		{name: "bearer token", config: base(Config{BearerToken: "abc", UserAgent: "test/1"}), wantAuth: "Bearer abc", wantUA: "test/1"},
		{name: "token wins over token file", config: base(Config{BearerToken: "abc", BearerTokenFile: tokenFile}), wantAuth: "Bearer abc"},
		{name: "token file", config: base(Config{BearerTokenFile: tokenFile}), wantAuth: "Bearer file-token"},
		{name: "basic auth", config: base(Config{Username: "u", Password: "p"}), wantAuth: "Basic dTpw"},
		{name: "default user agent", config: base(Config{}), wantUA: DefaultUserAgent()},
		{name: "impersonation", config: base(Config{Impersonate: ImpersonationConfig{UserName: "jane", UID: "42", Groups: []string{"a", "b"}, Extra: map[string][]string{"scopes/x y": {"1"}}}}),
			wantImp: map[string][]string{"Impersonate-User": {"jane"}, "Impersonate-Uid": {"42"}, "Impersonate-Group": {"a", "b"}, "Impersonate-Extra-Scopes%2fx%20y": {"1"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := get(t, tt.config)
			if err != nil {
				t.Fatal(err)
			}
			if e.Authorization != tt.wantAuth {
				t.Errorf("Authorization %q, want %q", e.Authorization, tt.wantAuth)
			}
			if tt.wantUA != "" && e.UserAgent != tt.wantUA {
				t.Errorf("User-Agent %q, want %q", e.UserAgent, tt.wantUA)
			}
			if len(e.Impersonate) != len(tt.wantImp) {
				t.Errorf("impersonation headers %v, want %v", e.Impersonate, tt.wantImp)
			}
			for k, v := range tt.wantImp {
				if strings.Join(e.Impersonate[k], ",") != strings.Join(v, ",") {
					t.Errorf("%s = %v, want %v (all: %v)", k, e.Impersonate[k], v, e.Impersonate)
				}
			}
		})
	}

	t.Run("caller's headers kept and request not changed", func(t *testing.T) {
		rt, err := TransportFor(base(Config{BearerToken: "abc"}))
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/", nil)
		req.Header.Set("Authorization", "Bearer mine")
		req.Header.Set("User-Agent", "mine/1")
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		var e echo
		_ = json.NewDecoder(resp.Body).Decode(&e)
		if e.Authorization != "Bearer mine" || e.UserAgent != "mine/1" {
			t.Errorf("server saw %q %q, want the caller's headers", e.Authorization, e.UserAgent)
		}
		if len(req.Header) != 2 {
			t.Errorf("request headers changed: %v", req.Header)
		}
	})
}

func TestTokenFileRotation(t *testing.T) {
	ca, caPEM, issue := newCA(t)
	srvCert, srvKey := issue("server", x509.ExtKeyUsageServerAuth, "127.0.0.1")
	srv := newTLSServer(t, ca, srvCert, srvKey)
	tokenFile := writeFile(t, t.TempDir(), "token", []byte("one"))
	client, err := HTTPClientFor(&Config{Host: srv.URL, TLSClientConfig: TLSClientConfig{CAData: caPEM}, BearerTokenFile: tokenFile})
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	steps := []struct {
		write    string
		remove   bool
		wantAuth string
		wantErr  string
	}{
		{wantAuth: "Bearer one"},
		{write: "two-rotated", wantAuth: "Bearer two-rotated"},
		{wantAuth: "Bearer two-rotated"},
		{write: "", wantErr: "bearer token file " + tokenFile + ": empty"},
		{write: "three", wantAuth: "Bearer three"},
		{remove: true, wantErr: "bearer token file " + tokenFile + ": stat: no such file or directory"},
		{write: "four", wantAuth: "Bearer four"},
	}
	for i, s := range steps {
		switch {
		case s.remove:
			if err := os.Remove(tokenFile); err != nil {
				t.Fatal(err)
			}
		case i > 0 && (s.write != "" || s.wantErr != ""):
			// Make the change visible even on a file system with coarse mtimes.
			if err := os.WriteFile(tokenFile, []byte(s.write), 0o600); err != nil {
				t.Fatal(err)
			}
			future := time.Now().Add(time.Duration(i) * time.Second)
			if err := os.Chtimes(tokenFile, future, future); err != nil {
				t.Fatal(err)
			}
		}
		e, err := getWith(t, client, srv.URL)
		if s.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), s.wantErr) {
				t.Fatalf("step %d: err = %v, want it to contain %q", i, err, s.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if e.Authorization != s.wantAuth {
			t.Errorf("step %d: Authorization %q, want %q", i, e.Authorization, s.wantAuth)
		}
	}
}

func TestClientCertRotation(t *testing.T) {
	ca, caPEM, issue := newCA(t)
	srvCert, srvKey := issue("server", x509.ExtKeyUsageServerAuth, "127.0.0.1")
	srv := newTLSServer(t, ca, srvCert, srvKey)
	dir := t.TempDir()
	certPEM, keyPEM := issue("first", x509.ExtKeyUsageClientAuth)
	certFile, keyFile := writeFile(t, dir, "c.crt", certPEM), writeFile(t, dir, "c.key", keyPEM)
	client, err := HTTPClientFor(&Config{Host: srv.URL, TLSClientConfig: TLSClientConfig{CAData: caPEM, CertFile: certFile, KeyFile: keyFile}})
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	if e, err := getWith(t, client, srv.URL); err != nil || e.ClientCN != "first" {
		t.Fatalf("CN %q, err %v; want first", e.ClientCN, err)
	}
	certPEM, keyPEM = issue("second", x509.ExtKeyUsageClientAuth)
	future := time.Now().Add(time.Minute)
	for path, data := range map[string][]byte{certFile: certPEM, keyFile: keyPEM} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, future, future); err != nil {
			t.Fatal(err)
		}
	}
	client.CloseIdleConnections() // the next request makes a new TLS handshake
	if e, err := getWith(t, client, srv.URL); err != nil || e.ClientCN != "second" {
		t.Fatalf("after rotation: CN %q, err %v; want second", e.ClientCN, err)
	}
}

func TestHTTPClientForTimeoutAndWrap(t *testing.T) {
	blocked := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-blocked:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(blocked)
	wrapped := false
	client, err := HTTPClientFor(&Config{
		Host:    srv.URL,
		Timeout: 100 * time.Millisecond,
		WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
			wrapped = true
			return rt
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !wrapped {
		t.Error("WrapTransport not called")
	}
	start := time.Now()
	_, err = client.Get(srv.URL)
	var netErr net.Error
	if !errors.As(err, &netErr) || !netErr.Timeout() {
		t.Fatalf("err = %v, want a timeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("timed out after %s", d)
	}
}

func TestCustomDial(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	dialed := ""
	client, err := HTTPClientFor(&Config{Host: "http://kubecore.invalid", Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dialed = addr
		return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
	}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := client.Get("http://kubecore.invalid/")
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if dialed != "kubecore.invalid:80" {
		t.Errorf("dialed %q", dialed)
	}
}
