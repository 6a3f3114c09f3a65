package rest

import (
	"strings"
	"testing"
	"time"
)

func TestServerURL(t *testing.T) {
	tests := []struct {
		name    string
		config  Config
		want    string
		wantErr string
	}{
		{name: "https URL", config: Config{Host: "https://10.0.0.1:6443"}, want: "https://10.0.0.1:6443"},
		{name: "prefix kept", config: Config{Host: "https://h:6443/prefix"}, want: "https://h:6443/prefix"},
		{name: "host:port without TLS", config: Config{Host: "localhost:8080"}, want: "http://localhost:8080"},
		{name: "host:port with a CA", config: Config{Host: "localhost:6443", TLSClientConfig: TLSClientConfig{CAFile: "/ca"}}, want: "https://localhost:6443"},
		{name: "host:port insecure", config: Config{Host: "localhost:6443", TLSClientConfig: TLSClientConfig{Insecure: true}}, want: "https://localhost:6443"},
		{name: "empty", config: Config{}, wantErr: "host: must be set"},
		{name: "bad scheme", config: Config{Host: "ftp://h"}, wantErr: `host "ftp://h": scheme must be http or https`},
		{name: "no host", config: Config{Host: "https://"}, wantErr: `host "https://": no host name`},
		{name: "query", config: Config{Host: "https://h?x=1"}, wantErr: "must not have a query"},
		{name: "unparsable", config: Config{Host: "https://h:port"}, wantErr: `host "https://h:port": parse`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u, err := tt.config.ServerURL()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if u.String() != tt.want {
				t.Errorf("got %s, want %s", u, tt.want)
			}
		})
	}
}

func TestBuildUserAgent(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "subcommand of the one binary", args: []string{"/usr/bin/kubecore", "scheduler", "--v=2"}, want: "kubecore/v1.32.0 (linux/amd64) scheduler"},
		{name: "kubecore with a flag first", args: []string{"kubecore", "--help"}, want: "kubecore/v1.32.0 (linux/amd64) kubecore"},
		{name: "kubectl link", args: []string{"/home/u/bin/kubectl", "get", "pods"}, want: "kubecore/v1.32.0 (linux/amd64) kubectl"},
		{name: "user program", args: []string{"./my-controller", "run"}, want: "kubecore/v1.32.0 (linux/amd64) my-controller"},
		{name: "no args", args: nil, want: "kubecore/v1.32.0 (linux/amd64) unknown"},
		{name: "control characters", args: []string{"evil\r\nX-Injected: 1"}, want: "kubecore/v1.32.0 (linux/amd64) evil__X-Injected: 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := buildUserAgent(tt.args, "v1.32.0", "linux", "amd64"); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if ua := DefaultUserAgent(); !strings.HasPrefix(ua, "kubecore/v") {
		t.Errorf("DefaultUserAgent() = %q", ua)
	}
}

func TestConfigStringRedacts(t *testing.T) {
	c := &Config{
		Host:            "https://h",
		Password:        "hunter2",
		BearerToken:     "secret-token",
		TLSClientConfig: TLSClientConfig{KeyData: []byte("PRIVATE KEY BYTES"), CertData: []byte("cert")},
	}
	for _, s := range []string{c.String(), c.GoString()} {
		for _, secret := range []string{"hunter2", "secret-token", "PRIVATE KEY BYTES"} {
			if strings.Contains(s, secret) {
				t.Errorf("%q leaks %q", s, secret)
			}
		}
		if !strings.Contains(s, "https://h") {
			t.Errorf("%q lacks the host", s)
		}
	}
	if c.Password != "hunter2" || string(c.TLSClientConfig.KeyData) != "PRIVATE KEY BYTES" {
		t.Error("String changed the Config")
	}
}

func TestCopyConfig(t *testing.T) {
	c := &Config{
		Host:            "h",
		Timeout:         time.Second,
		Impersonate:     ImpersonationConfig{Groups: []string{"g"}, Extra: map[string][]string{"k": {"v"}}},
		TLSClientConfig: TLSClientConfig{CAData: []byte("ca"), CertData: []byte("c"), KeyData: []byte("k")},
	}
	cp := CopyConfig(c)
	cp.Impersonate.Groups[0] = "x"
	cp.Impersonate.Extra["k"][0] = "x"
	cp.TLSClientConfig.CAData[0] = 'x'
	cp.TLSClientConfig.KeyData[0] = 'x'
	if c.Impersonate.Groups[0] != "g" || c.Impersonate.Extra["k"][0] != "v" || string(c.TLSClientConfig.CAData) != "ca" || string(c.TLSClientConfig.KeyData) != "k" {
		t.Error("the copy shares memory with the original")
	}
	if cp.Host != "h" || cp.Timeout != time.Second {
		t.Error("the copy lost fields")
	}
}
