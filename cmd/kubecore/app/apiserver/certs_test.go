package apiserver

import (
	"path/filepath"
	"testing"

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
