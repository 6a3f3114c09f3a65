package pki

import (
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"time"

	"kubecore.io/client/util/cert"
)

// EtcdCACommonName is the subject of the CA of an etcd cluster's
// certificates, kept apart from the cluster CA so that a kubelet's or a
// user's certificate cannot reach etcd.
const EtcdCACommonName = "kubecore-etcd-ca"

// OpenEtcdCA loads the etcd CA of dir (ca.crt and ca.key), making it when
// dir holds none. now is the clock; nil means time.Now.
func OpenEtcdCA(dir string, now func() time.Time) (*Bundle, error) {
	return openCA(dir, EtcdCACommonName, now)
}

// openCA loads the CA of dir, made with common name cn when dir holds none.
func openCA(dir, cn string, now func() time.Time) (*Bundle, error) {
	b := &Bundle{Dir: dir, now: now, caCN: cn}
	if b.now == nil {
		b.now = time.Now
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("pki: create %s: %w", dir, err)
	}
	var err error
	if b.CA, err = b.ensureCA(); err != nil {
		return nil, err
	}
	if err := b.flush(); err != nil {
		return nil, err
	}
	return b, nil
}

// EnsureEtcdCert makes sure dir holds <name>.crt/.key signed by the CA, for
// common name cn: a client certificate, and also a serving one (for clients
// and peers) valid for hosts when hosts are given. It is issued again as
// EnsureClientCert's are, and when it misses one of hosts.
func (b *Bundle) EnsureEtcdCert(name, cn string, hosts []string) (*KeyPair, error) {
	if !namePattern.MatchString(name) || name == CAName {
		return nil, fmt.Errorf("pki: certificate name %q: must be lower-case letters, digits, '-' and '.', and not %q", name, CAName)
	}
	cfg := cert.Config{CommonName: cn, Usages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	var dns []string
	var ips []net.IP
	if len(hosts) > 0 {
		var err error
		if dns, ips, err = parseHosts(hosts); err != nil {
			return nil, err
		}
		cfg.AltNames = cert.AltNames{DNSNames: dns, IPs: ips}
		cfg.Usages = append(cfg.Usages, x509.ExtKeyUsageServerAuth)
	}
	p, err := b.ensureLeaf(name, cfg, func(c *x509.Certificate) string {
		if c.Subject.CommonName != cn {
			return fmt.Sprintf("subject is CN=%s, want CN=%s", c.Subject.CommonName, cn)
		}
		return missingHosts(c, dns, ips)
	})
	if err != nil {
		return nil, err
	}
	if err := b.flush(); err != nil {
		return nil, err
	}
	return p, nil
}
