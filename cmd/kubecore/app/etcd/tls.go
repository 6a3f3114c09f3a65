package etcd

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/klog/v2"

	"kubecore.io/kubecore/pkg/etcd"
	"kubecore.io/kubecore/pkg/pki"
)

// memberCertPrefix starts the file name of a member's certificate in the
// PKI dir, so that members and clients (apiserver-etcd-client) never share
// a name.
const memberCertPrefix = "member-"

func (o *Options) addTLSFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.PKIDir, "pki-dir", o.PKIDir, "Directory of the etcd CA (ca.crt, ca.key; made when missing) where the member issues itself a certificate for its URLs' hosts, for TLS to clients and peers with client certificates required")
	for _, side := range []struct {
		prefix, who string
		tls         *etcd.TLSConfig
	}{{"", "clients", &o.ClientTLS}, {"peer-", "peers", &o.PeerTLS}} {
		fs.StringVar(&side.tls.CertFile, side.prefix+"cert-file", side.tls.CertFile, "Certificate (PEM) the member presents to "+side.who)
		fs.StringVar(&side.tls.KeyFile, side.prefix+"key-file", side.tls.KeyFile, "Key of --"+side.prefix+"cert-file")
		fs.StringVar(&side.tls.TrustedCAFile, side.prefix+"trusted-ca-file", side.tls.TrustedCAFile, "CA bundle the certificates of "+side.who+" must chain to")
		fs.BoolVar(&side.tls.ClientCertAuth, side.prefix+"client-cert-auth", side.tls.ClientCertAuth, "Require "+side.who+" to present a certificate of --"+side.prefix+"trusted-ca-file")
	}
}

// validateTLS checks that each side's certificate comes with its key and
// its CA when client certificates are required, and that the URLs of a
// side are https exactly when it has TLS.
func (o *Options) validateTLS() []error {
	var errs []error
	for _, side := range []struct {
		prefix string
		tls    etcd.TLSConfig
		urls   map[string][]string
	}{
		{"", o.ClientTLS, map[string][]string{"--listen-client-urls": o.ListenClientURLs, "--advertise-client-urls": o.AdvertiseClientURLs}},
		{"peer-", o.PeerTLS, map[string][]string{"--listen-peer-urls": o.ListenPeerURLs, "--initial-advertise-peer-urls": o.AdvertisePeerURLs}},
	} {
		t := side.tls
		if (t.CertFile == "") != (t.KeyFile == "") {
			errs = append(errs, fmt.Errorf("--%scert-file and --%skey-file go together", side.prefix, side.prefix))
		}
		if t.ClientCertAuth && t.TrustedCAFile == "" && o.PKIDir == "" {
			errs = append(errs, fmt.Errorf("--%sclient-cert-auth needs --%strusted-ca-file", side.prefix, side.prefix))
		}
		want, why := "http", "without --"+side.prefix+"cert-file or --pki-dir"
		if t.CertFile != "" || o.PKIDir != "" {
			want, why = "https", "with TLS"
		}
		for flag, urls := range side.urls {
			for _, s := range urls {
				if u, err := url.Parse(s); err == nil && u.Host != "" && u.Scheme != want {
					errs = append(errs, fmt.Errorf("%s: %q must be %s:// %s", flag, s, want, why))
				}
			}
		}
	}
	for _, m := range splitNonEmpty(o.InitialCluster) {
		if _, peer, ok := strings.Cut(m, "="); ok && o.PKIDir != "" {
			if u, err := url.Parse(peer); err == nil && u.Scheme != "https" {
				errs = append(errs, fmt.Errorf("--initial-cluster: %q must be https:// with --pki-dir", m))
			}
		}
	}
	return errs
}

// completeTLS returns the TLS of each side: the flags, filled in from
// --pki-dir, where the member's certificate is issued (or renewed) first.
func (o *Options) completeTLS() (client, peer etcd.TLSConfig, err error) {
	client, peer = o.ClientTLS, o.PeerTLS
	if o.PKIDir == "" {
		return client, peer, nil
	}
	b, err := pki.OpenEtcdCA(o.PKIDir, nil)
	if err != nil {
		return client, peer, err
	}
	hosts, err := o.certHosts()
	if err != nil {
		return client, peer, err
	}
	kp, err := b.EnsureEtcdCert(memberCertPrefix+o.Name, o.Name, hosts)
	if err != nil {
		return client, peer, err
	}
	for _, is := range b.Issued {
		klog.InfoS("Issued certificate", "name", is.Name, "reason", is.Reason, "dir", o.PKIDir)
	}
	for _, t := range []*etcd.TLSConfig{&client, &peer} {
		if t.CertFile == "" {
			t.CertFile, t.KeyFile = kp.CertFile, kp.KeyFile
		}
		if t.TrustedCAFile == "" {
			t.TrustedCAFile = b.CA.CertFile
		}
		t.ClientCertAuth = true
	}
	return client, peer, nil
}

// certHosts are the hosts of the member's URLs (every interface address
// for an unspecified one), and localhost.
func (o *Options) certHosts() ([]string, error) {
	hosts := []string{"localhost", "127.0.0.1"}
	add := func(h string) {
		if !slices.Contains(hosts, h) {
			hosts = append(hosts, h)
		}
	}
	for _, urls := range [][]string{o.ListenClientURLs, o.AdvertiseClientURLs, o.ListenPeerURLs, o.AdvertisePeerURLs} {
		for _, s := range urls {
			u, err := url.Parse(s)
			if err != nil {
				return nil, fmt.Errorf("%q: %w", s, err)
			}
			h := u.Hostname()
			if ip := net.ParseIP(h); ip != nil && ip.IsUnspecified() {
				all, err := pki.DefaultHosts(h)
				if err != nil {
					return nil, err
				}
				for _, a := range all {
					add(a)
				}
				continue
			}
			add(h)
		}
	}
	return hosts, nil
}

// newClientCertCommand returns `kubecore etcd client-cert`, which issues a
// client certificate of the etcd CA (for an apiserver's --etcd-certfile).
func newClientCertCommand() *cobra.Command {
	var dir, name string
	cmd := &cobra.Command{
		Use:   "client-cert",
		Short: "Issue a client certificate of the etcd CA in --pki-dir (made when missing)",
		Long: "Issue DIR/NAME.crt and DIR/NAME.key, a client certificate signed by the etcd CA\n" +
			"in DIR (ca.crt and ca.key, made when missing), for an apiserver's --etcd-certfile\n" +
			"and --etcd-keyfile; --etcd-cafile is DIR/ca.crt.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return issueClientCert(cmd.OutOrStdout(), dir, name)
		},
	}
	cmd.Flags().StringVar(&dir, "pki-dir", "", "Directory of the etcd CA")
	cmd.Flags().StringVar(&name, "name", "apiserver-etcd-client", "File name and common name of the certificate")
	return cmd
}

func issueClientCert(out io.Writer, dir, name string) error {
	var errs []error
	if dir == "" {
		errs = append(errs, errors.New("--pki-dir is required"))
	}
	if name == "" {
		errs = append(errs, errors.New("--name is required"))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	b, err := pki.OpenEtcdCA(dir, nil)
	if err != nil {
		return err
	}
	kp, err := b.EnsureEtcdCert(name, name, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "client certificate %s and key %s, CA %s\n", kp.CertFile, kp.KeyFile, b.CA.CertFile)
	return nil
}
