package clientcmd

import (
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kubecore.io/client/rest"
	"kubecore.io/client/tools/clientcmd/api"
)

const failoverCluster = `{server: 'https://a:6443', insecure-skip-tls-verify: true, extensions: [{name: kubecore.io/failover, extension: {servers: ['https://b:6443', 'https://c:6443']}}]}`

func TestFailoverServers(t *testing.T) {
	dir := t.TempDir()
	path := writeKubeconfig(t, dir, "config", cluster("c", failoverCluster))
	for _, tc := range []struct {
		name, server string
		want         []string
	}{
		{"kubeconfig", "", []string{"https://a:6443", "https://b:6443", "https://c:6443"}},
		{"--server list wins", "https://x:1, https://y:2", []string{"https://x:1", "https://y:2"}},
		{"one --server drops the list", "https://x:1", []string{"https://x:1"}},
	} {
		rc, err := BuildConfigFromFlags(tc.server, path)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := append([]string{rc.Host}, rc.FailoverHosts...); !slices.Equal(got, tc.want) {
			t.Errorf("%s: servers %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestFailoverServersErrors(t *testing.T) {
	dir := t.TempDir()
	ext := func(value string) string {
		return cluster("c", `{server: 'https://a:6443', insecure-skip-tls-verify: true, extensions: [{name: kubecore.io/failover, extension: `+value+`}]}`)
	}
	for _, tc := range []struct {
		name, kubeconfig, server, want string
	}{
		{"unknown field", ext(`{server: ['https://b']}`), "", `cluster "c": extensions[kubecore.io/failover]: json: unknown field "server"`},
		{"empty entry", ext(`{servers: ['']}`), "", `cluster "c": extensions[kubecore.io/failover].servers[0]: empty`},
		{"not a list", ext(`{servers: 'https://b'}`), "", `cluster "c": extensions[kubecore.io/failover]: json: cannot unmarshal`},
		{"plain http", ext(`{servers: ['http://b']}`), "", `cluster "c": servers: host "http://b": scheme http differs from https`},
		{"twice", ext(`{servers: ['https://a:6443']}`), "", `servers: host "https://a:6443": given twice`},
		{"bad --server entry", ext(`{servers: []}`), "https://a,ftp://b", `servers: host "ftp://b": scheme must be http or https`},
	} {
		path := writeKubeconfig(t, dir, "config", tc.kubeconfig)
		_, err := BuildConfigFromFlags(tc.server, path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestSetServersRoundTrip writes a cluster with several servers and reads
// it back, with our loader and with the stock kubectl, which must still
// accept the file and use the first server.
func TestSetServersRoundTrip(t *testing.T) {
	cfg := api.NewConfig()
	c := &api.Cluster{CertificateAuthorityData: []byte("CA")}
	if err := SetServers(c, []string{"https://10.0.0.1:6443", "https://10.0.0.2:6443"}); err != nil {
		t.Fatal(err)
	}
	cfg.Clusters["kubecore"] = c
	cfg.AuthInfos["kubecore"] = &api.AuthInfo{Token: "t"}
	cfg.Contexts["kubecore"] = &api.Context{Cluster: "kubecore", AuthInfo: "kubecore"}
	cfg.CurrentContext = "kubecore"
	path := filepath.Join(t.TempDir(), "config")
	if err := Write(cfg, path); err != nil {
		t.Fatal(err)
	}
	back, err := LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := FailoverServers(back.Clusters["kubecore"])
	if err != nil || back.Clusters["kubecore"].Server != "https://10.0.0.1:6443" || !slices.Equal(got, []string{"https://10.0.0.2:6443"}) {
		t.Fatalf("read back server %q, failover %v, %v", back.Clusters["kubecore"].Server, got, err)
	}
	ours, err := Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	assertSameJSON(t, kubectl(t, nil, "--kubeconfig", path, "config", "view", "--raw", "-o", "json"), ours)
	server := kubectl(t, nil, "--kubeconfig", path, "config", "view", "-o", "jsonpath={.clusters[0].cluster.server}")
	if string(server) != "https://10.0.0.1:6443" {
		t.Errorf("kubectl's server = %q", server)
	}

	// One server left: the extension goes.
	if err := SetServers(c, []string{"https://10.0.0.3:6443"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Extensions[FailoverExtension]; ok || c.Server != "https://10.0.0.3:6443" {
		t.Errorf("one server: %+v", c)
	}
	if err := SetServers(c, nil); err == nil {
		t.Error("SetServers with no server succeeded")
	}
}

// TestFailoverOverTLS: the kubeconfig's server is down; the request goes to
// the next server of the extension, verified against the cluster CA, with
// the user's client certificate.
func TestFailoverOverTLS(t *testing.T) {
	m := newMaterial(t)
	newServer := func() *httptest.Server {
		srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "hello "+r.TLS.PeerCertificates[0].Subject.CommonName)
		}))
		srv.EnableHTTP2 = true
		srv.TLS = &tls.Config{Certificates: []tls.Certificate{m.serving}, ClientAuth: tls.RequireAnyClientCert}
		srv.StartTLS()
		t.Cleanup(srv.Close)
		return srv
	}
	down, up := newServer(), newServer()
	down.Close()
	path := writeKubeconfig(t, m.dir, "config", `clusters:
- name: c
  cluster:
    server: `+down.URL+`
    certificate-authority: ca.crt
    extensions:
    - name: kubecore.io/failover
      extension:
        servers: [`+up.URL+`]
users:
- name: u
  user: {client-certificate: u.crt, client-key: u.key}
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`)
	rc, err := BuildConfigFromFlags("", path)
	if err != nil {
		t.Fatal(err)
	}
	client, err := rest.RESTClientFor(rc)
	if err != nil {
		t.Fatal(err)
	}
	defer client.CloseIdleConnections()
	body, err := client.Get().AbsPath("/healthz").DoRaw(t.Context())
	if err != nil || string(body) != "hello alice" {
		t.Fatalf("GET through the kubeconfig: %q, %v", body, err)
	}
}
