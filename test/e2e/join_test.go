package e2e

import (
	"context"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/pkg/pki"
	"kubecore.io/kubecore/test/e2e/framework"
)

// joinCommand is what `kubecore token create --print-join-command` printed.
type joinCommand struct{ server, token, hash string }

// createJoinToken makes a bootstrap token with ttl through the bundled
// CLI and returns the join command it printed.
func createJoinToken(t *testing.T, s *framework.APIServer, bin, ttl string) joinCommand {
	t.Helper()
	out := strings.TrimSpace(s.CLI(bin).MustRun(t, "token", "create", "--kubeconfig", s.Kubeconfig, "--ttl", ttl, "--print-join-command"))
	f := strings.Fields(out)
	if len(f) != 10 || f[0] != "kubecore" || f[1] != "kubelet" || f[2] != "--server" || f[4] != "--token" || f[6] != "--ca-cert-hash" || f[8] != "--root-dir" {
		t.Fatalf("join command %q: want kubecore kubelet --server S --token T --ca-cert-hash H --root-dir D", out)
	}
	return joinCommand{server: f[3], token: f[5], hash: f[7]}
}

// kubeletArgs are the arguments of a joining kubelet with the fake
// runtime on a free port.
func (j joinCommand) kubeletArgs(root, node string) []string {
	return []string{"kubelet", "--server", j.server, "--token", j.token, "--ca-cert-hash", j.hash,
		"--root-dir", root, "--node-name", node, "--runtime", "fake", "--port", "0"}
}

// expectJoinRefused runs a joining kubelet that must exit non-zero with a
// one-line error containing want.
func expectJoinRefused(t *testing.T, run *framework.Kubectl, args []string, want string) {
	t.Helper()
	r := run.Run(t, args...)
	if r.ExitCode == 0 {
		t.Fatalf("the kubelet joined:\n%s", r)
	}
	var errLine string
	for _, l := range strings.Split(strings.TrimSpace(r.Stderr), "\n") {
		if strings.HasPrefix(l, "error: ") {
			errLine = l
		}
	}
	if !strings.Contains(errLine, want) {
		t.Fatalf("want an error line containing %q:\n%s", want, r)
	}
}

