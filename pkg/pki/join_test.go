package pki

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

func TestCACertHash(t *testing.T) {
	b, err := EnsureServing(t.TempDir(), Options{Hosts: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b.CA.Cert.RawSubjectPublicKeyInfo)
	want := "sha256:" + hex.EncodeToString(sum[:])
	got := CACertHash(b.CA.Cert)
	if got != want {
		t.Fatalf("CACertHash = %s, want %s", got, want)
	}
	if h, err := ParseCACertHash(strings.ToUpper(got)); err != nil || h != want {
		t.Errorf("ParseCACertHash(upper case) = %q, %v", h, err)
	}
	for _, bad := range []string{"", "sha256:", "sha1:" + want[7:], want[7:], want + "00", "sha256:" + strings.Repeat("g", 64)} {
		if _, err := ParseCACertHash(bad); err == nil {
			t.Errorf("ParseCACertHash(%q) accepted it", bad)
		}
	}
}
