// Package etcd implements `kubecore etcd`: one embedded etcd member, alone
// or joining a multi-member cluster, served until the context ends.
package etcd

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"kubecore.io/kubecore/pkg/etcd"
)

// Options are the flags of `kubecore etcd`.
type Options struct {
	DataDir             string
	Name                string
	ListenClientURLs    []string
	ListenPeerURLs      []string
	AdvertiseClientURLs []string
	AdvertisePeerURLs   []string
	InitialCluster      string
	InitialClusterState string
	// ClientTLS and PeerTLS are the --cert-file ... and --peer-cert-file ...
	// flags, etcd's own.
	ClientTLS, PeerTLS etcd.TLSConfig
	// PKIDir, when set, holds the etcd CA (ca.crt, ca.key, made when
	// missing) and this member's certificate NAME.crt/.key, issued for the
	// hosts of its URLs; it fills in every TLS flag not given, with client
	// certificates required from clients and peers.
	PKIDir string
}

// NewOptions returns the defaults: a single member on loopback.
func NewOptions() *Options {
	home, _ := os.UserHomeDir()
	return &Options{
		DataDir:             filepath.Join(home, ".kubecore", "etcd"),
		Name:                "default",
		ListenClientURLs:    []string{"http://127.0.0.1:2379"},
		ListenPeerURLs:      []string{"http://127.0.0.1:2380"},
		InitialClusterState: "new",
	}
}

// Validate returns every problem with the options.
func (o *Options) Validate() []error {
	var errs []error
	if o.DataDir == "" {
		errs = append(errs, errors.New("--data-dir is required"))
	}
	if o.Name == "" {
		errs = append(errs, errors.New("--name is required"))
	}
	for flag, urls := range map[string][]string{
		"--listen-client-urls": o.ListenClientURLs, "--listen-peer-urls": o.ListenPeerURLs,
		"--advertise-client-urls": o.AdvertiseClientURLs, "--initial-advertise-peer-urls": o.AdvertisePeerURLs,
	} {
		for _, s := range urls {
			if u, err := url.Parse(s); err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
				errs = append(errs, fmt.Errorf("%s: %q is not an http(s) URL", flag, s))
			}
		}
	}
	if o.InitialClusterState != "new" && o.InitialClusterState != "existing" {
		errs = append(errs, fmt.Errorf("--initial-cluster-state must be new or existing, not %q", o.InitialClusterState))
	}
	for _, m := range splitNonEmpty(o.InitialCluster) {
		if name, peer, ok := strings.Cut(m, "="); !ok || name == "" || peer == "" {
			errs = append(errs, fmt.Errorf("--initial-cluster: %q is not name=peerURL", m))
		}
	}
	errs = append(errs, o.validateTLS()...)
	return errs
}

// Config is the completed options; only Complete makes one.
type Config struct {
	member etcd.Config
}

// Complete validates o and returns the config Run needs.
func (o *Options) Complete() (Config, error) {
	if err := errors.Join(o.Validate()...); err != nil {
		return Config{}, err
	}
	dir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return Config{}, fmt.Errorf("data dir %q: %w", o.DataDir, err)
	}
	clientTLS, peerTLS, err := o.completeTLS()
	if err != nil {
		return Config{}, err
	}
	return Config{member: etcd.Config{
		DataDir:             dir,
		Name:                o.Name,
		ListenClientURLs:    o.ListenClientURLs,
		ListenPeerURLs:      o.ListenPeerURLs,
		AdvertiseClientURLs: o.AdvertiseClientURLs,
		AdvertisePeerURLs:   o.AdvertisePeerURLs,
		InitialCluster:      o.InitialCluster,
		InitialClusterState: o.InitialClusterState,
		ClientTLS:           clientTLS,
		PeerTLS:             peerTLS,
	}}, nil
}

// Run serves the member until ctx ends or the member fails.
func (c Config) Run(ctx context.Context) error {
	member, err := etcd.Start(ctx, c.member)
	if err != nil {
		return err
	}
	defer member.Close()
	klog.InfoS("etcd member is ready", "name", c.member.Name, "clientURLs", member.ClientURLs(), "peerURLs", member.PeerURLs())
	select {
	case <-ctx.Done():
		return nil
	case err := <-member.Err():
		return fmt.Errorf("etcd member %s: %w", c.member.Name, err)
	}
}

// NewCommand returns the etcd subcommand.
func NewCommand() *cobra.Command {
	o := NewOptions()
	cmd := &cobra.Command{
		Use:   "etcd",
		Short: "Run an embedded etcd member",
		Long: "Run one etcd member. Alone it is a single-member cluster; with --initial-cluster\n" +
			"it forms or joins a multi-member cluster that apiservers use with --etcd-servers.\n" +
			"With --pki-dir (or the TLS flags) it serves clients and peers over TLS and asks\n" +
			"both for certificates of the etcd CA: 'kubecore etcd client-cert' issues one.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := o.Complete()
			if err != nil {
				return err
			}
			return cfg.Run(cmd.Context())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.DataDir, "data-dir", o.DataDir, "Directory of the member's data")
	fs.StringVar(&o.Name, "name", o.Name, "Name of this member in the cluster")
	fs.StringSliceVar(&o.ListenClientURLs, "listen-client-urls", o.ListenClientURLs, "URLs to serve clients on")
	fs.StringSliceVar(&o.ListenPeerURLs, "listen-peer-urls", o.ListenPeerURLs, "URLs to serve peers on")
	fs.StringSliceVar(&o.AdvertiseClientURLs, "advertise-client-urls", nil, "Client URLs to tell the cluster (default: the listen URLs)")
	fs.StringSliceVar(&o.AdvertisePeerURLs, "initial-advertise-peer-urls", nil, "Peer URLs to tell the cluster (default: the listen URLs)")
	fs.StringVar(&o.InitialCluster, "initial-cluster", "", "Members of a multi-member cluster: name=peerURL,...")
	fs.StringVar(&o.InitialClusterState, "initial-cluster-state", o.InitialClusterState, "new to form a cluster, existing to join one")
	o.addTLSFlags(fs)
	cmd.AddCommand(newClientCertCommand(), newDefragCommand())
	return cmd
}

func splitNonEmpty(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