// TestJoinNode joins a second kubelet to an all-in-one cluster with only a
// bootstrap token and the CA hash: its Node registers Ready with a
// certificate for system:node:NAME issued through an approved CSR, which
// the stock kubectl lists; a wrong hash, a wrong token and an expired
// token are refused; the joined kubelet may change its own Node and not
// another; a restart reuses its kubeconfig without the token.
func TestJoinNode(t *testing.T) {
	s := framework.StartAllInOne(t, "")
	bin, err := framework.Binary()
	if err != nil {
		t.Fatal(err)
	}
	kubectl := s.Kubectl(t)
	run := s.CLI(bin)
	work := t.TempDir()
	join := createJoinToken(t, s, bin, "1h")

	t.Run("cluster-info is public, nothing else", func(t *testing.T) {
		anon, err := s.HTTPClient(false)
		if err != nil {
			t.Fatal(err)
		}
		for path, want := range map[string]int{
			"/api/v1/namespaces/kube-public/configmaps/cluster-info": http.StatusOK,
			"/api/v1/namespaces/kube-public/configmaps":              http.StatusUnauthorized,
			"/api/v1/namespaces/kube-system/configmaps/cluster-info": http.StatusUnauthorized,
		} {
			resp, err := anon.Get(s.URL + path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != want {
				t.Errorf("anonymous GET %s: %d %s, want %d", path, resp.StatusCode, body, want)
			}
		}
	})

	t.Run("wrong CA hash", func(t *testing.T) {
		bad := join
		bad.hash = "sha256:" + strings.Repeat("0", 64)
		expectJoinRefused(t, run, bad.kubeletArgs(filepath.Join(work, "badhash"), "badhash"), "refusing to trust "+join.server+": its CA's public key hash is "+join.hash)
	})
	t.Run("wrong token", func(t *testing.T) {
		bad := join
		bad.token = "abcdef.0123456789abcdef"
		expectJoinRefused(t, run, bad.kubeletArgs(filepath.Join(work, "badtoken"), "badtoken"), "refused the bootstrap token (401 Unauthorized)")
	})
	t.Run("expired token", func(t *testing.T) {
		expired := createJoinToken(t, s, bin, "1s")
		time.Sleep(1500 * time.Millisecond)
		expectJoinRefused(t, run, expired.kubeletArgs(filepath.Join(work, "expired"), "expired"), "refused the bootstrap token (401 Unauthorized)")
	})

	const node = "joined-1"
	root := filepath.Join(work, node)
	kubelet := run.Start(t, join.kubeletArgs(root, node)...)
	nodeReady := func() bool {
		r := kubectl.Run(t, "get", "node", node, "-o", `jsonpath={.status.conditions[?(@.type=="Ready")].status}`)
		return r.ExitCode == 0 && r.Stdout == "True"
	}
	if !framework.WaitFor(context.Background(), 60*time.Second, nodeReady) {
		t.Fatalf("node %s is not Ready\nkubelet stderr:\n%s", node, kubelet.Stderr())
	}

	// Its certificate: system:node:NAME in system:nodes, from the cluster CA.
	b, err := os.ReadFile(filepath.Join(root, "pki", "kubelet-client.crt"))
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(b)
	if block == nil {
		t.Fatal("no PEM certificate in kubelet-client.crt")
	}
	c, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if c.Subject.CommonName != "system:node:"+node || strings.Join(c.Subject.Organization, ",") != "system:nodes" {
		t.Errorf("certificate subject %s, want CN=system:node:%s, O=system:nodes", c.Subject, node)
	}
	caPEM, err := os.ReadFile(pki.CACertPath(filepath.Join(s.DataDir, "pki")))
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(caPEM)
	if _, err := c.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Errorf("the kubelet's certificate does not chain to the cluster CA for client auth: %v", err)
	}

	// The stock kubectl lists the approved and issued request.
	tb := parseTable(t, kubectl.MustRun(t, "get", "csr"))
	expectHeader(t, "get csr", tb, "NAME", "AGE", "SIGNERNAME", "REQUESTOR", "REQUESTEDDURATION", "CONDITION")
	if len(tb.rows) != 1 {
		t.Fatalf("want one CSR, got %d:\n%v", len(tb.rows), tb.rows)
	}
	tokenID, _, _ := strings.Cut(join.token, ".")
	row := tb.row(t, tb.rows[0][0])
	if row["SIGNERNAME"] != "kubernetes.io/kube-apiserver-client-kubelet" || row["REQUESTOR"] != "system:bootstrap:"+tokenID ||
		row["REQUESTEDDURATION"] != "<none>" || row["CONDITION"] != "Approved,Issued" {
		t.Errorf("csr row %v", row)
	}

	// The node's kubeconfig may change its own Node and no other.
	asNode := &framework.Kubectl{Path: framework.KubectlPath, Kubeconfig: filepath.Join(root, "kubelet.kubeconfig"), Home: t.TempDir()}
	asNode.MustRun(t, "label", "node", node, "joined=yes")
	other := strings.TrimSpace(kubectl.MustRun(t, "get", "nodes", "-o", fmt.Sprintf(`jsonpath={.items[?(@.metadata.name!="%s")].metadata.name}`, node)))
	if other == "" {
		t.Fatal("the all-in-one node is missing")
	}
	r := asNode.MustFail(t, "", "label", "node", other, "joined=no")
	if !strings.Contains(r.Stderr, "(Forbidden)") || !strings.Contains(r.Stderr, "cannot modify node '"+other+"'") {
		t.Errorf("patching node %s as %s: want 403 Forbidden\n%s", other, node, r)
	}

	// A restart reuses the kubeconfig: the token may be gone by then.
	kubelet.Stop()
	run.MustRun(t, "token", "delete", "--kubeconfig", s.Kubeconfig, join.token)
	again := run.Start(t, join.kubeletArgs(root, node)...)
	if !framework.WaitFor(context.Background(), 30*time.Second, func() bool {
		return strings.Contains(again.Stderr(), `"Node registered" node="`+node+`"`)
	}) {
		t.Fatalf("the restarted kubelet did not register\n%s", again.Stderr())
	}
	if again.Exited() || !nodeReady() {
		t.Fatalf("the restarted kubelet is not running\n%s", again.Stderr())
	}
	if n := len(parseTable(t, kubectl.MustRun(t, "get", "csr")).rows); n != 1 {
		t.Errorf("the restart made another CSR: %d in all", n)
	}
	again.Stop()
}
