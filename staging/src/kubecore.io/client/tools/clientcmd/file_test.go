package clientcmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"kubecore.io/client/tools/clientcmd/api"
)

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		wantErr string
	}{
		{name: "bad YAML", data: "clusters: [\n", wantErr: "invalid YAML: yaml: line 1: did not find expected node content"},
		{name: "tab indentation", data: "clusters:\n\t- name: x\n", wantErr: "invalid YAML: yaml: line 2: found character that cannot start any token"},
		{name: "top level list", data: "- a\n- b\n", wantErr: "not a kubeconfig: the top level must be a map, got array"},
		{name: "top level string", data: "hello\n", wantErr: "not a kubeconfig: the top level must be a map, got string"},
		{name: "apiVersion", data: "apiVersion: v2\nkind: Config\n", wantErr: `apiVersion: unsupported value "v2", want v1`},
		{name: "kind", data: "apiVersion: v1\nkind: Pod\n", wantErr: `kind: unsupported value "Pod", want Config`},
		{name: "clusters not a list", data: "clusters: {}\n", wantErr: "clusters: got object, want a list"},
		{name: "current-context not a string", data: "current-context: [a]\n", wantErr: "current-context: got array, want a string"},
		{name: "bool field", data: "clusters:\n- name: c\n  cluster:\n    server: https://h\n    insecure-skip-tls-verify: maybe\n", wantErr: "clusters[0].cluster.insecure-skip-tls-verify: got string, want a boolean"},
		{name: "string field", data: "clusters:\n- name: c\n  cluster:\n    server: [1]\n", wantErr: "clusters[0].cluster.server: got array, want a string"},
		{name: "user not a map", data: "users:\n- name: u\n  user: token\n", wantErr: "users[0].user: got string, want a map"},
		{name: "as-groups", data: "users:\n- name: u\n  user:\n    as-groups: g\n", wantErr: "users[0].user.as-groups: got string, want a list"},
		{name: "client certificate base64", data: "users:\n- name: u\n  user:\n    client-certificate-data: abcd!efg\n", wantErr: "users[0].user.client-certificate-data: illegal base64 data at input byte 4"},
		{name: "client key base64", data: "users:\n- name: a\n  user: {}\n- name: u\n  user:\n    client-key-data: '@@@@'\n", wantErr: "users[1].user.client-key-data: illegal base64 data at input byte 0"},
		{name: "CA base64", data: "clusters:\n- name: c\n  cluster:\n    certificate-authority-data: YWJj=\n", wantErr: "clusters[0].cluster.certificate-authority-data: illegal base64 data at input byte 4"},
		{name: "CA data a number", data: "clusters:\n- name: c\n  cluster:\n    certificate-authority-data: 12\n", wantErr: "clusters[0].cluster.certificate-authority-data: got number, want a string"},
		{name: "duplicate cluster", data: "clusters:\n- name: c\n  cluster: {server: a}\n- name: c\n  cluster: {server: b}\n", wantErr: `clusters[1].name: duplicate name "c"`},
		{name: "duplicate context", data: "contexts:\n- name: x\n  context: {}\n- name: x\n  context: {}\n", wantErr: `contexts[1].name: duplicate name "x"`},
		{name: "missing name", data: "users:\n- user: {token: t}\n", wantErr: "users[0].name: required"},
		{name: "context extension without name", data: "contexts:\n- name: x\n  context:\n    extensions:\n    - extension: {}\n", wantErr: "contexts[0].context.extensions[0].name: required"},
		{name: "duplicate top extension", data: "extensions:\n- name: e\n  extension: 1\n- name: e\n  extension: 2\n", wantErr: `extensions[1].name: duplicate name "e"`},
		{name: "preferences", data: "preferences: []\n", wantErr: "preferences: got array, want a map"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load([]byte(tt.data))
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("err = %v\nwant    %s", err, tt.wantErr)
			}
		})
	}
}

func TestLoadEmpty(t *testing.T) {
	for _, data := range []string{"", "\n  \n", "null\n", "---\n", "apiVersion: v1\nkind: Config\nclusters: null\n", "{}"} {
		cfg, err := Load([]byte(data))
		if err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		if !cfg.IsEmpty() {
			t.Errorf("%q: not empty: %+v", data, cfg)
		}
	}
}

