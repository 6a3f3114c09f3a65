package etcd

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	etcdpkg "kubecore.io/kubecore/pkg/etcd"
)

func TestValidate(t *testing.T) {
	for name, tc := range map[string]struct {
		mutate func(*Options)
		want   string
	}{
		"defaults":          {func(*Options) {}, ""},
		"no data dir":       {func(o *Options) { o.DataDir = "" }, "--data-dir is required"},
		"bad url":           {func(o *Options) { o.ListenClientURLs = []string{"127.0.0.1:2379"} }, "--listen-client-urls"},
		"bad state":         {func(o *Options) { o.InitialClusterState = "maybe" }, "--initial-cluster-state"},
		"bad membership":    {func(o *Options) { o.InitialCluster = "a=http://x:1,b" }, `"b" is not name=peerURL`},
		"cert without key":  {func(o *Options) { o.ClientTLS.CertFile = "c" }, "--cert-file and --key-file go together"},
		"https without TLS": {func(o *Options) { o.ListenPeerURLs = []string{"https://127.0.0.1:1"} }, `--listen-peer-urls: "https://127.0.0.1:1" must be http:// without --peer-cert-file or --pki-dir`},
		"pki dir with http": {func(o *Options) { o.PKIDir = "d" }, `--listen-client-urls: "http://127.0.0.1:2379" must be https:// with TLS`},
		"auth without CA":   {func(o *Options) { o.PeerTLS = etcdpkg.TLSConfig{CertFile: "c", KeyFile: "k", ClientCertAuth: true} }, "--peer-client-cert-auth needs --peer-trusted-ca-file"},
	} {
		t.Run(name, func(t *testing.T) {
			o := NewOptions()
			tc.mutate(o)
			err := errors.Join(o.Validate()...)
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("Validate() = %v, want %q", err, tc.want)
			}
		})
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// TestThreeMemberCluster forms a cluster of three members on loopback and
// writes through one, reads through another.
func TestThreeMemberCluster(t *testing.T) {
	testThreeMembers(t, "")
}

// TestThreeMemberClusterTLS does the same with --pki-dir: peers talk TLS
// with client certificates, and so must clients — the one issued by
// `kubecore etcd client-cert` works, one without a certificate does not.
func TestThreeMemberClusterTLS(t *testing.T) {
	pkiDir := filepath.Join(t.TempDir(), "pki")
	var out strings.Builder
	if err := issueClientCert(&out, pkiDir, "apiserver-etcd-client"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "apiserver-etcd-client.crt") {
		t.Errorf("client-cert printed %q", out.String())
	}
	testThreeMembers(t, pkiDir)
}

func testThreeMembers(t *testing.T, pkiDir string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	base := t.TempDir()
	scheme := "http"
	var tlsConfig *tls.Config
	if pkiDir != "" {
		scheme = "https"
		pair, err := tls.LoadX509KeyPair(filepath.Join(pkiDir, "apiserver-etcd-client.crt"), filepath.Join(pkiDir, "apiserver-etcd-client.key"))
		if err != nil {
			t.Fatal(err)
		}
		ca, err := os.ReadFile(filepath.Join(pkiDir, "ca.crt"))
		if err != nil {
			t.Fatal(err)
		}
		tlsConfig = &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: x509.NewCertPool()}
		tlsConfig.RootCAs.AppendCertsFromPEM(ca)
	}
	type member struct{ name, client, peer string }
	var members []member
	var initial []string
	for i := range 3 {
		m := member{fmt.Sprintf("m%d", i), fmt.Sprintf("%s://127.0.0.1:%d", scheme, freePort(t)), fmt.Sprintf("%s://127.0.0.1:%d", scheme, freePort(t))}
		members = append(members, m)
		initial = append(initial, m.name+"="+m.peer)
	}
	errs := make(chan error, len(members))
	for _, m := range members {
		o := NewOptions()
		o.DataDir, o.Name, o.PKIDir = filepath.Join(base, m.name), m.name, pkiDir
		o.ListenClientURLs, o.ListenPeerURLs = []string{m.client}, []string{m.peer}
		o.InitialCluster = strings.Join(initial, ",")
		cfg, err := o.Complete()
		if err != nil {
			t.Fatal(err)
		}
		go func() { errs <- cfg.Run(ctx) }()
	}
	client, err := clientv3.New(clientv3.Config{Endpoints: []string{members[0].client}, DialTimeout: 5 * time.Second, TLS: tlsConfig})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	deadline := time.Now().Add(30 * time.Second)
	for {
		pctx, pcancel := context.WithTimeout(ctx, 2*time.Second)
		_, err = client.Put(pctx, "/k", "v")
		pcancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("cluster did not accept a write within 30s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	other, err := clientv3.New(clientv3.Config{Endpoints: []string{members[2].client}, DialTimeout: 5 * time.Second, TLS: tlsConfig})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	resp, err := other.Get(ctx, "/k")
	if err != nil || len(resp.Kvs) != 1 || string(resp.Kvs[0].Value) != "v" {
		t.Fatalf("read through another member: %v %v", resp, err)
	}
	members2, err := other.MemberList(ctx)
	if err != nil || len(members2.Members) != 3 {
		t.Fatalf("member list: %v %v", members2, err)
	}
	for _, m := range members2.Members {
		if len(m.PeerURLs) != 1 || !strings.HasPrefix(m.PeerURLs[0], scheme+"://") {
			t.Errorf("member %s peer URLs %v, want %s", m.Name, m.PeerURLs, scheme)
		}
	}
	if tlsConfig != nil {
		// No client certificate: the member refuses the handshake.
		bare := &tls.Config{RootCAs: tlsConfig.RootCAs}
		anon, err := clientv3.New(clientv3.Config{Endpoints: []string{members[1].client}, DialTimeout: 2 * time.Second, TLS: bare})
		if err == nil {
			gctx, gcancel := context.WithTimeout(ctx, 3*time.Second)
			_, err = anon.Get(gctx, "/k")
			gcancel()
			anon.Close()
		}
		if err == nil {
			t.Error("a client without a certificate read from a member with --pki-dir")
		}
	}
	cancel()
	for range members {
		if err := <-errs; err != nil {
			t.Errorf("member stopped with %v", err)
		}
	}
}
