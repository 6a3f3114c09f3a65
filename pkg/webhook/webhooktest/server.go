// Package webhooktest serves HTTPS test backends the way users' webhooks
// and aggregated servers are served: with a certificate for the names a
// Service is reached by, signed by a CA of their own that the test puts in
// a caBundle.
package webhooktest

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"kubecore.io/client/util/cert"
)

// Server is an HTTPS server on a free loopback port.
type Server struct {
	*httptest.Server
	// CABundle is the PEM of the CA that signed the server's certificate.
	CABundle []byte
	// Host and Port are the address it listens on.
	Host string
	Port int32
}

// Options tune a Server.
type Options struct {
	// ClientCAs, when set, make the server ask for a client certificate
	// and verify it against them (an aggregated server's
	// requestheader-client-ca); otherwise no client certificate is asked.
	ClientCAs *x509.CertPool
}

// NewServer starts handler over TLS with a certificate valid for names
// (DNS names; "name.namespace.svc" for a Service) and 127.0.0.1; it is
// closed when the test ends.
func NewServer(t testing.TB, handler http.Handler, opts Options, names ...string) *Server {
	t.Helper()
	caKey, err := cert.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	ca, err := cert.NewSelfSignedCACert(cert.Config{CommonName: "webhooktest-ca"}, caKey)
	if err != nil {
		t.Fatal(err)
	}
	key, err := cert.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := cert.NewSignedCert(cert.Config{
		CommonName: "webhooktest",
		AltNames:   cert.AltNames{DNSNames: names, IPs: []net.IP{net.IPv4(127, 0, 0, 1)}},
		Usages:     []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, key, ca, caKey)
	if err != nil {
		t.Fatal(err)
	}
	s := httptest.NewUnstartedServer(handler)
	s.TLS = &tls.Config{Certificates: []tls.Certificate{cert.TLSCertificate(leaf, key)}, MinVersion: tls.VersionTLS12}
	if opts.ClientCAs != nil {
		s.TLS.ClientCAs = opts.ClientCAs
		s.TLS.ClientAuth = tls.VerifyClientCertIfGiven
	}
	s.StartTLS()
	t.Cleanup(s.Close)
	addr := s.Listener.Addr().(*net.TCPAddr)
	return &Server{Server: s, CABundle: cert.EncodeCertPEM(ca), Host: addr.IP.String(), Port: int32(addr.Port)}
}