// fullConfig sets every field the file format has.
func fullConfig() *api.Config {
	cfg := api.NewConfig()
	cfg.Preferences = api.Preferences{Colors: true, Extensions: map[string]json.RawMessage{"p": json.RawMessage(`{"a":1}`)}}
	cfg.Clusters["c"] = &api.Cluster{
		Server:                   "https://10.0.0.1:6443",
		TLSServerName:            "api.example.com",
		InsecureSkipTLSVerify:    true,
		CertificateAuthority:     "/etc/ca.crt",
		CertificateAuthorityData: []byte("CA PEM"),
		ProxyURL:                 "socks5://proxy:1080",
		DisableCompression:       true,
		Extensions:               map[string]json.RawMessage{"x": json.RawMessage(`{"kind":"X"}`)},
	}
	cfg.AuthInfos["u"] = &api.AuthInfo{
		ClientCertificate:     "/etc/u.crt",
		ClientCertificateData: []byte("CERT PEM"),
		ClientKey:             "/etc/u.key",
		ClientKeyData:         []byte("KEY PEM"),
		Token:                 "tok",
		TokenFile:             "/etc/token",
		Impersonate:           "jane",
		ImpersonateUID:        "42",
		ImpersonateGroups:     []string{"g1", "g2"},
		ImpersonateUserExtra:  map[string][]string{"scopes": {"a"}},
		Username:              "user",
		Password:              "pass",
		AuthProvider:          json.RawMessage(`{"config":{"k":"v"},"name":"oidc"}`),
		Exec:                  json.RawMessage(`{"apiVersion":"client.authentication.k8s.io/v1","args":null,"command":"cred","env":null,"interactiveMode":"Never","provideClusterInfo":false}`),
		Extensions:            map[string]json.RawMessage{"e": json.RawMessage(`"v"`)},
	}
	cfg.Contexts["ctx"] = &api.Context{Cluster: "c", AuthInfo: "u", Namespace: "ns", Extensions: map[string]json.RawMessage{"e": json.RawMessage(`[1,2]`)}}
	cfg.Contexts["other"] = &api.Context{Cluster: "c"}
	cfg.CurrentContext = "ctx"
	cfg.Extensions = map[string]json.RawMessage{"top": json.RawMessage(`{"b":true}`)}
	return cfg
}

func TestMarshalRoundTrip(t *testing.T) {
	cfg := fullConfig()
	data, err := Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"apiVersion: v1\n", "kind: Config\n", "current-context: ctx\n",
		"certificate-authority-data: " + "Q0EgUEVN", "client-certificate-data: Q0VSVCBQRU0=", "client-key-data: S0VZIFBFTQ==",
		"tokenFile: /etc/token", "as-groups:", "as-user-extra:", "tls-server-name: api.example.com", "proxy-url: socks5://proxy:1080",
		"insecure-skip-tls-verify: true", "disable-compression: true", "exec:", "auth-provider:",
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("output lacks %q:\n%s", want, data)
		}
	}
	got, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []map[string]json.RawMessage{got.Preferences.Extensions, got.Extensions, got.Clusters["c"].Extensions, got.AuthInfos["u"].Extensions, got.Contexts["ctx"].Extensions} {
		for k, v := range m {
			m[k] = compactJSON(t, v)
		}
	}
	got.AuthInfos["u"].AuthProvider = compactJSON(t, got.AuthInfos["u"].AuthProvider)
	got.AuthInfos["u"].Exec = compactJSON(t, got.AuthInfos["u"].Exec)
	if !reflect.DeepEqual(got, cfg) {
		again, _ := Marshal(got)
		t.Errorf("round trip differs:\n%s\n---\n%s", again, data)
	}
}

func compactJSON(t *testing.T, raw json.RawMessage) json.RawMessage {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return out
}

func TestMarshalEmpty(t *testing.T) {
	data, err := Marshal(api.NewConfig())
	if err != nil {
		t.Fatal(err)
	}
	// What kubectl writes for an empty kubeconfig.
	want := "apiVersion: v1\nclusters: []\ncontexts: []\ncurrent-context: \"\"\nkind: Config\npreferences: {}\nusers: []\n"
	if string(data) != want {
		t.Errorf("got\n%s\nwant\n%s", data, want)
	}
}

func TestLoadFromFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "sub", "config")
	if err := os.MkdirAll(filepath.Dir(good), 0o700); err != nil {
		t.Fatal(err)
	}
	content := `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://h:6443
    certificate-authority: ca.crt
- name: abs
  cluster:
    server: https://h:6443
    certificate-authority: /abs/ca.crt
users:
- name: u
  user:
    client-certificate: ../certs/u.crt
    client-key: u.key
    tokenFile: token
contexts:
- name: x
  context: {cluster: c, user: u}
current-context: x
`
	if err := os.WriteFile(good, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadFromFile(good)
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Dir(good)
	checks := map[string][2]string{
		"certificate-authority":  {cfg.Clusters["c"].CertificateAuthority, filepath.Join(sub, "ca.crt")},
		"absolute path kept":     {cfg.Clusters["abs"].CertificateAuthority, "/abs/ca.crt"},
		"client-certificate":     {cfg.AuthInfos["u"].ClientCertificate, filepath.Join(dir, "certs", "u.crt")},
		"client-key":             {cfg.AuthInfos["u"].ClientKey, filepath.Join(sub, "u.key")},
		"tokenFile":              {cfg.AuthInfos["u"].TokenFile, filepath.Join(sub, "token")},
		"cluster origin":         {cfg.Clusters["c"].LocationOfOrigin, good},
		"user origin":            {cfg.AuthInfos["u"].LocationOfOrigin, good},
		"context origin":         {cfg.Contexts["x"].LocationOfOrigin, good},
		"current-context loaded": {cfg.CurrentContext, "x"},
	}
	for name, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s: got %q, want %q", name, c[0], c[1])
		}
	}

	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("users:\n- name: u\n  user:\n    client-certificate-data: abcd!efg\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	unreadable := filepath.Join(dir, "unreadable")
	tests := []struct {
		name, path, wantErr string
	}{
		{name: "bad base64", path: bad, wantErr: "kubeconfig " + bad + ": users[0].user.client-certificate-data: illegal base64 data at input byte 4"},
		{name: "missing", path: filepath.Join(dir, "missing"), wantErr: "kubeconfig " + filepath.Join(dir, "missing") + ": open: no such file or directory"},
		{name: "directory", path: dir, wantErr: "kubeconfig " + dir + ": read: is a directory"},
		{name: "unreadable", path: unreadable, wantErr: "kubeconfig " + unreadable + ": open: permission denied"},
	}
	if err := os.WriteFile(unreadable, []byte("{}"), 0o000); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		tests = tests[:len(tests)-1] // root reads anything
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadFromFile(tt.path)
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("err = %v\nwant    %s", err, tt.wantErr)
			}
		})
	}
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "new", "dir", "config")
	cfg := fullConfig()
	if err := Write(cfg, path); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{path: 0o600, filepath.Dir(path): os.ModeDir | 0o700} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode(), want)
		}
	}
	back, err := LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if back.Clusters["c"].Server != cfg.Clusters["c"].Server || string(back.AuthInfos["u"].ClientKeyData) != "KEY PEM" {
		t.Errorf("read back %+v", back)
	}

	// An existing file with a loose mode ends up 0600; a symlink keeps pointing at it.
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := Write(cfg, link); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if fi, err := os.Stat(target); err != nil || fi.Mode() != 0o600 {
		t.Errorf("target mode %v, err %v; want 0600", fi.Mode(), err)
	}
	if got, err := LoadFromFile(target); err != nil || got.CurrentContext != "ctx" {
		t.Errorf("target not rewritten: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}

	if err := Write(cfg, filepath.Join(target, "below-a-file")); err == nil || !strings.Contains(err.Error(), "kubeconfig "+filepath.Join(target, "below-a-file")) {
		t.Errorf("write below a file: err = %v", err)
	}
}

func TestWriteBackKeepsRelativePaths(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config")
	content := `apiVersion: v1
clusters:
- cluster:
    certificate-authority: certs/ca.crt
    server: https://h
  name: c
contexts: []
current-context: ""
kind: Config
preferences: {}
users:
- name: u
  user:
    client-certificate: /elsewhere/u.crt
    client-key: u.key
    tokenFile: ../outside/token
`
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Clusters["new"] = &api.Cluster{Server: "https://n", CertificateAuthority: filepath.Join(dir, "new-ca.crt")}
	if err := Write(cfg, path); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	for _, want := range []string{
		"certificate-authority: certs/ca.crt\n",                           // read from this file: relative again
		"client-key: u.key\n",                                             // likewise
		"client-certificate: /elsewhere/u.crt\n",                          // outside the directory: absolute
		"tokenFile: " + filepath.Join(filepath.Dir(dir), "outside/token"), // would need "..": absolute
		"certificate-authority: " + filepath.Join(dir, "new-ca.crt"),      // not from this file: as given
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("written file lacks %q:\n%s", want, got)
		}
	}
	// Written elsewhere, the paths stay absolute, so they still point at the same files.
	other := filepath.Join(t.TempDir(), "copy")
	if err := Write(cfg, other); err != nil {
		t.Fatal(err)
	}
	copied, err := LoadFromFile(other)
	if err != nil {
		t.Fatal(err)
	}
	if copied.Clusters["c"].CertificateAuthority != filepath.Join(dir, "certs/ca.crt") {
		t.Errorf("copy points at %s", copied.Clusters["c"].CertificateAuthority)
	}
}
