// Package pki keeps the apiserver's DIR/pki: a CA, the serving certificate and
// the client certificates it signs, made on first start and reused after.
package pki

import (
	"crypto"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"kubecore.io/client/util/cert"
)

// Names of the files and subjects in the pki directory. Every key pair is
// <name>.crt (mode 0644) and <name>.key (mode 0600).
const (
	CAName         = "ca"
	ServingName    = "apiserver"
	AdminName      = "admin"
	CACommonName   = "kubecore-ca"
	ServingCN      = "kubecore-apiserver"
	AdminCN        = "kubecore-admin"
	MastersGroup   = "system:masters"
	RenewBefore    = 30 * 24 * time.Hour
	certFileSuffix = ".crt"
	keyFileSuffix  = ".key"
)

// Options say what the serving certificate must cover.
type Options struct {
	// Hosts are the DNS names and IPs clients reach the apiserver by:
	// localhost, 127.0.0.1, the hostname, the bind address (see DefaultHosts).
	Hosts []string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Rotate re-issues every certificate but the CA, valid or not.
	Rotate bool
}

// KeyPair is one certificate and its key, and where they are stored.
type KeyPair struct {
	Name     string
	CertFile string
	KeyFile  string
	Cert     *x509.Certificate
	Key      crypto.Signer
}

// TLSCertificate returns the pair for crypto/tls.
func (p *KeyPair) TLSCertificate() tls.Certificate { return cert.TLSCertificate(p.Cert, p.Key) }

// CertPEM returns the certificate in PEM.
func (p *KeyPair) CertPEM() []byte { return cert.EncodeCertPEM(p.Cert) }

// KeyPEM returns the private key in PEM.
func (p *KeyPair) KeyPEM() ([]byte, error) { return cert.EncodePrivateKeyPEM(p.Key) }

// Issue records that a key pair was made, and why.
type Issue struct {
	Name   string
	Reason string
}

// Bundle is the content of a pki directory.
type Bundle struct {
	// Dir is the pki directory.
	Dir string
	// CA signs every other certificate; clients and the apiserver trust it.
	CA *KeyPair
	// Serving is the apiserver's serving certificate.
	Serving *KeyPair
	// Admin is a client certificate in group system:masters.
	Admin *KeyPair
	// Issued lists the key pairs this Bundle made or re-made, in order, so
	// that the caller can log them.
	Issued []Issue

	now    func() time.Time
	rotate bool
	// caCN is the common name of a CA made here; CACommonName when empty.
	caCN string
	// pending are the pairs made but not written yet: they are written
	// together, so that their fsyncs overlap.
	pending []*KeyPair
}

// CAPool returns a pool holding the CA, to verify servers or clients with.
func (b *Bundle) CAPool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(b.CA.Cert)
	return pool
}

