package pki

import (
	"bytes"
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kubecore.io/client/rest"
	"kubecore.io/client/tools/clientcmd"
	"kubecore.io/client/util/cert"
)

var testHosts = []string{"localhost", "127.0.0.1", "::1", "node-a.example"}

// snapshot returns the content of every file in dir.
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = data
	}
	return out
}

func issuedNames(b *Bundle) []string {
	var names []string
	for _, i := range b.Issued {
		names = append(names, i.Name)
	}
	return names
}

func changedFiles(before, after map[string][]byte) []string {
	var changed []string
	for name, data := range after {
		if !bytes.Equal(before[name], data) {
			changed = append(changed, name)
		}
	}
	for name := range before {
		if _, ok := after[name]; !ok {
			changed = append(changed, name+" (removed)")
		}
	}
	slices.Sort(changed)
	return changed
}

func TestFirstStart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pki")
	start := time.Now()
	b, err := EnsureServing(dir, Options{Hosts: testHosts})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("first start: CA, serving and admin certificates made and written in %s", elapsed)
	// The time is mostly fsync, which varies with the disk; the keys and
	// signatures themselves must stay cheap (RSA keys would take ~0.3 s).
	start = time.Now()
	if _, err := EnsureServing(filepath.Join(t.TempDir(), "pki"), Options{Hosts: testHosts}); err != nil {
		t.Fatal(err)
	}
	if elapsed = time.Since(start); elapsed > 2*time.Second {
		t.Errorf("first start took %s, want well under 0.5 s", elapsed)
	}
	cryptoStart := time.Now()
	ca, caKey := mustKeyAndCA(t)
	for range 2 {
		key, _ := cert.NewPrivateKey()
		if _, err := cert.NewSignedCert(cert.Config{CommonName: "x", Usages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}, key, ca, caKey); err != nil {
			t.Fatal(err)
		}
	}
	if d := time.Since(cryptoStart); d > 100*time.Millisecond {
		t.Errorf("three keys and certificates took %s, want a few ms", d)
	}
	if got := issuedNames(b); !slices.Equal(got, []string{"ca", "apiserver", "admin"}) {
		t.Errorf("issued %v", got)
	}
	modes := map[string]os.FileMode{
		"ca.crt": 0o644, "ca.key": 0o600, "apiserver.crt": 0o644, "apiserver.key": 0o600, "admin.crt": 0o644, "admin.key": 0o600,
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(modes) {
		t.Errorf("dir holds %d files, want %d", len(entries), len(modes))
	}
	for name, want := range modes {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", name, fi.Mode(), want)
		}
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Errorf("dir mode %v, want 0700", fi.Mode())
	}

	pool := b.CAPool()
	for _, host := range testHosts {
		if _, err := b.Serving.Cert.Verify(x509.VerifyOptions{DNSName: host, Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
			t.Errorf("serving certificate for %s: %v", host, err)
		}
	}
	if _, err := b.Admin.Cert.Verify(x509.VerifyOptions{Roots: pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("admin certificate: %v", err)
	}
	if s := b.Admin.Cert.Subject; s.CommonName != "kubecore-admin" || !slices.Equal(s.Organization, []string{"system:masters"}) {
		t.Errorf("admin subject %v", s)
	}
	if d := b.CA.Cert.NotAfter.Sub(b.CA.Cert.NotBefore); d != cert.DefaultCADuration {
		t.Errorf("CA lasts %s", d)
	}
}

func mustKeyAndCA(t *testing.T) (*x509.Certificate, crypto.Signer) {
	t.Helper()
	key, err := cert.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	ca, err := cert.NewSelfSignedCACert(cert.Config{CommonName: "ca"}, key)
	if err != nil {
		t.Fatal(err)
	}
	return ca, key
}

func TestRestartReuses(t *testing.T) {
	dir := t.TempDir()
	first, err := EnsureServing(dir, Options{Hosts: testHosts})
	if err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	// The same hosts in another order and spelling need nothing new.
	second, err := EnsureServing(dir, Options{Hosts: []string{"NODE-A.example", "[::1]", "127.0.0.1", "localhost", "localhost"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Issued) != 0 {
		t.Errorf("restart issued %v", second.Issued)
	}
	if changed := changedFiles(before, snapshot(t, dir)); len(changed) != 0 {
		t.Errorf("restart changed %v", changed)
	}
	if !second.CA.Cert.Equal(first.CA.Cert) || !second.Serving.Cert.Equal(first.Serving.Cert) || !second.Admin.Cert.Equal(first.Admin.Cert) {
		t.Error("restart loaded other certificates")
	}
}

func TestReissue(t *testing.T) {
	now := time.Now()
	tests := []struct {
		name        string
		opts        Options
		prepare     func(t *testing.T, dir string)
		wantIssued  []string
		wantReason  string
		wantChanged []string
	}{
		{
			name:        "missing SAN re-issues the serving certificate only",
			opts:        Options{Hosts: append(slices.Clone(testHosts), "10.9.8.7", "api.example")},
			wantIssued:  []string{"apiserver"},
			wantReason:  "not valid for api.example, 10.9.8.7",
			wantChanged: []string{"apiserver.crt", "apiserver.key"},
		},
		{
			name:        "near expiry re-issues the leaves, not the CA",
			opts:        Options{Hosts: testHosts, Now: func() time.Time { return now.Add(340 * 24 * time.Hour) }},
			wantIssued:  []string{"apiserver", "admin"},
			wantReason:  "expires soon",
			wantChanged: []string{"admin.crt", "admin.key", "apiserver.crt", "apiserver.key"},
		},
		{
			name: "a replaced CA re-issues the leaves",
			opts: Options{Hosts: testHosts},
			prepare: func(t *testing.T, dir string) {
				key, _ := cert.NewPrivateKey()
				ca, err := cert.NewSelfSignedCACert(cert.Config{CommonName: "operator-ca"}, key)
				if err != nil {
					t.Fatal(err)
				}
				if err := cert.WriteCertAndKey(filepath.Join(dir, "ca.crt"), filepath.Join(dir, "ca.key"), ca, key); err != nil {
					t.Fatal(err)
				}
			},
			wantIssued:  []string{"apiserver", "admin"},
			wantReason:  "not signed by the CA",
			wantChanged: []string{"admin.crt", "admin.key", "apiserver.crt", "apiserver.key"},
		},
		{
			name: "a removed leaf pair is made again",
			opts: Options{Hosts: testHosts},
			prepare: func(t *testing.T, dir string) {
				for _, f := range []string{"admin.crt", "admin.key"} {
					if err := os.Remove(filepath.Join(dir, f)); err != nil {
						t.Fatal(err)
					}
				}
			},
			wantIssued:  []string{"admin"},
			wantReason:  "missing",
			wantChanged: []string{"admin.crt", "admin.key"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := EnsureServing(dir, Options{Hosts: testHosts}); err != nil {
				t.Fatal(err)
			}
			if tt.prepare != nil {
				tt.prepare(t, dir)
			}
			before := snapshot(t, dir)
			b, err := EnsureServing(dir, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := issuedNames(b); !slices.Equal(got, tt.wantIssued) {
				t.Errorf("issued %v, want %v", got, tt.wantIssued)
			}
			if len(b.Issued) > 0 && b.Issued[0].Reason != tt.wantReason {
				t.Errorf("reason %q, want %q", b.Issued[0].Reason, tt.wantReason)
			}
			if got := changedFiles(before, snapshot(t, dir)); !slices.Equal(got, tt.wantChanged) {
				t.Errorf("changed %v, want %v", got, tt.wantChanged)
			}
			hosts := tt.opts.Hosts
			for _, h := range hosts {
				if err := b.Serving.Cert.VerifyHostname(h); err != nil {
					t.Errorf("serving certificate: %v", err)
				}
			}
			if err := b.Serving.Cert.CheckSignatureFrom(b.CA.Cert); err != nil {
				t.Errorf("serving certificate not signed by the CA: %v", err)
			}
			// A start after the re-issue reuses everything.
			again, err := EnsureServing(dir, tt.opts)
			if err != nil || len(again.Issued) != 0 {
				t.Errorf("next start issued %v, err %v", again.Issued, err)
			}
		})
	}
}

func TestBrokenDir(t *testing.T) {
	other := t.TempDir()
	if _, err := EnsureServing(other, Options{Hosts: testHosts}); err != nil {
		t.Fatal(err)
	}
	copyFile := func(t *testing.T, from, to string) {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		opts    Options
		prepare func(t *testing.T, dir string)
		wantErr string
	}{
		{name: "CA key missing", prepare: func(t *testing.T, dir string) { _ = os.Remove(filepath.Join(dir, "ca.key")) },
			wantErr: "pki: D/ca.key is missing but D/ca.crt exists; restore it, or remove both to have them made again (a new CA would invalidate every certificate the old one signed)"},
		{name: "CA certificate missing", prepare: func(t *testing.T, dir string) { _ = os.Remove(filepath.Join(dir, "ca.crt")) },
			wantErr: "pki: D/ca.crt is missing but D/ca.key exists"},
		{name: "CA certificate corrupt", prepare: func(t *testing.T, dir string) { _ = os.WriteFile(filepath.Join(dir, "ca.crt"), []byte("junk"), 0o644) },
			wantErr: "pki: D/ca.crt: no PEM CERTIFICATE block found"},
		{name: "CA key corrupt", prepare: func(t *testing.T, dir string) { _ = os.WriteFile(filepath.Join(dir, "ca.key"), []byte("junk"), 0o600) },
			wantErr: "pki: D/ca.key: no PEM private key block found"},
		{name: "CA key of another CA", prepare: func(t *testing.T, dir string) {
			copyFile(t, filepath.Join(other, "ca.key"), filepath.Join(dir, "ca.key"))
		},
			wantErr: "pki: D/ca.key: private key does not match the certificate in D/ca.crt"},
		{name: "CA is not a CA", prepare: func(t *testing.T, dir string) {
			copyFile(t, filepath.Join(dir, "admin.crt"), filepath.Join(dir, "ca.crt"))
			copyFile(t, filepath.Join(dir, "admin.key"), filepath.Join(dir, "ca.key"))
		}, wantErr: "pki: D/ca.crt: not a CA certificate"},
		{name: "CA expired", opts: Options{Hosts: testHosts, Now: func() time.Time { return time.Now().Add(11 * 365 * 24 * time.Hour) }},
			wantErr: "pki: D/ca.crt: the CA expired at"},
		{name: "serving key missing", prepare: func(t *testing.T, dir string) { _ = os.Remove(filepath.Join(dir, "apiserver.key")) },
			wantErr: "pki: D/apiserver.key is missing but D/apiserver.crt exists; restore it, or remove both to have them made again"},
		{name: "serving certificate corrupt", prepare: func(t *testing.T, dir string) {
			_ = os.WriteFile(filepath.Join(dir, "apiserver.crt"), []byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"), 0o644)
		},
			wantErr: "pki: D/apiserver.crt: certificate 0:"},
		{name: "admin certificate missing", prepare: func(t *testing.T, dir string) { _ = os.Remove(filepath.Join(dir, "admin.crt")) },
			wantErr: "pki: D/admin.crt is missing but D/admin.key exists"},
		{name: "no hosts", opts: Options{}, wantErr: "pki: hosts: at least one DNS name or IP required"},
		{name: "bad host", opts: Options{Hosts: []string{"localhost", "not a host"}}, wantErr: `pki: hosts[1]: "not a host" is neither an IP nor a DNS name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := EnsureServing(dir, Options{Hosts: testHosts}); err != nil {
				t.Fatal(err)
			}
			if tt.prepare != nil {
				tt.prepare(t, dir)
			}
			opts := tt.opts
			if opts.Hosts == nil && tt.name != "no hosts" {
				opts.Hosts = testHosts
			}
			before := snapshot(t, dir)
			_, err := EnsureServing(dir, opts)
			want := strings.ReplaceAll(tt.wantErr, "D/", dir+"/")
			if err == nil || !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("err = %v\nwant    %s...", err, want)
			}
			if changed := changedFiles(before, snapshot(t, dir)); len(changed) != 0 {
				t.Errorf("a failed start changed %v", changed)
			}
		})
	}
}

func TestEnsureClientCert(t *testing.T) {
	dir := t.TempDir()
	b, err := EnsureServing(dir, Options{Hosts: testHosts})
	if err != nil {
		t.Fatal(err)
	}
	sched, err := b.EnsureClientCert("scheduler", "system:kube-scheduler", nil)
	if err != nil {
		t.Fatal(err)
	}
	if sched.CertFile != filepath.Join(dir, "scheduler.crt") || sched.KeyFile != filepath.Join(dir, "scheduler.key") {
		t.Errorf("files %s %s", sched.CertFile, sched.KeyFile)
	}
	before := snapshot(t, dir)
	again, err := b.EnsureClientCert("scheduler", "system:kube-scheduler", nil)
	if err != nil || !again.Cert.Equal(sched.Cert) {
		t.Errorf("second call made a new certificate (err %v)", err)
	}
	node, err := b.EnsureClientCert("kubelet-node1", "system:node:node1", []string{"system:nodes"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := node.Cert.Verify(x509.VerifyOptions{Roots: b.CAPool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Error(err)
	}
	changed, err := b.EnsureClientCert("scheduler", "system:kube-scheduler", []string{"extra"})
	if err != nil || changed.Cert.Equal(sched.Cert) || !slices.Equal(changed.Cert.Subject.Organization, []string{"extra"}) {
		t.Errorf("a changed subject was not re-issued (err %v)", err)
	}
	if got := b.Issued[len(b.Issued)-1]; got.Name != "scheduler" || !strings.Contains(got.Reason, "subject is CN=system:kube-scheduler O=[]") {
		t.Errorf("last issue %+v", got)
	}
	if !bytes.Equal(before["admin.crt"], snapshot(t, dir)["admin.crt"]) {
		t.Error("admin certificate changed")
	}

	for _, tt := range []struct{ name, cn, wantErr string }{
		{name: "ca", cn: "x", wantErr: `pki: client certificate name "ca": reserved`},
		{name: "apiserver", cn: "x", wantErr: `pki: client certificate name "apiserver": reserved`},
		{name: "../evil", cn: "x", wantErr: "must be lower-case letters"},
		{name: "Upper", cn: "x", wantErr: "must be lower-case letters"},
		{name: "", cn: "x", wantErr: "must be lower-case letters"},
		{name: "ok", cn: "", wantErr: `pki: client certificate "ok": common name: required`},
	} {
		if _, err := b.EnsureClientCert(tt.name, tt.cn, nil); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("EnsureClientCert(%q, %q): err = %v, want %q", tt.name, tt.cn, err, tt.wantErr)
		}
	}
}

// newAPIServer starts a TLS server with the serving certificate of b that
// requires a client certificate signed by b's CA, and answers with the
// client's identity.
func newAPIServer(t *testing.T, b *Bundle) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := r.TLS.PeerCertificates[0]
		if r.URL.Path == "/healthz" {
			_, _ = io.WriteString(w, "ok")
			return
		}
		_, _ = io.WriteString(w, c.Subject.CommonName+" "+strings.Join(c.Subject.Organization, ",")+" "+r.Proto)
	}))
	srv.EnableHTTP2 = true
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{b.Serving.TLSCertificate()}, ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: b.CAPool()}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

func TestAdminKubeconfig(t *testing.T) {
	dir := t.TempDir()
	b, err := EnsureServing(filepath.Join(dir, "pki"), Options{Hosts: testHosts})
	if err != nil {
		t.Fatal(err)
	}
	srv := newAPIServer(t, b)
	path := filepath.Join(dir, "admin.kubeconfig")
	if err := WriteAdminKubeconfig(path, srv.URL, b); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode() != 0o600 {
		t.Fatalf("mode %v, err %v; want 0600", fi.Mode(), err)
	}
	raw, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if raw.CurrentContext != "kubecore" || raw.Contexts["kubecore"].Cluster != "kubecore" || raw.Contexts["kubecore"].AuthInfo != "kubecore" {
		t.Errorf("names %+v", raw)
	}
	if u := raw.AuthInfos["kubecore"]; len(u.ClientCertificateData) == 0 || len(u.ClientKeyData) == 0 || u.ClientCertificate != "" {
		t.Errorf("user not embedded: %+v", u)
	}

	rc, err := clientcmd.NewClientConfig(&clientcmd.LoadingRules{ExplicitPath: path}, nil).ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	client, err := rest.HTTPClientFor(rc)
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	resp, err := client.Get(srv.URL + "/whoami")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if got := string(body); got != "kubecore-admin system:masters HTTP/2.0" {
		t.Errorf("server saw %q", got)
	}

	// Writing the same kubeconfig again leaves the file alone.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if err := WriteAdminKubeconfig(path, srv.URL, b); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); !fi.ModTime().Equal(old) {
		t.Error("an identical kubeconfig was rewritten")
	}
	if err := WriteAdminKubeconfig(path, "", b); err == nil || !strings.Contains(err.Error(), "server URL: required") {
		t.Errorf("empty server: err = %v", err)
	}
}

// TestStockKubectl has the stock kubectl use the admin kubeconfig as it is.
func TestStockKubectl(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not installed")
	}
	dir := t.TempDir()
	b, err := EnsureServing(filepath.Join(dir, "pki"), Options{Hosts: testHosts})
	if err != nil {
		t.Fatal(err)
	}
	srv := newAPIServer(t, b)
	path := filepath.Join(dir, "admin.kubeconfig")
	// Reach the server by name, so that kubectl checks a DNS SAN too.
	if err := WriteAdminKubeconfig(path, strings.Replace(srv.URL, "127.0.0.1", "localhost", 1), b); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(kubectl, "--kubeconfig", path, "get", "--raw", "/healthz")
	cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")}
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "ok" {
		t.Fatalf("kubectl get --raw /healthz: %q, %v", out, err)
	}
}

func TestDefaultHosts(t *testing.T) {
	hostname, _ := os.Hostname()
	tests := []struct {
		bind    string
		want    []string
		wantErr string
	}{
		{bind: "", want: []string{"localhost", "127.0.0.1", "::1"}},
		{bind: "10.1.2.3", want: []string{"localhost", "127.0.0.1", "10.1.2.3"}},
		{bind: "0.0.0.0", want: []string{"localhost", "127.0.0.1"}},
		{bind: "example.com", wantErr: `bind address "example.com" is not an IP`},
	}
	for _, tt := range tests {
		t.Run(tt.bind, func(t *testing.T) {
			hosts, err := DefaultHosts(tt.bind)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range append(tt.want, hostname) {
				if !slices.Contains(hosts, w) {
					t.Errorf("%v lacks %s", hosts, w)
				}
			}
			if _, _, err := parseHosts(hosts); err != nil {
				t.Errorf("DefaultHosts gave hosts EnsureServing refuses: %v", err)
			}
		})
	}
	if hosts, _ := DefaultHosts("0.0.0.0"); hasInterfaceIP(t) && len(hosts) <= 4 {
		t.Errorf("0.0.0.0 added no interface address: %v", hosts)
	}
}

func hasInterfaceIP(t *testing.T) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.IsGlobalUnicast() {
			return true
		}
	}
	return false
}

func BenchmarkFirstStart(b *testing.B) {
	for b.Loop() {
		if _, err := EnsureServing(b.TempDir(), Options{Hosts: testHosts}); err != nil {
			b.Fatal(err)
		}
	}
}
