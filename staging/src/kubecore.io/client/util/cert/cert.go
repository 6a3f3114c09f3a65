// Package cert makes and reads the X.509 material of a kubecore cluster:
// ECDSA P-256 keys, a self-signed CA, certificates it signs, and PEM files.
package cert

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"net"
	"time"
)

const (
	// DefaultCADuration is how long a CA made by NewSelfSignedCACert lasts.
	DefaultCADuration = 10 * 365 * 24 * time.Hour
	// DefaultCertDuration is how long a certificate made by NewSignedCert lasts.
	DefaultCertDuration = 365 * 24 * time.Hour
	// backdate is how far NotBefore is set in the past, so that a peer whose
	// clock is a little behind still accepts a fresh certificate.
	backdate = 5 * time.Minute
)

// AltNames are the subject alternative names of a certificate.
type AltNames struct {
	DNSNames []string
	IPs      []net.IP
}

// Config describes a certificate to make.
type Config struct {
	// CommonName is the subject's CN: the user name of a client certificate.
	CommonName string
	// Organization is the subject's O: the groups of a client certificate.
	Organization []string
	// AltNames are the DNS names and IPs a serving certificate is valid for.
	AltNames AltNames
	// Usages say what the certificate may be used for (server, client auth).
	Usages []x509.ExtKeyUsage
	// Duration is how long the certificate lasts; zero means
	// DefaultCertDuration (DefaultCADuration for a CA).
	Duration time.Duration
	// NotBefore is when validity starts; zero means five minutes ago.
	NotBefore time.Time
}

// NewPrivateKey returns a new ECDSA P-256 key: small, and fast to make and use.
func NewPrivateKey() (*ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate ECDSA P-256 key: %w", err)
	}
	return key, nil
}

// NewSelfSignedCACert returns a CA certificate for key, signed by itself. Only
// CommonName, Organization, Duration and NotBefore of cfg are used.
func NewSelfSignedCACert(cfg Config, key crypto.Signer) (*x509.Certificate, error) {
	if cfg.CommonName == "" {
		return nil, errors.New("commonName: required")
	}
	if key == nil {
		return nil, errors.New("CA key: required")
	}
	notBefore, notAfter, err := validity(cfg, DefaultCADuration)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: cfg.CommonName, Organization: cfg.Organization},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              keyUsage(key) | x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	return sign(tmpl, tmpl, key.Public(), key)
}

// NewSignedCert returns a certificate for key's public half, signed by the CA.
// Its validity never outlasts the CA's.
func NewSignedCert(cfg Config, key crypto.Signer, caCert *x509.Certificate, caKey crypto.Signer) (*x509.Certificate, error) {
	switch {
	case cfg.CommonName == "":
		return nil, errors.New("commonName: required")
	case len(cfg.Usages) == 0:
		return nil, errors.New("usages: required")
	case key == nil:
		return nil, errors.New("key: required")
	case caCert == nil || caKey == nil:
		return nil, errors.New("CA certificate and key: required")
	case !caCert.IsCA:
		return nil, fmt.Errorf("CA certificate %q is not a CA", caCert.Subject.CommonName)
	}
	for i, ip := range cfg.AltNames.IPs {
		if len(ip) != net.IPv4len && len(ip) != net.IPv6len {
			return nil, fmt.Errorf("altNames.ips[%d]: invalid IP %v", i, ip)
		}
	}
	for i, name := range cfg.AltNames.DNSNames {
		if name == "" {
			return nil, fmt.Errorf("altNames.dnsNames[%d]: empty", i)
		}
	}
	notBefore, notAfter, err := validity(cfg, DefaultCertDuration)
	if err != nil {
		return nil, err
	}
	if notAfter.After(caCert.NotAfter) {
		notAfter = caCert.NotAfter
	}
	if !notAfter.After(notBefore) {
		return nil, fmt.Errorf("CA certificate %q expired at %s", caCert.Subject.CommonName, caCert.NotAfter.UTC().Format(time.RFC3339))
	}
	tmpl := &x509.Certificate{
		Subject:               pkix.Name{CommonName: cfg.CommonName, Organization: cfg.Organization},
		DNSNames:              cfg.AltNames.DNSNames,
		IPAddresses:           cfg.AltNames.IPs,
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              keyUsage(key),
		ExtKeyUsage:           cfg.Usages,
		BasicConstraintsValid: true,
	}
	return sign(tmpl, caCert, key.Public(), caKey)
}

func validity(cfg Config, defaultDuration time.Duration) (time.Time, time.Time, error) {
	if cfg.Duration < 0 {
		return time.Time{}, time.Time{}, fmt.Errorf("duration: must not be negative, got %s", cfg.Duration)
	}
	duration := cfg.Duration
	if duration == 0 {
		duration = defaultDuration
	}
	notBefore := cfg.NotBefore
	if notBefore.IsZero() {
		notBefore = time.Now().Add(-backdate)
	}
	notBefore = notBefore.UTC().Truncate(time.Second)
	return notBefore, notBefore.Add(duration), nil
}

// keyUsage is what the key of a certificate may do: ECDSA and Ed25519 keys
// sign; RSA keys may also encipher (RSA key exchange).
func keyUsage(key crypto.Signer) x509.KeyUsage {
	if _, ok := key.Public().(*rsa.PublicKey); ok {
		return x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment
	}
	return x509.KeyUsageDigitalSignature
}

func sign(tmpl, parent *x509.Certificate, pub crypto.PublicKey, signer crypto.Signer) (*x509.Certificate, error) {
	// A nil SerialNumber makes crypto/x509 pick a random RFC 5280 serial.
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, signer)
	if err != nil {
		return nil, fmt.Errorf("sign certificate %q: %w", tmpl.Subject.CommonName, err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parse certificate %q: %w", tmpl.Subject.CommonName, err)
	}
	return c, nil
}

// PublicKeyMatches reports whether key is the private half of cert's key.
func PublicKeyMatches(cert *x509.Certificate, key crypto.Signer) bool {
	pub, ok := cert.PublicKey.(interface{ Equal(crypto.PublicKey) bool })
	return ok && key != nil && pub.Equal(key.Public())
}

// TLSCertificate pairs cert and key for crypto/tls.
func TLSCertificate(cert *x509.Certificate, key crypto.Signer) tls.Certificate {
	return tls.Certificate{Certificate: [][]byte{cert.Raw}, PrivateKey: key, Leaf: cert}
}

// NeedsRenewal reports whether cert should be replaced at now: it expires
// within the given time, or is not valid yet.
func NeedsRenewal(cert *x509.Certificate, now time.Time, within time.Duration) bool {
	return now.Before(cert.NotBefore) || !now.Add(within).Before(cert.NotAfter)
}
