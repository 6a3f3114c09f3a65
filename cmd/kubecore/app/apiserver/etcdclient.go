package apiserver

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
)

// validateEtcdTLS checks the --etcd-cafile, --etcd-certfile and
// --etcd-keyfile flags against --etcd-servers.
func (o *Options) validateEtcdTLS() []error {
	var errs []error
	if (o.EtcdCertFile == "") != (o.EtcdKeyFile == "") {
		errs = append(errs, errors.New("--etcd-certfile and --etcd-keyfile go together"))
	}
	tlsSet := o.EtcdCAFile != "" || o.EtcdCertFile != ""
	if tlsSet && len(o.EtcdServers) == 0 {
		errs = append(errs, errors.New("--etcd-cafile, --etcd-certfile and --etcd-keyfile need --etcd-servers"))
	}
	for _, s := range o.EtcdServers {
		if u, err := url.Parse(s); err == nil && tlsSet && u.Scheme != "https" {
			errs = append(errs, fmt.Errorf("--etcd-servers: %q must be https:// with --etcd-cafile or --etcd-certfile", s))
		}
	}
	return errs
}

// etcdTLS returns the TLS settings of the connections to --etcd-servers,
// nil when none is set.
func (o *Options) etcdTLS() (*tls.Config, error) {
	if o.EtcdCAFile == "" && o.EtcdCertFile == "" {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.EtcdCAFile != "" {
		pem, err := os.ReadFile(o.EtcdCAFile)
		if err != nil {
			return nil, fmt.Errorf("--etcd-cafile: %w", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--etcd-cafile %s: no certificate found", o.EtcdCAFile)
		}
	}
	if o.EtcdCertFile != "" {
		pair, err := tls.LoadX509KeyPair(o.EtcdCertFile, o.EtcdKeyFile)
		if err != nil {
			return nil, fmt.Errorf("--etcd-certfile and --etcd-keyfile: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}
