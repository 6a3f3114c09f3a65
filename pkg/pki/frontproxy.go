package pki

import (
	"crypto/tls"
	"fmt"
	"path/filepath"
	"sync"
	"time"
)

// Names of the front-proxy PKI, as kubeadm names it: a CA of its own in
// DIR/front-proxy (ca.crt, ca.key) and the client certificate the API
// server shows to aggregated API servers, which trust the CA only for the
// identity headers it sends (requestheader-client-ca-file).
const (
	FrontProxyDir          = "front-proxy"
	FrontProxyCACommonName = "front-proxy-ca"
	FrontProxyClientName   = "front-proxy-client"
	FrontProxyClientCN     = "front-proxy-client"
)

// FrontProxy is the front-proxy CA and its client certificate.
type FrontProxy struct {
	CA     *KeyPair
	Client *KeyPair
}

// EnsureFrontProxy makes sure pkiDir/front-proxy holds the front-proxy CA
// and the front-proxy-client certificate it signs, made when missing and
// issued again as EnsureClientCert's are. now is the clock; nil means
// time.Now. The CA is separate from the cluster CA, so that no
// certificate the cluster CA signs can assert identity headers.
func EnsureFrontProxy(pkiDir string, now func() time.Time) (*FrontProxy, error) {
	b, err := openCA(filepath.Join(pkiDir, FrontProxyDir), FrontProxyCACommonName, now)
	if err != nil {
		return nil, err
	}
	client, err := b.EnsureClientCert(FrontProxyClientName, FrontProxyClientCN, nil)
	if err != nil {
		return nil, fmt.Errorf("pki: front-proxy client: %w", err)
	}
	return &FrontProxy{CA: b.CA, Client: client}, nil
}

// FrontProxyClient hands out the front-proxy client certificate of
// PKIDir, issued again (by EnsureFrontProxy) once it is within
// RenewBefore of expiry, so that a server running for longer than the
// certificate lasts keeps reaching aggregated servers. Certificate is
// meant for tls.Config.GetClientCertificate: it is cheap while the
// certificate is fresh.
type FrontProxyClient struct {
	PKIDir string
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	mu       sync.Mutex
	cur      *tls.Certificate
	notAfter time.Time
}

// Certificate returns the current front-proxy client certificate.
func (c *FrontProxyClient) Certificate() (*tls.Certificate, error) {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cur != nil && now().Add(RenewBefore).Before(c.notAfter) {
		return c.cur, nil
	}
	fp, err := EnsureFrontProxy(c.PKIDir, now)
	if err != nil {
		return nil, err
	}
	cert := fp.Client.TLSCertificate()
	c.cur, c.notAfter = &cert, fp.Client.Cert.NotAfter
	return c.cur, nil
}
