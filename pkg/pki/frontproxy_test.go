package pki

import (
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestFrontProxy(t *testing.T) {
	dir := t.TempDir()
	if _, err := EnsureServing(dir, Options{Hosts: []string{"localhost"}}); err != nil {
		t.Fatal(err)
	}
	fp, err := EnsureFrontProxy(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fp.CA.Cert.Subject.CommonName != FrontProxyCACommonName || fp.Client.Cert.Subject.CommonName != FrontProxyClientCN {
		t.Fatalf("subjects: CA %q, client %q", fp.CA.Cert.Subject.CommonName, fp.Client.Cert.Subject.CommonName)
	}
	// A separate CA: the cluster CA does not verify the front proxy.
	cluster, err := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	clusterPool := x509.NewCertPool()
	clusterPool.AppendCertsFromPEM(cluster)
	if _, err := fp.Client.Cert.Verify(x509.VerifyOptions{Roots: clusterPool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err == nil {
		t.Fatal("the cluster CA verifies the front-proxy client certificate")
	}
	fpPool := x509.NewCertPool()
	fpPool.AddCert(fp.CA.Cert)
	if _, err := fp.Client.Cert.Verify(x509.VerifyOptions{Roots: fpPool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Fatal(err)
	}
	again, err := EnsureFrontProxy(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Client.Cert.Equal(fp.Client.Cert) || !again.CA.Cert.Equal(fp.CA.Cert) {
		t.Fatal("a second start made new certificates")
	}

	now := time.Now()
	c := &FrontProxyClient{PKIDir: dir, Now: func() time.Time { return now }}
	first, err := c.Certificate()
	if err != nil {
		t.Fatal(err)
	}
	if !first.Leaf.Equal(fp.Client.Cert) {
		t.Fatal("the client source made a new certificate for a fresh one")
	}
	now = fp.Client.Cert.NotAfter.Add(-RenewBefore / 2)
	renewed, err := c.Certificate()
	if err != nil {
		t.Fatal(err)
	}
	if renewed.Leaf.Equal(fp.Client.Cert) || !renewed.Leaf.NotAfter.After(fp.Client.Cert.NotAfter) {
		t.Fatal("the certificate near expiry was not issued again")
	}
	if _, err := renewed.Leaf.Verify(x509.VerifyOptions{Roots: fpPool, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		t.Fatalf("the renewed certificate: %v", err)
	}
}
