package clientcmd

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"

	"kubecore.io/client/tools/clientcmd/api"
)

// kubectl runs the stock kubectl, skipping the test when it is not installed.
func kubectl(t *testing.T, env []string, args ...string) []byte {
	t.Helper()
	path, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not installed")
	}
	cmd := exec.Command(path, args...)
	cmd.Env = append([]string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kubectl %v: %v\n%s", args, err, stderr.String())
	}
	return out
}

// TestKubectlWritesWeRead has kubectl write a kubeconfig and checks that we
// read every field, and write the same bytes back.
func TestKubectlWritesWeRead(t *testing.T) {
	m := newMaterial(t)
	path := filepath.Join(m.dir, "kubeconfig")
	k := func(args ...string) { kubectl(t, nil, append([]string{"--kubeconfig", path, "config"}, args...)...) }
	k("set-cluster", "embedded", "--server=https://10.1.2.3:6443", "--certificate-authority="+m.caFile, "--embed-certs=true")
	k("set-cluster", "byfile", "--server=https://h:6443", "--certificate-authority="+m.caFile, "--tls-server-name=api.internal", "--proxy-url=http://proxy:3128")
	k("set-cluster", "insecure", "--server=https://h:6443", "--insecure-skip-tls-verify=true")
	k("set-credentials", "certs", "--client-certificate="+m.certFile, "--client-key="+m.keyFile, "--embed-certs=true")
	k("set-credentials", "token", "--token=abc")
	k("set-credentials", "basic", "--username=u", "--password=p")
	k("set-context", "main", "--cluster=embedded", "--user=certs", "--namespace=team")
	k("set-context", "other", "--cluster=byfile", "--user=token")
	k("use-context", "main")

	written, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	checks := map[string][2]any{
		"ca data":         {string(cfg.Clusters["embedded"].CertificateAuthorityData), string(m.caPEM)},
		"ca file":         {cfg.Clusters["byfile"].CertificateAuthority, m.caFile},
		"tls-server-name": {cfg.Clusters["byfile"].TLSServerName, "api.internal"},
		"proxy-url":       {cfg.Clusters["byfile"].ProxyURL, "http://proxy:3128"},
		"insecure":        {cfg.Clusters["insecure"].InsecureSkipTLSVerify, true},
		"cert data":       {string(cfg.AuthInfos["certs"].ClientCertificateData), string(m.certPEM)},
		"key data":        {string(cfg.AuthInfos["certs"].ClientKeyData), string(m.keyPEM)},
		"token":           {cfg.AuthInfos["token"].Token, "abc"},
		"basic":           {cfg.AuthInfos["basic"].Username + ":" + cfg.AuthInfos["basic"].Password, "u:p"},
		"context":         {*cfg.Contexts["main"], api.Context{LocationOfOrigin: path, Cluster: "embedded", AuthInfo: "certs", Namespace: "team"}},
		"current-context": {cfg.CurrentContext, "main"},
	}
	for name, c := range checks {
		if !reflect.DeepEqual(c[0], c[1]) {
			t.Errorf("%s: got %v, want %v", name, c[0], c[1])
		}
	}
	if err := Write(cfg, path); err != nil {
		t.Fatal(err)
	}
	again, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, written) {
		t.Errorf("we write\n%s\nkubectl wrote\n%s", again, written)
	}
	rc, err := NewClientConfig(&LoadingRules{ExplicitPath: path}, nil).ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	if rc.Host != "https://10.1.2.3:6443" || string(rc.TLSClientConfig.CAData) != string(m.caPEM) || string(rc.TLSClientConfig.KeyData) != string(m.keyPEM) {
		t.Errorf("rest config %v", rc)
	}
}

// TestKubectlReadsWhatWeWrite has kubectl print back a kubeconfig we wrote.
func TestKubectlReadsWhatWeWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	cfg := fullConfig()
	if err := Write(cfg, path); err != nil {
		t.Fatal(err)
	}
	got := kubectl(t, nil, "--kubeconfig", path, "config", "view", "--raw", "-o", "json")
	ours, err := Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	assertSameJSON(t, got, ours)

	ctx := kubectl(t, nil, "--kubeconfig", path, "config", "current-context")
	if string(bytes.TrimSpace(ctx)) != "ctx" {
		t.Errorf("kubectl current-context = %q", ctx)
	}
}

// TestKubectlMergesLikeUs compares kubectl's merge of a KUBECONFIG list with ours.
func TestKubectlMergesLikeUs(t *testing.T) {
	dir := t.TempDir()
	a := writeKubeconfig(t, dir, "a", `
clusters:
- name: shared
  cluster: {server: 'https://from-a', insecure-skip-tls-verify: true}
users:
- name: u
  user: {token: from-a}
contexts:
- name: ca
  context: {cluster: shared, user: u, namespace: na}
`)
	b := writeKubeconfig(t, dir, "b", `
clusters:
- name: shared
  cluster: {server: 'https://from-b'}
- name: only-b
  cluster: {server: 'https://b', certificate-authority: /etc/b-ca.crt}
users:
- name: u
  user: {token: from-b}
- name: ub
  user: {username: admin, password: secret}
contexts:
- name: cb
  context: {cluster: only-b, user: ub}
current-context: cb
`)
	c := writeKubeconfig(t, dir, "c", "current-context: ca\n")
	list := filepath.Join(dir, "missing") + string(filepath.ListSeparator) + a + string(filepath.ListSeparator) + b + string(filepath.ListSeparator) + c
	got := kubectl(t, []string{"KUBECONFIG=" + list}, "config", "view", "--raw", "-o", "json")

	merged, err := (&LoadingRules{Precedence: filepath.SplitList(list)}).Load()
	if err != nil {
		t.Fatal(err)
	}
	ours, err := Marshal(merged)
	if err != nil {
		t.Fatal(err)
	}
	assertSameJSON(t, got, ours)
}

func assertSameJSON(t *testing.T, kubectlJSON, oursYAML []byte) {
	t.Helper()
	oursJSON, err := yaml.YAMLToJSON(oursYAML)
	if err != nil {
		t.Fatal(err)
	}
	var want, have any
	if err := json.Unmarshal(kubectlJSON, &want); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(oursJSON, &have); err != nil {
		t.Fatal(err)
	}
	// kubectl leaves out empty lists that we write as [].
	for _, key := range []string{"clusters", "users", "contexts"} {
		if l, ok := have.(map[string]any)[key].([]any); ok && len(l) == 0 {
			if _, present := want.(map[string]any)[key]; !present {
				delete(have.(map[string]any), key)
			}
		}
	}
	if !reflect.DeepEqual(want, have) {
		w, _ := json.MarshalIndent(want, "", "  ")
		h, _ := json.MarshalIndent(have, "", "  ")
		t.Errorf("kubectl sees\n%s\nwe have\n%s", w, h)
	}
}
