package etcd

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	clientv3 "go.etcd.io/etcd/client/v3"

	"kubecore.io/kubecore/pkg/etcd"
)

// defragTimeout bounds the defragmentation of one member: it rewrites the
// whole database file.
const defragTimeout = 10 * time.Minute

// DefragOptions are the flags of `kubecore etcd defrag`.
type DefragOptions struct {
	// DataDir is a stopped member's data dir, defragmented in place when
	// EtcdServers is empty.
	DataDir string
	// EtcdServers are running members, each defragmented in turn.
	EtcdServers []string
	// CAFile, CertFile and KeyFile secure the connections to EtcdServers.
	CAFile, CertFile, KeyFile string
}

// Validate returns every problem with the options.
func (o *DefragOptions) Validate() []error {
	var errs []error
	if len(o.EtcdServers) == 0 && o.DataDir == "" {
		errs = append(errs, errors.New("--etcd-servers or --data-dir is required"))
	}
	for _, s := range o.EtcdServers {
		if u, err := url.Parse(s); err != nil || u.Host == "" {
			errs = append(errs, fmt.Errorf("--etcd-servers: %q is not a URL", s))
		}
	}
	if (o.CertFile == "") != (o.KeyFile == "") {
		errs = append(errs, errors.New("--etcd-certfile and --etcd-keyfile go together"))
	}
	if (o.CAFile != "" || o.CertFile != "") && len(o.EtcdServers) == 0 {
		errs = append(errs, errors.New("--etcd-cafile, --etcd-certfile and --etcd-keyfile need --etcd-servers"))
	}
	return errs
}

// Run defragments and prints each member's database size before and after.
func (o *DefragOptions) Run(ctx context.Context, out io.Writer) error {
	if err := errors.Join(o.Validate()...); err != nil {
		return err
	}
	if len(o.EtcdServers) == 0 {
		return o.defragDataDir(ctx, out)
	}
	tlsCfg, err := o.tlsConfig()
	if err != nil {
		return err
	}
	client, err := clientv3.New(clientv3.Config{Endpoints: o.EtcdServers, DialTimeout: 5 * time.Second, TLS: tlsCfg, Context: ctx})
	if err != nil {
		return fmt.Errorf("connect to etcd: %w", err)
	}
	defer client.Close()
	var errs []error
	for _, ep := range o.EtcdServers {
		if err := defragMember(ctx, out, client, ep); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func defragMember(ctx context.Context, out io.Writer, client *clientv3.Client, ep string) error {
	ctx, cancel := context.WithTimeout(ctx, defragTimeout)
	defer cancel()
	before, err := client.Status(ctx, ep)
	if err != nil {
		return fmt.Errorf("status of %s: %w", ep, err)
	}
	if _, err := client.Defragment(ctx, ep); err != nil {
		return fmt.Errorf("defragment %s: %w", ep, err)
	}
	after, err := client.Status(ctx, ep)
	if err != nil {
		return fmt.Errorf("status of %s: %w", ep, err)
	}
	_, err = fmt.Fprintf(out, "Defragmented %s: %d -> %d bytes (%d in use)\n", ep, before.DbSize, after.DbSize, after.DbSizeInUse)
	return err
}

// defragDataDir starts the member of a data dir no one uses, on loopback
// ports, and defragments it.
func (o *DefragOptions) defragDataDir(ctx context.Context, out io.Writer) error {
	dir, err := filepath.Abs(o.DataDir)
	if err != nil {
		return fmt.Errorf("data dir %q: %w", o.DataDir, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "member")); err != nil {
		return fmt.Errorf("%s holds no etcd member: %w", dir, err)
	}
	member, err := etcd.Start(ctx, etcd.Config{DataDir: dir, NoStartDefrag: true})
	if err != nil {
		return fmt.Errorf("%w (a running member is defragmented with --etcd-servers)", err)
	}
	defer member.Close()
	ctx, cancel := context.WithTimeout(ctx, defragTimeout)
	defer cancel()
	before, after, err := member.Defragment(ctx)
	if err != nil {
		return err
	}
	_, inUse := member.Sizes()
	_, err = fmt.Fprintf(out, "Defragmented %s: %d -> %d bytes (%d in use)\n", dir, before, after, inUse)
	return err
}

func (o *DefragOptions) tlsConfig() (*tls.Config, error) {
	if o.CAFile == "" && o.CertFile == "" {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.CAFile != "" {
		pem, err := os.ReadFile(o.CAFile)
		if err != nil {
			return nil, fmt.Errorf("--etcd-cafile: %w", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--etcd-cafile %s: no certificate found", o.CAFile)
		}
	}
	if o.CertFile != "" {
		pair, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
		if err != nil {
			return nil, fmt.Errorf("--etcd-certfile and --etcd-keyfile: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}

func newDefragCommand() *cobra.Command {
	home, _ := os.UserHomeDir()
	o := &DefragOptions{DataDir: filepath.Join(home, ".kubecore", "etcd")}
	cmd := &cobra.Command{
		Use:   "defrag",
		Short: "Return the free space of etcd's database file to the file system",
		Long: "Defragment etcd: rewrite each member's database file without the pages that\n" +
			"compaction freed, so that the file shrinks. With --etcd-servers, each running\n" +
			"member in turn (it pauses while it rewrites); otherwise the stopped member in\n" +
			"--data-dir (an apiserver or all-in-one data dir's etcd/). An embedded member\n" +
			"also defragments itself at start when more than half of its file is free.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.Run(cmd.Context(), cmd.OutOrStdout())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&o.DataDir, "data-dir", o.DataDir, "Data dir of a stopped member, used without --etcd-servers")
	fs.StringSliceVar(&o.EtcdServers, "etcd-servers", o.EtcdServers, "Client URLs of running members to defragment")
	fs.StringVar(&o.CAFile, "etcd-cafile", "", "CA bundle verifying the certificates of --etcd-servers")
	fs.StringVar(&o.CertFile, "etcd-certfile", "", "Client certificate (PEM) presented to --etcd-servers")
	fs.StringVar(&o.KeyFile, "etcd-keyfile", "", "Key of --etcd-certfile")
	return cmd
}
