package clientcmd

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubecore.io/client/rest"
	"kubecore.io/client/tools/clientcmd/api"
	"kubecore.io/client/util/cert"
)

// material is a CA, a serving certificate for 127.0.0.1 and a client
// certificate, as PEM and as files in dir.
type material struct {
	dir                      string
	ca                       *x509.Certificate
	caPEM, certPEM, keyPEM   []byte
	otherKeyPEM              []byte
	serving                  tls.Certificate
	caFile, certFile         string
	keyFile, otherKey, token string
	garbage                  string
}

func newMaterial(t *testing.T) *material {
	t.Helper()
	m := &material{dir: t.TempDir()}
	caKey, err := cert.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	m.ca, err = cert.NewSelfSignedCACert(cert.Config{CommonName: "ca"}, caKey)
	if err != nil {
		t.Fatal(err)
	}
	issue := func(cfg cert.Config) (*x509.Certificate, []byte, []byte) {
		key, err := cert.NewPrivateKey()
		if err != nil {
			t.Fatal(err)
		}
		c, err := cert.NewSignedCert(cfg, key, m.ca, caKey)
		if err != nil {
			t.Fatal(err)
		}
		keyPEM, _ := cert.EncodePrivateKeyPEM(key)
		return c, cert.EncodeCertPEM(c), keyPEM
	}
	_, srvCert, srvKey := issue(cert.Config{CommonName: "server", AltNames: cert.AltNames{IPs: []net.IP{net.ParseIP("127.0.0.1")}}, Usages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}})
	if m.serving, err = tls.X509KeyPair(srvCert, srvKey); err != nil {
		t.Fatal(err)
	}
	_, m.certPEM, m.keyPEM = issue(cert.Config{CommonName: "alice", Organization: []string{"devs"}, Usages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	_, _, m.otherKeyPEM = issue(cert.Config{CommonName: "bob", Usages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	m.caPEM = cert.EncodeCertPEM(m.ca)
	write := func(name string, data []byte) string {
		p := filepath.Join(m.dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	m.caFile, m.certFile, m.keyFile = write("ca.crt", m.caPEM), write("u.crt", m.certPEM), write("u.key", m.keyPEM)
	m.otherKey, m.token, m.garbage = write("other.key", m.otherKeyPEM), write("token", []byte("file-token\n")), write("garbage", []byte("garbage"))
	return m
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func TestClientConfigErrors(t *testing.T) {
	m := newMaterial(t)
	missing := filepath.Join(m.dir, "missing")
	tests := []struct {
		name       string
		kubeconfig string
		overrides  Overrides
		wantErr    string
	}{
		{name: "current context not found", kubeconfig: "current-context: foo\n", wantErr: `kubeconfig F: context "foo" not found`},
		{name: "--context not found", kubeconfig: "current-context: foo\n", overrides: Overrides{Context: "bar"}, wantErr: `kubeconfig F: context "bar" not found`},
		{name: "cluster not found", kubeconfig: "contexts:\n- name: foo\n  context: {cluster: bar, user: u}\ncurrent-context: foo\n", wantErr: `kubeconfig F: context "foo": cluster "bar" not found`},
		{name: "--cluster not found", kubeconfig: "contexts:\n- name: foo\n  context: {cluster: bar}\ncurrent-context: foo\n", overrides: Overrides{Cluster: "baz"}, wantErr: `kubeconfig F: cluster "baz" (--cluster) not found`},
		{name: "user not found", kubeconfig: "clusters:\n- name: c\n  cluster: {server: 'https://h'}\ncontexts:\n- name: foo\n  context: {cluster: c, user: nobody}\ncurrent-context: foo\n", wantErr: `kubeconfig F: context "foo": user "nobody" not found`},
		{name: "--user not found", kubeconfig: "clusters:\n- name: c\n  cluster: {server: 'https://h'}\ncontexts:\n- name: foo\n  context: {cluster: c}\ncurrent-context: foo\n", overrides: Overrides{User: "nobody"}, wantErr: `kubeconfig F: user "nobody" (--user) not found`},
		{name: "context without cluster", kubeconfig: "contexts:\n- name: foo\n  context: {namespace: x}\ncurrent-context: foo\n", wantErr: `kubeconfig F: context "foo": cluster: required`},
		{name: "no server", kubeconfig: cluster("c", "{}"), wantErr: `kubeconfig F: cluster "c": server: required`},
		{name: "bad server", kubeconfig: cluster("c", "{server: 'ftp://h'}"), wantErr: `kubeconfig F: cluster "c": server: host "ftp://h": scheme must be http or https`},
		{name: "empty config", kubeconfig: "", wantErr: "kubeconfig F: no configuration has been provided: pass --kubeconfig, set KUBECONFIG, or pass --server"},
		{name: "no current context", kubeconfig: cluster("c", "{server: 'https://h'}") + "current-context: ''\n", wantErr: "kubeconfig F: current-context is not set: pass --context or run 'kubectl config use-context'"},
		{name: "CA file missing", kubeconfig: cluster("c", "{server: 'https://h', certificate-authority: "+missing+"}"), wantErr: `kubeconfig F: cluster "c": certificate-authority ` + missing + ": open: no such file or directory"},
		{name: "CA file garbage", kubeconfig: cluster("c", "{server: 'https://h', certificate-authority: "+m.garbage+"}"), wantErr: `kubeconfig F: cluster "c": certificate-authority ` + m.garbage + ": no PEM CERTIFICATE block found"},
		{name: "CA data garbage", kubeconfig: cluster("c", "{server: 'https://h', certificate-authority-data: "+b64([]byte("nope"))+"}"), wantErr: `kubeconfig F: cluster "c": certificate-authority-data: no PEM CERTIFICATE block found`},
		{name: "CA and insecure", kubeconfig: cluster("c", "{server: 'https://h', insecure-skip-tls-verify: true, certificate-authority: "+m.caFile+"}"), wantErr: `kubeconfig F: cluster "c": certificate-authority and insecure-skip-tls-verify cannot both be set`},
		{name: "--certificate-authority missing", kubeconfig: cluster("c", "{server: 'https://h'}"), overrides: Overrides{CertificateAuthority: missing}, wantErr: "--certificate-authority " + missing + ": open: no such file or directory"},
		{name: "both trust flags", kubeconfig: cluster("c", "{server: 'https://h'}"), overrides: Overrides{CertificateAuthority: m.caFile, InsecureSkipTLSVerify: true}, wantErr: "--certificate-authority and --insecure-skip-tls-verify cannot both be set"},
		{name: "bad proxy", kubeconfig: cluster("c", "{server: 'https://h', proxy-url: 'ftp://p'}"), wantErr: `kubeconfig F: cluster "c": proxy-url: "ftp://p": scheme must be http, https or socks5`},
		{name: "client cert unreadable", kubeconfig: user("client-certificate: " + missing + "\n    client-key: " + m.keyFile), wantErr: `kubeconfig F: user "u": client-certificate ` + missing + ": open: no such file or directory"},
		{name: "client key unreadable", kubeconfig: user("client-certificate: " + m.certFile + "\n    client-key: " + missing), wantErr: `kubeconfig F: user "u": client-key ` + missing + ": open: no such file or directory"},
		{name: "client cert without key", kubeconfig: user("client-certificate: " + m.certFile), wantErr: `kubeconfig F: user "u": client-key: required with client-certificate`},
		{name: "client key without cert", kubeconfig: user("client-key-data: " + b64(m.keyPEM)), wantErr: `kubeconfig F: user "u": client-certificate: required with client-key`},
		{name: "client cert data garbage", kubeconfig: user("client-certificate-data: " + b64([]byte("x")) + "\n    client-key: " + m.keyFile), wantErr: `kubeconfig F: user "u": client-certificate-data: no PEM CERTIFICATE block found`},
		{name: "client key garbage", kubeconfig: user("client-certificate: " + m.certFile + "\n    client-key: " + m.garbage), wantErr: `kubeconfig F: user "u": client-key ` + m.garbage + ": no PEM private key block found"},
		{name: "key does not match", kubeconfig: user("client-certificate: " + m.certFile + "\n    client-key: " + m.otherKey), wantErr: `kubeconfig F: user "u": client-certificate ` + m.certFile + ` and client-key ` + m.otherKey + ": tls: private key does not match public key"},
		{name: "--client-key does not match", kubeconfig: user("client-certificate-data: " + b64(m.certPEM) + "\n    client-key-data: " + b64(m.keyPEM)), overrides: Overrides{ClientKey: m.otherKey}, wantErr: `kubeconfig F: user "u": client-certificate-data and --client-key ` + m.otherKey + ": tls: private key does not match public key"},
		{name: "--client-certificate without key", kubeconfig: user("token: t"), overrides: Overrides{ClientCertificate: m.certFile}, wantErr: "client-key: required with --client-certificate"},
		{name: "--client-key unreadable", kubeconfig: user("client-certificate: " + m.certFile + "\n    client-key: " + m.keyFile), overrides: Overrides{ClientKey: missing}, wantErr: "--client-key " + missing + ": open: no such file or directory"},
		{name: "--token and --username", kubeconfig: user("username: a\n    password: b"), overrides: Overrides{Token: "t", Username: "u"}, wantErr: "--token and --username/--password cannot both be set"},
		{name: "token file missing", kubeconfig: user("tokenFile: " + missing), wantErr: `kubeconfig F: user "u": tokenFile ` + missing + ": open: no such file or directory"},
		{name: "token file empty", kubeconfig: user("tokenFile: /dev/null"), wantErr: `kubeconfig F: user "u": tokenFile /dev/null: empty`},
		{name: "token and basic auth", kubeconfig: user("token: t\n    username: u"), wantErr: `kubeconfig F: user "u": token: a token and a username/password cannot both be set`},
		{name: "exec plugin", kubeconfig: user("exec: {command: aws}"), wantErr: `kubeconfig F: user "u": exec: exec credential plugins are not supported by kubecore`},
		{name: "auth provider", kubeconfig: user("auth-provider: {name: gcp}"), wantErr: `kubeconfig F: user "u": auth-provider: auth-provider plugins are not supported by kubecore`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeKubeconfig(t, t.TempDir(), "config", tt.kubeconfig)
			_, err := NewClientConfig(&LoadingRules{ExplicitPath: path}, &tt.overrides).ClientConfig()
			want := strings.ReplaceAll(tt.wantErr, "kubeconfig F", "kubeconfig "+path)
			if err == nil || err.Error() != want {
				t.Fatalf("err = %v\nwant    %s", err, want)
			}
		})
	}
}

// cluster returns a kubeconfig with one cluster c and a current context using it.
func cluster(name, body string) string {
	return "clusters:\n- name: " + name + "\n  cluster: " + body + "\ncontexts:\n- name: x\n  context: {cluster: " + name + "}\ncurrent-context: x\n"
}

// user returns a kubeconfig with an https cluster and a user u with the given fields.
func user(fields string) string {
	return "clusters:\n- name: c\n  cluster: {server: 'https://h', insecure-skip-tls-verify: true}\nusers:\n- name: u\n  user:\n    " + fields + "\ncontexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n"
}

func TestClientConfig(t *testing.T) {
	m := newMaterial(t)
	base := func() *api.Config {
		cfg := api.NewConfig()
		cfg.Clusters["c"] = &api.Cluster{Server: "https://10.0.0.1:6443", CertificateAuthority: m.caFile, TLSServerName: "api.internal", ProxyURL: "http://proxy:3128", DisableCompression: true}
		cfg.Clusters["plain"] = &api.Cluster{Server: "http://127.0.0.1:8080"}
		cfg.AuthInfos["certs"] = &api.AuthInfo{ClientCertificate: m.certFile, ClientKey: m.keyFile, ClientKeyData: m.keyPEM}
		cfg.AuthInfos["token"] = &api.AuthInfo{TokenFile: m.token, Impersonate: "jane", ImpersonateGroups: []string{"g"}}
		cfg.Contexts["main"] = &api.Context{Cluster: "c", AuthInfo: "certs", Namespace: "team"}
		cfg.Contexts["tokens"] = &api.Context{Cluster: "c", AuthInfo: "token"}
		cfg.Contexts["plain"] = &api.Context{Cluster: "plain", AuthInfo: "token"}
		cfg.CurrentContext = "main"
		return cfg
	}
	tests := []struct {
		name      string
		overrides Overrides
		check     func(t *testing.T, c *rest.Config)
	}{
		{name: "current context", check: func(t *testing.T, c *rest.Config) {
			want := rest.TLSClientConfig{ServerName: "api.internal", CAFile: m.caFile, CertFile: m.certFile, KeyData: m.keyPEM}
			if !equalTLS(c.TLSClientConfig, want) || c.Host != "https://10.0.0.1:6443" || !c.DisableCompression || c.Proxy == nil {
				t.Errorf("got %v", c)
			}
			req, _ := http.NewRequest(http.MethodGet, c.Host, nil)
			if u, err := c.Proxy(req); err != nil || u.String() != "http://proxy:3128" {
				t.Errorf("proxy %v %v", u, err)
			}
		}},
		{name: "--context", overrides: Overrides{Context: "tokens", Timeout: time.Minute}, check: func(t *testing.T, c *rest.Config) {
			if c.BearerTokenFile != m.token || c.BearerToken != "" || c.Impersonate.UserName != "jane" || c.Impersonate.Groups[0] != "g" || c.Timeout != time.Minute {
				t.Errorf("got %v", c)
			}
			if c.TLSClientConfig.CertFile != "" || len(c.TLSClientConfig.KeyData) > 0 {
				t.Errorf("client certificate of another user: %v", c)
			}
		}},
		{name: "--token replaces the token file", overrides: Overrides{Context: "tokens", Token: "flag-token"}, check: func(t *testing.T, c *rest.Config) {
			if c.BearerToken != "flag-token" || c.BearerTokenFile != "" {
				t.Errorf("got %v", c)
			}
		}},
		{name: "--server drops tls-server-name", overrides: Overrides{Server: "https://other:6443"}, check: func(t *testing.T, c *rest.Config) {
			if c.Host != "https://other:6443" || c.TLSClientConfig.ServerName != "" || c.TLSClientConfig.CAFile != m.caFile {
				t.Errorf("got %v", c)
			}
		}},
		{name: "--insecure-skip-tls-verify replaces the CA", overrides: Overrides{InsecureSkipTLSVerify: true}, check: func(t *testing.T, c *rest.Config) {
			if !c.TLSClientConfig.Insecure || c.TLSClientConfig.CAFile != "" || len(c.TLSClientConfig.CAData) > 0 {
				t.Errorf("got %v", c)
			}
		}},
		{name: "--cluster and --user", overrides: Overrides{Cluster: "plain", User: "token", Server: "https://127.0.0.1:1"}, check: func(t *testing.T, c *rest.Config) {
			if c.Host != "https://127.0.0.1:1" || c.BearerTokenFile != m.token || c.TLSClientConfig.CAFile != "" {
				t.Errorf("got %v", c)
			}
		}},
		{name: "--client-certificate and --client-key", overrides: Overrides{ClientCertificate: m.certFile, ClientKey: m.keyFile}, check: func(t *testing.T, c *rest.Config) {
			if c.TLSClientConfig.CertFile != m.certFile || c.TLSClientConfig.KeyFile != m.keyFile || len(c.TLSClientConfig.KeyData) > 0 {
				t.Errorf("got %v", c)
			}
		}},
		{name: "--username replaces the token", overrides: Overrides{Context: "tokens", Username: "u", Password: "p"}, check: func(t *testing.T, c *rest.Config) {
			if c.Username != "u" || c.Password != "p" || c.BearerTokenFile != "" {
				t.Errorf("got %v", c)
			}
		}},
		{name: "no credentials over plain HTTP", overrides: Overrides{Context: "plain"}, check: func(t *testing.T, c *rest.Config) {
			if c.Host != "http://127.0.0.1:8080" || c.BearerTokenFile != "" || c.Impersonate.UserName != "" {
				t.Errorf("got %v", c)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewClientConfigFromConfig(base(), &tt.overrides).ClientConfig()
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}

func equalTLS(a, b rest.TLSClientConfig) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func TestServerFlagWithoutKubeconfig(t *testing.T) {
	rules := &LoadingRules{Precedence: []string{filepath.Join(t.TempDir(), "none")}}
	c, err := NewClientConfig(rules, &Overrides{Server: "https://10.0.0.1:6443", Token: "t", InsecureSkipTLSVerify: true}).ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	if c.Host != "https://10.0.0.1:6443" || c.BearerToken != "t" || !c.TLSClientConfig.Insecure {
		t.Errorf("got %v", c)
	}
	ns, explicit, err := NewClientConfig(rules, nil).Namespace()
	if err != nil || ns != "default" || explicit {
		t.Errorf("Namespace() = %q %v %v", ns, explicit, err)
	}
}

func TestNamespace(t *testing.T) {
	cfg := api.NewConfig()
	cfg.Contexts["with"] = &api.Context{Cluster: "c", Namespace: "team"}
	cfg.Contexts["without"] = &api.Context{Cluster: "c"}
	tests := []struct {
		name         string
		current      string
		overrides    Overrides
		want         string
		wantExplicit bool
		wantErr      string
	}{
		{name: "from the context", current: "with", want: "team"},
		{name: "default", current: "without", want: "default"},
		{name: "no context", want: "default"},
		{name: "--namespace", current: "with", overrides: Overrides{Namespace: "mine"}, want: "mine", wantExplicit: true},
		{name: "--context", current: "without", overrides: Overrides{Context: "with"}, want: "team"},
		{name: "unknown context", current: "gone", wantErr: `kubeconfig: context "gone" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := cfg.DeepCopy()
			c.CurrentContext = tt.current
			ns, explicit, err := NewClientConfigFromConfig(c, &tt.overrides).Namespace()
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %s", err, tt.wantErr)
				}
				return
			}
			if err != nil || ns != tt.want || explicit != tt.wantExplicit {
				t.Errorf("got %q %v %v, want %q %v", ns, explicit, err, tt.want, tt.wantExplicit)
			}
		})
	}
}

func TestRawConfigIsACopy(t *testing.T) {
	cfg := api.NewConfig()
	cfg.Clusters["c"] = &api.Cluster{Server: "https://h", CertificateAuthorityData: []byte("x")}
	cc := NewClientConfigFromConfig(cfg, nil)
	raw, err := cc.RawConfig()
	if err != nil {
		t.Fatal(err)
	}
	raw.Clusters["c"].Server = "changed"
	raw.Clusters["c"].CertificateAuthorityData[0] = 'y'
	again, _ := cc.RawConfig()
	if again.Clusters["c"].Server != "https://h" || string(again.Clusters["c"].CertificateAuthorityData) != "x" {
		t.Error("RawConfig shares memory with the ClientConfig")
	}
}

func TestBuildConfigFromFlags(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(RecommendedConfigPathEnvVar, filepath.Join(dir, "none"))
	c, err := BuildConfigFromFlags("http://127.0.0.1:8080", "")
	if err != nil || c.Host != "http://127.0.0.1:8080" {
		t.Fatalf("master only: %v %v", c, err)
	}
	path := writeKubeconfig(t, dir, "config", cluster("c", "{server: 'https://h:6443', insecure-skip-tls-verify: true}"))
	c, err = BuildConfigFromFlags("", path)
	if err != nil || c.Host != "https://h:6443" || !c.TLSClientConfig.Insecure {
		t.Fatalf("kubeconfig: %v %v", c, err)
	}
	c, err = BuildConfigFromFlags("https://override:1", path)
	if err != nil || c.Host != "https://override:1" {
		t.Fatalf("both: %v %v", c, err)
	}
	if _, err := BuildConfigFromFlags("", filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "missing: open: no such file") {
		t.Errorf("missing kubeconfig: err = %v", err)
	}
}

// TestConnect goes from kubeconfig files merged from KUBECONFIG, with
// relative paths, to a request through rest.HTTPClientFor against a TLS
// server that checks the client certificate.
func TestConnect(t *testing.T) {
	m := newMaterial(t)
	pool := x509.NewCertPool()
	pool.AddCert(m.ca)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := r.TLS.PeerCertificates[0]
		_, _ = w.Write([]byte(c.Subject.CommonName + "/" + strings.Join(c.Subject.Organization, ",") + "/" + r.Proto))
	}))
	srv.EnableHTTP2 = true
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{m.serving}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool}
	srv.StartTLS()
	defer srv.Close()

	clusters := writeKubeconfig(t, m.dir, "clusters", "clusters:\n- name: test\n  cluster:\n    server: "+srv.URL+"\n    certificate-authority: ca.crt\n")
	users := writeKubeconfig(t, m.dir, "users", "users:\n- name: alice\n  user:\n    client-certificate: u.crt\n    client-key: ./u.key\ncontexts:\n- name: test\n  context: {cluster: test, user: alice}\ncurrent-context: test\n")
	t.Setenv(RecommendedConfigPathEnvVar, clusters+string(filepath.ListSeparator)+users)
	t.Chdir(t.TempDir()) // relative paths resolve against each file's directory, not here

	rc, err := NewClientConfig(NewDefaultLoadingRules(), nil).ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	client, err := rest.HTTPClientFor(rc)
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	resp, err := client.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body := make([]byte, 100)
	n, _ := resp.Body.Read(body)
	if got := string(body[:n]); got != "alice/devs/HTTP/2.0" {
		t.Errorf("server saw %q", got)
	}
}
