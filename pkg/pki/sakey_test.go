package pki

import (
	"os"
	"path/filepath"
	"testing"
)

func TestServiceAccountKey(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pki")
	k1, err := EnsureServiceAccountKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, ServiceAccountKeyFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("sa.key: %v %v", fi, err)
	}
	k2, err := EnsureServiceAccountKey(dir)
	if err != nil || !k1.Equal(k2) {
		t.Fatalf("a second call made another key (%v)", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ServiceAccountKeyFile), []byte("junk"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := EnsureServiceAccountKey(dir); err == nil {
		t.Error("a corrupt key was accepted")
	}
}
