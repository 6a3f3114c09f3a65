package client

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/tools/clientcmd"
	"kubecore.io/client/tools/clientcmd/api"
	"kubecore.io/client/typed"
	"kubecore.io/client/util/cert"

	"kubecore.io/kubecore/test/integration/client/testserver"
)

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// otherCA returns a PEM CA certificate that did not sign the server's.
func otherCA(t *testing.T) []byte {
	t.Helper()
	key, err := cert.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	ca, err := cert.NewSelfSignedCACert(cert.Config{CommonName: "someone-else-ca"}, key)
	if err != nil {
		t.Fatal(err)
	}
	return cert.EncodeCertPEM(ca)
}

// only reports whether s occurs exactly once in msg.
func only(msg, s string) bool { return strings.Count(msg, s) == 1 }

// TestMisconfiguredServer loads kubeconfigs that point at a kubecore API
// server the wrong way; a request gives one error, on one line, that names
// the kubeconfig and the server once each and says what went wrong.
func TestMisconfiguredServer(t *testing.T) {
	s := testserver.Start(t)
	admin, err := clientcmd.LoadFromFile(s.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	clusterName := admin.Contexts[admin.CurrentContext].Cluster
	down := "https://" + freeAddr(t)
	httpURL := "http://" + strings.TrimPrefix(s.URL(), "https://")

	tests := []struct {
		name   string
		mutate func(c *api.Cluster, u *api.AuthInfo)
		server string   // the server the error must name
		want   []string // the error says these
	}{
		{
			name:   "nothing listens",
			mutate: func(c *api.Cluster, _ *api.AuthInfo) { c.Server = down },
			server: down, want: []string{"connection refused"},
		},
		{
			name:   "server certificate from another CA",
			mutate: func(c *api.Cluster, _ *api.AuthInfo) { c.CertificateAuthorityData = otherCA(t) },
			server: s.URL(), want: []string{"certificate signed by unknown authority"},
		},
		{
			name:   "server name not in its certificate",
			mutate: func(c *api.Cluster, _ *api.AuthInfo) { c.TLSServerName = "not-the-apiserver.example" },
			server: s.URL(), want: []string{"not-the-apiserver.example"},
		},
		{
			name: "http to the https port",
			mutate: func(c *api.Cluster, _ *api.AuthInfo) {
				c.Server = httpURL
				c.CertificateAuthorityData = nil
			},
			server: httpURL, want: []string{"HTTPS"},
		},
		{
			name: "no credentials",
			mutate: func(_ *api.Cluster, u *api.AuthInfo) {
				*u = api.AuthInfo{}
			},
			server: s.URL(), want: []string{"Unauthorized"},
		},
		{
			name: "token the server does not know",
			mutate: func(_ *api.Cluster, u *api.AuthInfo) {
				*u = api.AuthInfo{Token: "not-a-token"}
			},
			server: s.URL(), want: []string{"Unauthorized"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := clientcmd.LoadFromFile(s.Kubeconfig)
			if err != nil {
				t.Fatal(err)
			}
			ctx := cfg.Contexts[cfg.CurrentContext]
			tt.mutate(cfg.Clusters[ctx.Cluster], cfg.AuthInfos[ctx.AuthInfo])
			path := filepath.Join(t.TempDir(), "bad.kubeconfig")
			if err := clientcmd.Write(cfg, path); err != nil {
				t.Fatal(err)
			}
			rc, err := clientcmd.BuildConfigFromFlags("", path)
			if err != nil {
				t.Fatalf("load %s: %v", path, err)
			}
			rc.Timeout = 30 * time.Second
			cs, err := typed.NewForConfig(rc)
			if err != nil {
				t.Fatal(err)
			}
			_, err = cs.CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{})
			if err == nil {
				t.Fatal("the request succeeded")
			}
			msg := err.Error()
			t.Logf("error: %s", msg)
			if strings.Contains(msg, "\n") {
				t.Errorf("the error spans several lines: %q", msg)
			}
			if !only(msg, path) {
				t.Errorf("the error does not name the kubeconfig %s once: %s", path, msg)
			}
			if !only(msg, tt.server) {
				t.Errorf("the error does not name the server %s once: %s", tt.server, msg)
			}
			if !strings.Contains(msg, fmt.Sprintf("cluster %q", clusterName)) {
				t.Errorf("the error does not name the cluster %q: %s", clusterName, msg)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("the error does not say %q: %s", w, msg)
				}
			}
		})
	}

	// The admin kubeconfig as written works: the failures above are the
	// mutations', not the server's.
	if _, err := s.Clientset.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "still-fine"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("the admin kubeconfig fails too: %v", err)
	}
}

