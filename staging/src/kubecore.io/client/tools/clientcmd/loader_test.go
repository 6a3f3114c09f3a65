package clientcmd

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeKubeconfig(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadingRulesMerge(t *testing.T) {
	dir := t.TempDir()
	a := writeKubeconfig(t, dir, "a", `
clusters:
- name: shared
  cluster: {server: https://from-a}
users:
- name: ua
  user: {token: a}
contexts:
- name: ca
  context: {cluster: shared, user: ua}
`)
	b := writeKubeconfig(t, dir, "b", `
clusters:
- name: shared
  cluster: {server: https://from-b}
- name: only-b
  cluster: {server: https://b}
contexts:
- name: cb
  context: {cluster: only-b, namespace: nb}
current-context: cb
preferences: {colors: true}
`)
	c := writeKubeconfig(t, dir, "c", "current-context: ca\n")
	missing := filepath.Join(dir, "missing")

	rules := &LoadingRules{Precedence: []string{missing, a, b, c}}
	cfg, err := rules.Load()
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Clusters["shared"].Server; got != "https://from-a" {
		t.Errorf("shared cluster from %q, want the first file's", got)
	}
	if cfg.Clusters["shared"].LocationOfOrigin != a || cfg.Clusters["only-b"].LocationOfOrigin != b {
		t.Errorf("origins %q %q", cfg.Clusters["shared"].LocationOfOrigin, cfg.Clusters["only-b"].LocationOfOrigin)
	}
	if cfg.CurrentContext != "cb" {
		t.Errorf("current-context %q, want cb (the first file that sets it)", cfg.CurrentContext)
	}
	if len(cfg.Contexts) != 2 || len(cfg.AuthInfos) != 1 || !cfg.Preferences.Colors {
		t.Errorf("merged %+v", cfg)
	}
	ns, explicit, err := NewClientConfig(rules, nil).Namespace()
	if err != nil || ns != "nb" || explicit {
		t.Errorf("Namespace() = %q %v %v, want nb false nil", ns, explicit, err)
	}

	// A corrupt file anywhere in the list is an error naming it.
	bad := writeKubeconfig(t, dir, "bad", "clusters: 3\n")
	_, err = (&LoadingRules{Precedence: []string{a, bad}}).Load()
	if want := "kubeconfig " + bad + ": clusters: got number, want a list"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}

	// The explicit file must exist, and is read alone.
	_, err = (&LoadingRules{ExplicitPath: missing, Precedence: []string{a}}).Load()
	if want := "kubeconfig " + missing + ": open: no such file or directory"; err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	cfg, err = (&LoadingRules{ExplicitPath: b, Precedence: []string{a}}).Load()
	if err != nil || cfg.Clusters["shared"].Server != "https://from-b" {
		t.Errorf("explicit file not read alone: %v", err)
	}

	// No file at all is an empty config.
	cfg, err = (&LoadingRules{Precedence: []string{missing}}).Load()
	if err != nil || !cfg.IsEmpty() {
		t.Errorf("got %+v, %v; want an empty config", cfg, err)
	}
}

func TestNewDefaultLoadingRules(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	sep := string(filepath.ListSeparator)
	tests := []struct {
		name       string
		kubeconfig string
		want       []string
	}{
		{name: "unset", kubeconfig: "", want: []string{filepath.Join(home, ".kube", "config")}},
		{name: "one", kubeconfig: "/a", want: []string{"/a"}},
		{name: "list with blanks and repeats", kubeconfig: "/a" + sep + sep + "/b" + sep + "/a" + sep, want: []string{"/a", "/b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(RecommendedConfigPathEnvVar, tt.kubeconfig)
			rules := NewDefaultLoadingRules()
			if !reflect.DeepEqual(rules.Precedence, tt.want) || rules.ExplicitPath != "" {
				t.Errorf("got %+v, want precedence %v", rules, tt.want)
			}
		})
	}
}

func TestDefaultFilename(t *testing.T) {
	dir := t.TempDir()
	exists := writeKubeconfig(t, dir, "exists", "")
	tests := []struct {
		name  string
		rules LoadingRules
		want  string
	}{
		{name: "explicit", rules: LoadingRules{ExplicitPath: "/x", Precedence: []string{exists}}, want: "/x"},
		{name: "first existing", rules: LoadingRules{Precedence: []string{"/nope", exists}}, want: exists},
		{name: "none exists", rules: LoadingRules{Precedence: []string{"/nope1", "/nope2"}}, want: "/nope1"},
		{name: "nothing", rules: LoadingRules{}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.rules.DefaultFilename(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWhere(t *testing.T) {
	l := &loaded{candidates: []string{"/home/u/.kube/config"}}
	if got := l.where(); !strings.Contains(got, "no file at /home/u/.kube/config") {
		t.Errorf("where() = %q", got)
	}
}
