package clientcmd

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"kubecore.io/client/rest"
)

// TestUnreachableServerNamesKubeconfig checks that a request to a server
// that does not answer fails with one error naming both the server and the
// kubeconfig it came from.
func TestUnreachableServerNamesKubeconfig(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	server := "https://" + ln.Addr().String()
	ln.Close()
	dir := t.TempDir()
	path := writeKubeconfig(t, dir, "admin.kubeconfig", cluster("dev", "{server: '"+server+"', insecure-skip-tls-verify: true}"))

	tests := []struct {
		name       string
		kubeconfig string
		overrides  Overrides
		source     string
	}{
		{name: "--kubeconfig", kubeconfig: path, source: "kubeconfig " + path + `: cluster "dev"`},
		{name: "KUBECONFIG", source: "kubeconfig " + path + `: cluster "dev"`},
		{name: "--server", kubeconfig: path, overrides: Overrides{Server: server}, source: "--server with kubeconfig " + path + `: context "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(RecommendedConfigPathEnvVar, filepath.Join(dir, "none")+string(filepath.ListSeparator)+path)
			rules := NewDefaultLoadingRules()
			rules.ExplicitPath = tt.kubeconfig
			rc, err := NewClientConfig(rules, &tt.overrides).ClientConfig()
			if err != nil {
				t.Fatal(err)
			}
			if rc.Source != tt.source {
				t.Errorf("Source = %q, want %q", rc.Source, tt.source)
			}
			c, err := rest.RESTClientFor(rc)
			if err != nil {
				t.Fatal(err)
			}
			err = c.Get().Resource("pods").Do(context.Background()).Error()
			want := "GET /api/v1/pods on server " + server + " (from " + tt.source + "): dial tcp"
			if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "connection refused") {
				t.Errorf("error %v, want it to start with %q and say connection refused", err, want)
			}
		})
	}
}