// TestCorruptKubeconfig corrupts the kubeconfig a kubecore API server
// wrote; loading it fails with an error that names the file and the field.
func TestCorruptKubeconfig(t *testing.T) {
	s := testserver.Start(t)
	good, err := os.ReadFile(s.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	text := string(good)
	replaceValue := func(key, value string) func() string {
		return func() string {
			var out []string
			found := false
			for line := range strings.SplitSeq(text, "\n") {
				trimmed := strings.TrimSpace(line)
				if !found && strings.HasPrefix(trimmed, key+":") {
					found = true
					line = line[:strings.Index(line, key)] + key + ": " + value
				}
				out = append(out, line)
			}
			if !found {
				t.Fatalf("the admin kubeconfig has no %s:\n%s", key, text)
			}
			return strings.Join(out, "\n")
		}
	}
	tests := []struct {
		name    string
		content func() string
		field   string // the error names this field (or position)
	}{
		{name: "truncated", content: func() string { return text[:len(text)/2] + "\n  - ]" }, field: "invalid YAML: yaml: line"},
		{name: "CA data not base64", content: replaceValue("certificate-authority-data", "'not*base64'"), field: "clusters[0].cluster.certificate-authority-data: illegal base64 data"},
		{name: "client key not base64", content: replaceValue("client-key-data", "'@@@@'"), field: "users[0].user.client-key-data: illegal base64 data"},
		{name: "server a list", content: replaceValue("server", "[https://a, https://b]"), field: "clusters[0].cluster.server: got array, want a string"},
		{name: "wrong kind", content: replaceValue("kind", "Pod"), field: `kind: unsupported value "Pod", want Config`},
		{name: "client certificate not PEM", content: replaceValue("client-certificate-data", "bm90IGEgY2VydGlmaWNhdGU="), field: "client-certificate-data: no PEM CERTIFICATE block found"},
		{name: "current context missing", content: replaceValue("current-context", "nowhere"), field: `context "nowhere" not found`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "corrupt.kubeconfig")
			if err := os.WriteFile(path, []byte(tt.content()), 0o600); err != nil {
				t.Fatal(err)
			}
			for _, how := range []string{"--kubeconfig", "KUBECONFIG"} {
				var err error
				if how == "KUBECONFIG" {
					// The corrupt file first in a merged list, so that its
					// entries win over the good file's of the same names.
					t.Setenv(clientcmd.RecommendedConfigPathEnvVar, path+string(filepath.ListSeparator)+s.Kubeconfig)
					_, err = clientcmd.NewClientConfig(clientcmd.NewDefaultLoadingRules(), &clientcmd.Overrides{Context: ""}).ClientConfig()
				} else {
					_, err = clientcmd.BuildConfigFromFlags("", path)
				}
				if err == nil {
					t.Fatalf("%s: loading succeeded", how)
				}
				msg := err.Error()
				t.Logf("%s: %s", how, msg)
				if strings.Contains(msg, "\n") {
					t.Errorf("%s: the error spans several lines: %q", how, msg)
				}
				if !only(msg, path) {
					t.Errorf("%s: the error does not name %s once: %s", how, path, msg)
				}
				if !strings.Contains(msg, tt.field) {
					t.Errorf("%s: the error does not say %q: %s", how, tt.field, msg)
				}
			}
		})
	}
}