// EnsureServing makes sure dir holds a CA, a serving certificate valid for
// opts.Hosts for at least RenewBefore, and the admin client certificate:
// missing ones are made, existing valid ones reused as they are, and a
// certificate that misses a host, nears expiry or was not signed by the CA is
// re-issued. A missing half of a pair, an unreadable file or a bad CA is an
// error naming the file: the CA is never made again over an existing one.
func EnsureServing(dir string, opts Options) (*Bundle, error) {
	dns, ips, err := parseHosts(opts.Hosts)
	if err != nil {
		return nil, err
	}
	b := &Bundle{Dir: dir, now: opts.Now, rotate: opts.Rotate}
	if b.now == nil {
		b.now = time.Now
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("pki: create %s: %w", dir, err)
	}
	if b.CA, err = b.ensureCA(); err != nil {
		return nil, err
	}
	b.Serving, err = b.ensureLeaf(ServingName, cert.Config{
		CommonName: ServingCN,
		AltNames:   cert.AltNames{DNSNames: dns, IPs: ips},
		Usages:     []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, func(c *x509.Certificate) string { return missingHosts(c, dns, ips) })
	if err != nil {
		return nil, err
	}
	if b.Admin, err = b.ensureClientCert(AdminName, AdminCN, []string{MastersGroup}); err != nil {
		return nil, err
	}
	if err := b.flush(); err != nil {
		return nil, err
	}
	return b, nil
}

// flush writes the pending pairs, in parallel.
func (b *Bundle) flush() error {
	errs := make(chan error, len(b.pending))
	for _, p := range b.pending {
		go func() { errs <- cert.WriteCertAndKey(p.CertFile, p.KeyFile, p.Cert, p.Key) }()
	}
	var all []error
	for range b.pending {
		all = append(all, <-errs)
	}
	b.pending = nil
	if err := errors.Join(all...); err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	return nil
}

var namePattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$`)

// EnsureClientCert makes sure dir holds <name>.crt/.key, a client certificate
// for user cn in groups orgs, signed by the CA and valid for at least
// RenewBefore; it is re-issued otherwise. name is a lower-case file name
// (e.g. "scheduler", "kubelet-node1") other than "ca" and "apiserver".
func (b *Bundle) EnsureClientCert(name, cn string, orgs []string) (*KeyPair, error) {
	p, err := b.ensureClientCert(name, cn, orgs)
	if err != nil {
		return nil, err
	}
	if err := b.flush(); err != nil {
		return nil, err
	}
	return p, nil
}

func (b *Bundle) ensureClientCert(name, cn string, orgs []string) (*KeyPair, error) {
	switch {
	case !namePattern.MatchString(name):
		return nil, fmt.Errorf("pki: client certificate name %q: must be lower-case letters, digits, '-' and '.'", name)
	case name == CAName || name == ServingName:
		return nil, fmt.Errorf("pki: client certificate name %q: reserved", name)
	case cn == "":
		return nil, fmt.Errorf("pki: client certificate %q: common name: required", name)
	}
	return b.ensureLeaf(name, cert.Config{
		CommonName:   cn,
		Organization: orgs,
		Usages:       []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}, func(c *x509.Certificate) string {
		if c.Subject.CommonName != cn || !slices.Equal(c.Subject.Organization, orgs) {
			return fmt.Sprintf("subject is CN=%s O=%v, want CN=%s O=%v", c.Subject.CommonName, c.Subject.Organization, cn, orgs)
		}
		return ""
	})
}

func (b *Bundle) paths(name string) (string, string) {
	return filepath.Join(b.Dir, name+certFileSuffix), filepath.Join(b.Dir, name+keyFileSuffix)
}

// existing reports whether the pair name is on disk: false when neither file
// exists, an error when only one does.
func (b *Bundle) existing(name string) (bool, error) {
	certPath, keyPath := b.paths(name)
	certOK, err := exists(certPath)
	if err != nil {
		return false, err
	}
	keyOK, err := exists(keyPath)
	if err != nil {
		return false, err
	}
	switch {
	case certOK && !keyOK:
		return false, fmt.Errorf("pki: %s is missing but %s exists; restore it, or remove both to have them made again", keyPath, certPath)
	case keyOK && !certOK:
		return false, fmt.Errorf("pki: %s is missing but %s exists; restore it, or remove both to have them made again", certPath, keyPath)
	}
	return certOK, nil
}

func exists(path string) (bool, error) {
	_, err := os.Stat(path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, fmt.Errorf("pki: %w", err)
	}
}

func (b *Bundle) ensureCA() (*KeyPair, error) {
	certPath, keyPath := b.paths(CAName)
	found, err := b.existing(CAName)
	if err != nil {
		return nil, fmt.Errorf("%w (a new CA would invalidate every certificate the old one signed)", err)
	}
	if !found {
		key, err := cert.NewPrivateKey()
		if err != nil {
			return nil, fmt.Errorf("pki: %w", err)
		}
		cn := b.caCN
		if cn == "" {
			cn = CACommonName
		}
		c, err := cert.NewSelfSignedCACert(cert.Config{CommonName: cn, NotBefore: b.now().Add(-5 * time.Minute)}, key)
		if err != nil {
			return nil, fmt.Errorf("pki: CA: %w", err)
		}
		b.Issued = append(b.Issued, Issue{Name: CAName, Reason: "missing"})
		p := &KeyPair{Name: CAName, CertFile: certPath, KeyFile: keyPath, Cert: c, Key: key}
		b.pending = append(b.pending, p)
		return p, nil
	}
	c, key, err := cert.LoadCertAndKey(certPath, keyPath)
	if err != nil {
		return nil, fmt.Errorf("pki: %w", err)
	}
	switch now := b.now(); {
	case !c.IsCA:
		return nil, fmt.Errorf("pki: %s: not a CA certificate", certPath)
	case !now.Before(c.NotAfter):
		return nil, fmt.Errorf("pki: %s: the CA expired at %s; remove %s to start over with a new CA", certPath, c.NotAfter.UTC().Format(time.RFC3339), b.Dir)
	}
	return &KeyPair{Name: CAName, CertFile: certPath, KeyFile: keyPath, Cert: c, Key: key}, nil
}

// ensureLeaf loads the pair name, or issues it from cfg when it is missing,
// not signed by the CA, expiring within RenewBefore, or when mismatch says why
// it no longer fits.
func (b *Bundle) ensureLeaf(name string, cfg cert.Config, mismatch func(*x509.Certificate) string) (*KeyPair, error) {
	certPath, keyPath := b.paths(name)
	found, err := b.existing(name)
	if err != nil {
		return nil, err
	}
	reason := "missing"
	if found {
		c, key, err := cert.LoadCertAndKey(certPath, keyPath)
		if err != nil {
			return nil, fmt.Errorf("pki: %w", err)
		}
		if reason = b.reissueReason(c, cfg.Usages, mismatch); reason == "" {
			return &KeyPair{Name: name, CertFile: certPath, KeyFile: keyPath, Cert: c, Key: key}, nil
		}
	}
	key, err := cert.NewPrivateKey()
	if err != nil {
		return nil, fmt.Errorf("pki: %w", err)
	}
	cfg.NotBefore = b.now().Add(-5 * time.Minute)
	c, err := cert.NewSignedCert(cfg, key, b.CA.Cert, b.CA.Key)
	if err != nil {
		return nil, fmt.Errorf("pki: %s: %w", certPath, err)
	}
	b.Issued = append(b.Issued, Issue{Name: name, Reason: reason})
	p := &KeyPair{Name: name, CertFile: certPath, KeyFile: keyPath, Cert: c, Key: key}
	b.pending = append(b.pending, p)
	return p, nil
}

// reissueReason says why c must be issued again, or "" when it is fine.
func (b *Bundle) reissueReason(c *x509.Certificate, usages []x509.ExtKeyUsage, mismatch func(*x509.Certificate) string) string {
	if b.rotate {
		return "rotation asked for"
	}
	if err := c.CheckSignatureFrom(b.CA.Cert); err != nil {
		return "not signed by the CA"
	}
	if cert.NeedsRenewal(c, b.now(), RenewBefore) {
		return "expires soon"
	}
	for _, u := range usages {
		if !slices.Contains(c.ExtKeyUsage, u) {
			return "lacks a key usage"
		}
	}
	return mismatch(c)
}

// missingHosts lists the hosts c is not valid for, or "" when none.
func missingHosts(c *x509.Certificate, dns []string, ips []net.IP) string {
	var missing []string
	for _, d := range dns {
		if !slices.ContainsFunc(c.DNSNames, func(have string) bool { return strings.EqualFold(have, d) }) {
			missing = append(missing, d)
		}
	}
	for _, ip := range ips {
		if !slices.ContainsFunc(c.IPAddresses, ip.Equal) {
			missing = append(missing, ip.String())
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return "not valid for " + strings.Join(missing, ", ")
}

// parseHosts splits hosts into DNS names and IPs, dropping repeats.
func parseHosts(hosts []string) ([]string, []net.IP, error) {
	if len(hosts) == 0 {
		return nil, nil, errors.New("pki: hosts: at least one DNS name or IP required")
	}
	var dns []string
	var ips []net.IP
	for i, h := range hosts {
		h = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(h), "["), "]")
		if ip := net.ParseIP(h); ip != nil {
			if ip4 := ip.To4(); ip4 != nil {
				ip = ip4
			}
			if !slices.ContainsFunc(ips, ip.Equal) {
				ips = append(ips, ip)
			}
			continue
		}
		if !validDNSName(h) {
			return nil, nil, fmt.Errorf("pki: hosts[%d]: %q is neither an IP nor a DNS name", i, hosts[i])
		}
		h = strings.ToLower(h)
		if !slices.Contains(dns, h) {
			dns = append(dns, h)
		}
	}
	return dns, ips, nil
}

var dnsLabel = regexp.MustCompile(`^(\*|[a-zA-Z0-9_]([a-zA-Z0-9_-]{0,61}[a-zA-Z0-9_])?)$`)

func validDNSName(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(s, "."), ".") {
		if !dnsLabel.MatchString(label) {
			return false
		}
	}
	return true
}

// DefaultHosts returns the hosts a serving certificate should cover for an
// apiserver bound to bindAddress: localhost, 127.0.0.1, ::1, the hostname,
// and the bind address, or every interface address when it is unspecified
// (0.0.0.0 or ::).
func DefaultHosts(bindAddress string) ([]string, error) {
	hosts := []string{"localhost", "127.0.0.1", "::1"}
	if name, err := os.Hostname(); err == nil && name != "" && validDNSName(name) {
		hosts = append(hosts, name)
	}
	ip := net.ParseIP(bindAddress)
	switch {
	case bindAddress == "":
	case ip == nil:
		return nil, fmt.Errorf("pki: bind address %q is not an IP", bindAddress)
	case ip.IsUnspecified():
		addrs, err := net.InterfaceAddrs()
		if err != nil {
			return nil, fmt.Errorf("pki: list interface addresses: %w", err)
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.IsGlobalUnicast() {
				hosts = append(hosts, n.IP.String())
			}
		}
	default:
		hosts = append(hosts, ip.String())
	}
	return hosts, nil
}
