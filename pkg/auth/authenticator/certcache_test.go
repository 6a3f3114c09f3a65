package authenticator

import (
	"crypto/x509"
	"errors"
	"testing"
	"time"
)

func TestVerifiedCerts(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := &x509.Certificate{Raw: []byte("a"), NotAfter: now.Add(time.Hour)}
	b := &x509.Certificate{Raw: []byte("b"), NotAfter: now.Add(time.Hour)}
	v := newVerifiedCerts()
	checks := 0
	ok := func() error { checks++; return nil }
	bad := func() error { checks++; return errors.New("unknown authority") }

	for range 3 {
		if err := v.verify(a, now, ok); err != nil {
			t.Fatal(err)
		}
	}
	if checks != 1 {
		t.Errorf("the same certificate was checked %d times, want once", checks)
	}
	// A failure is not remembered: each request is refused afresh.
	for range 2 {
		if err := v.verify(b, now, bad); err == nil {
			t.Error("a failing certificate passed")
		}
	}
	if checks != 3 {
		t.Errorf("checks = %d, want 3", checks)
	}
	// Past its expiry the certificate is checked again (and fails there).
	if err := v.verify(a, now.Add(2*time.Hour), bad); err == nil {
		t.Error("an expired certificate passed from the cache")
	}
}
