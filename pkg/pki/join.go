package pki

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
)

// CACertPath is the CA certificate of the pki directory dir.
func CACertPath(dir string) string { return filepath.Join(dir, CAName+certFileSuffix) }

// CAKeyPath is the CA key of the pki directory dir.
func CAKeyPath(dir string) string { return filepath.Join(dir, CAName+keyFileSuffix) }

// caCertHashPrefix is the only hash kind of --ca-cert-hash.
const caCertHashPrefix = "sha256:"

// CACertHash pins a CA as kubeadm does: "sha256:" and the hex SHA-256 of
// the certificate's DER SubjectPublicKeyInfo, which stays the same when
// the CA is re-issued with its key.
func CACertHash(c *x509.Certificate) string {
	sum := sha256.Sum256(c.RawSubjectPublicKeyInfo)
	return caCertHashPrefix + hex.EncodeToString(sum[:])
}

// ParseCACertHash checks a --ca-cert-hash value ("sha256:" and 64 hex
// digits) and returns it in lower case.
func ParseCACertHash(s string) (string, error) {
	h := strings.ToLower(strings.TrimSpace(s))
	digest, ok := strings.CutPrefix(h, caCertHashPrefix)
	if !ok {
		return "", fmt.Errorf("CA certificate hash %q: want sha256:<64 hex digits>", s)
	}
	if b, err := hex.DecodeString(digest); err != nil || len(b) != sha256.Size {
		return "", fmt.Errorf("CA certificate hash %q: want sha256:<64 hex digits>", s)
	}
	return h, nil
}
