package apiserver

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kubecore.io/kubecore/pkg/pki"
)

// A serving certificate rotated on disk is the one presented after the
// next check, without a restart.
func TestCertRenewerServesRotated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pki")
	hosts := []string{"localhost", "127.0.0.1"}
	b, err := pki.EnsureServing(dir, pki.Options{Hosts: hosts})
	if err != nil {
		t.Fatal(err)
	}
	r := &certRenewer{dir: dir, hosts: hosts, serverURL: "https://127.0.0.1:1", kubeconfig: filepath.Join(t.TempDir(), "admin.kubeconfig")}
	r.use(b)
	before := r.current().Leaf.SerialNumber
	if _, err := pki.EnsureServing(dir, pki.Options{Hosts: hosts, Rotate: true}); err != nil {
		t.Fatal(err)
	}
	if r.current().Leaf.SerialNumber.Cmp(before) != 0 {
		t.Fatal("served certificate changed before the check")
	}
	if err := r.check(); err != nil {
		t.Fatal(err)
	}
	if r.current().Leaf.SerialNumber.Cmp(before) == 0 {
		t.Error("the rotated certificate is not served after the check")
	}
}

// A failed check is retried while the served certificate is valid; once it
// has expired, the failure ends run with its cause.
func TestCertRenewerFailsOnceExpired(t *testing.T) {
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		notAfter time.Time
		wantErr  bool
	}{
		{"valid", time.Now().Add(time.Hour), false},
		{"expired", time.Now().Add(-time.Hour), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &certRenewer{dir: filepath.Join(notADir, "pki"), hosts: []string{"localhost"}}
			r.cert.Store(&tls.Certificate{Leaf: &x509.Certificate{NotAfter: tc.notAfter}})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- r.run(ctx, time.Millisecond) }()
			if !tc.wantErr {
				time.Sleep(20 * time.Millisecond) // a few failed checks
				cancel()
			}
			select {
			case err := <-done:
				if tc.wantErr != (err != nil) || tc.wantErr && !strings.Contains(err.Error(), "expired") {
					t.Fatalf("run = %v, want error %v", err, tc.wantErr)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("run did not return")
			}
		})
	}
}
