package webhook

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"sync"
	"time"
)

// ServiceReference names a port of a Service and a path on it, as the
// service field of a webhook's clientConfig, a CRD's conversion webhook
// and an APIService do.
type ServiceReference struct {
	Namespace, Name string
	// Port is the Service port's number; 0 means 443.
	Port int32
	Path string
}

// ClientConfig says where a server is and how to trust it: a URL, or a
// Service; a PEM caBundle (empty: the host's roots), or no check at all.
type ClientConfig struct {
	URL      string
	Service  *ServiceReference
	CABundle []byte
	// InsecureSkipTLSVerify is an APIService's insecureSkipTLSVerify.
	InsecureSkipTLSVerify bool
}

// NewClientConfig builds a ClientConfig from the optional fields of an
// API object's clientConfig (admissionregistration's and apiextensions'
// WebhookClientConfig have the same shape): a URL, or a Service named by
// namespace and name with an optional path and port.
func NewClientConfig(url *string, caBundle []byte, svc *ServiceReference) ClientConfig {
	cc := ClientConfig{CABundle: caBundle, Service: svc}
	if url != nil {
		cc.URL = *url
	}
	return cc
}

// NewServiceReference builds a ServiceReference from an API object's
// optional path and port.
func NewServiceReference(namespace, name string, path *string, port *int32) *ServiceReference {
	ref := &ServiceReference{Namespace: namespace, Name: name}
	if path != nil {
		ref.Path = *path
	}
	if port != nil {
		ref.Port = *port
	}
	return ref
}

// Location is a ClientConfig resolved: the URL to call (an endpoint's
// address for a Service) and the name the server's certificate must carry.
type Location struct {
	URL        *url.URL
	ServerName string
	CABundle   []byte
	Insecure   bool
}

// Locate resolves cc. A Service is reached at one of its ready endpoints,
// over https, and its certificate must name <name>.<namespace>.svc.
func (r Resolver) Locate(ctx context.Context, cc ClientConfig) (Location, error) {
	loc := Location{CABundle: cc.CABundle, Insecure: cc.InsecureSkipTLSVerify}
	switch {
	case cc.URL != "":
		u, err := url.Parse(cc.URL)
		if err != nil {
			return loc, fmt.Errorf("bad webhook URL %q: %w", cc.URL, err)
		}
		loc.URL, loc.ServerName = u, u.Hostname()
	case cc.Service != nil:
		s := cc.Service
		port := s.Port
		if port == 0 {
			port = 443
		}
		host, err := r.Endpoint(ctx, s.Namespace, s.Name, strconv.Itoa(int(port)))
		if err != nil {
			return loc, err
		}
		p := s.Path
		if p != "" && p[0] != '/' {
			p = "/" + p
		}
		loc.URL = &url.URL{Scheme: "https", Host: host, Path: path.Clean("/" + p)}
		if p == "" {
			loc.URL.Path = ""
		}
		loc.ServerName = s.Name + "." + s.Namespace + ".svc"
	default:
		return loc, errors.New("neither url nor service is set")
	}
	return loc, nil
}

// Clients hands out HTTP transports per trust settings, reused across
// calls so that connections to a server are kept alive. ClientCert, when
// set, is the certificate the API server shows (the front-proxy client
// certificate towards aggregated servers); it is read on every handshake,
// so a renewed certificate is used at once.
type Clients struct {
	ClientCert func() (*tls.Certificate, error)

	mu         sync.Mutex
	transports map[transportKey]*http.Transport
}

type transportKey struct {
	ca         [sha256.Size]byte
	serverName string
	insecure   bool
}

// Transport returns the transport that reaches loc.
func (c *Clients) Transport(loc Location) (*http.Transport, error) {
	k := transportKey{ca: sha256.Sum256(loc.CABundle), serverName: loc.ServerName, insecure: loc.Insecure}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.transports[k]; ok {
		return t, nil
	}
	cfg := &tls.Config{ServerName: loc.ServerName, MinVersion: tls.VersionTLS12}
	if loc.Insecure {
		cfg.InsecureSkipVerify = true //nolint:gosec // the APIService asked for it
	} else if len(loc.CABundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(loc.CABundle) {
			return nil, errors.New("the caBundle holds no PEM certificate")
		}
		cfg.RootCAs = pool
	}
	if c.ClientCert != nil {
		get := c.ClientCert
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return get() }
	}
	t := &http.Transport{
		Proxy:               nil,
		TLSClientConfig:     cfg,
		TLSHandshakeTimeout: 10 * time.Second,
		MaxIdleConnsPerHost: 32,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   true,
	}
	if c.transports == nil {
		c.transports = map[transportKey]*http.Transport{}
	}
	c.transports[k] = t
	return t, nil
}

// Close drops every kept connection.
func (c *Clients) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.transports {
		t.CloseIdleConnections()
	}
}
