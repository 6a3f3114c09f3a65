package pki

import (
	"fmt"
	"path/filepath"
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
