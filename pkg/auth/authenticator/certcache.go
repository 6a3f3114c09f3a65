package authenticator

import (
	"crypto/sha256"
	"crypto/x509"
	"sync"
	"time"
)

// maxVerifiedCerts bounds the verified-certificate cache; when it is full
// it starts over, which costs one verification per client.
const maxVerifiedCerts = 4096

// verifiedCerts remembers the client certificates that chained to the
// roots, until they expire: a client sends the same certificate with
// every request, and verifying its chain is a signature check each time.
type verifiedCerts struct {
	mu    sync.Mutex
	certs map[[sha256.Size]byte]time.Time // -> NotAfter
}

func newVerifiedCerts() *verifiedCerts {
	return &verifiedCerts{certs: map[[sha256.Size]byte]time.Time{}}
}

// verify calls check unless cert (the very same bytes) passed it before
// and has not expired since.
func (v *verifiedCerts) verify(cert *x509.Certificate, now time.Time, check func() error) error {
	key := sha256.Sum256(cert.Raw)
	v.mu.Lock()
	notAfter, ok := v.certs[key]
	v.mu.Unlock()
	if ok && now.Before(notAfter) {
		return nil
	}
	if err := check(); err != nil {
		return err
	}
	v.mu.Lock()
	if len(v.certs) >= maxVerifiedCerts {
		clear(v.certs)
	}
	v.certs[key] = cert.NotAfter
	v.mu.Unlock()
	return nil
}
