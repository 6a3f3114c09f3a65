package apiserver

import (
	"context"
	"crypto/tls"
	"fmt"
	"sync/atomic"
	"time"

	"k8s.io/klog/v2"

	"kubecore.io/kubecore/pkg/pki"
)

// certCheckInterval is how often a running apiserver looks at its pki
// directory: certificates within pki.RenewBefore of expiry are renewed,
// and a serving certificate rotated on disk (`kubecore certs rotate`) is
// served from the next TLS handshake on.
const certCheckInterval = time.Minute

// certRenewer keeps the pki directory fresh while the apiserver runs and
// holds the serving certificate it presents. Components already running
// keep the client certificates they started with (valid for at least
// pki.RenewBefore more); they load the renewed ones when they restart.
type certRenewer struct {
	dir        string
	hosts      []string
	serverURL  string
	kubeconfig string // the admin kubeconfig, rewritten when admin is renewed
	cert       atomic.Pointer[tls.Certificate]
}

// use makes b's serving certificate the one presented.
func (r *certRenewer) use(b *pki.Bundle) {
	c := b.Serving.TLSCertificate()
	r.cert.Store(&c)
}

// current is the certificate to serve.
func (r *certRenewer) current() *tls.Certificate { return r.cert.Load() }

// run checks the directory every interval until ctx ends, then returns
// nil. A failed check is logged and tried again at the next interval while
// the served certificate is still valid; once it has expired, a failed
// check is the error run returns: a server no client can verify is down.
func (r *certRenewer) run(ctx context.Context, interval time.Duration) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if err := r.check(); err != nil {
				if c := r.current(); c != nil && c.Leaf != nil && !time.Now().Before(c.Leaf.NotAfter) {
					return fmt.Errorf("serving certificate expired at %s and cannot be renewed: %w", c.Leaf.NotAfter.UTC().Format(time.RFC3339), err)
				}
				klog.ErrorS(err, "Failed to check the certificates; serving the current ones", "dir", r.dir)
			}
		}
	}
}

// check renews what needs it on disk and loads the serving certificate.
func (r *certRenewer) check() error {
	b, err := pki.EnsureServing(r.dir, pki.Options{Hosts: r.hosts})
	if err != nil {
		return err
	}
	if err := b.RenewClientCerts(); err != nil {
		return err
	}
	for _, is := range b.Issued {
		klog.InfoS("Renewed certificate", "name", is.Name, "reason", is.Reason)
		if is.Name == pki.AdminName {
			if err := pki.WriteAdminKubeconfig(r.kubeconfig, r.serverURL, b); err != nil {
				return fmt.Errorf("write %s: %w", r.kubeconfig, err)
			}
		}
	}
	r.use(b)
	return nil
}
