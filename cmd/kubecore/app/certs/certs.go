// Package certs implements `kubecore certs check|rotate`: the expiry of
// the certificates in a data dir's pki/, and their forced re-issue. A
// running apiserver serves a rotated certificate within a minute; the
// other components load theirs when they restart.
package certs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"kubecore.io/client/tools/clientcmd"

	"kubecore.io/kubecore/cmd/kubecore/app/apiserver"
	"kubecore.io/kubecore/pkg/pki"
)

// The verbs of `kubecore certs`.
const (
	VerbCheck      = "check"
	VerbRotate     = "rotate"
	VerbKubeconfig = "kubeconfig"
)

// Options are the flags of `kubecore certs`.
type Options struct {
	// Verb is check, rotate or kubeconfig.
	Verb string
	// Output receives what the verb prints.
	Output io.Writer

	DataDir string
	// BindAddress is the apiserver's, which its serving certificate covers.
	BindAddress string
	Now         func() time.Time

	// The flags of `certs kubeconfig`: the user and groups of the client
	// certificate, the server it talks to and where to write it.
	User   string
	Groups []string
	Server string
	Out    string
}

// NewOptions returns the defaults, those of the apiserver.
func NewOptions() *Options {
	a := apiserver.NewOptions()
	return &Options{DataDir: a.DataDir, BindAddress: a.BindAddress, Now: time.Now}
}

// Validate returns every problem with the options of the verb.
func (o *Options) Validate() []error {
	var errs []error
	if o.DataDir == "" {
		errs = append(errs, errors.New("--data-dir is required"))
	}
	switch o.Verb {
	case VerbCheck, VerbRotate:
	case VerbKubeconfig:
		if o.User == "" {
			errs = append(errs, errors.New("--user is required"))
		}
		servers := clientcmd.SplitServers(o.Server)
		if len(servers) == 0 {
			errs = append(errs, fmt.Errorf("--server %q must be an https:// URL", o.Server))
		}
		for _, s := range servers {
			if u, err := url.Parse(s); err != nil || u.Scheme != "https" || u.Host == "" {
				errs = append(errs, fmt.Errorf("--server %q must be an https:// URL", s))
			}
		}
		if o.Out == "" {
			errs = append(errs, errors.New("--out is required"))
		}
	default:
		errs = append(errs, fmt.Errorf("unknown verb %q: want check, rotate or kubeconfig", o.Verb))
	}
	return errs
}

// Config is the completed options; only Complete makes one.
type Config struct {
	completed *completedConfig
}

type completedConfig struct {
	Options
	// dir is DATA_DIR/pki, which holds a CA.
	dir string
}

// Complete validates o and finds the data dir's certificates.
func (o *Options) Complete() (Config, error) {
	if err := errors.Join(o.Validate()...); err != nil {
		return Config{}, err
	}
	dir := filepath.Join(o.DataDir, "pki")
	if !pki.Exists(dir) {
		return Config{}, fmt.Errorf("no certificates in %s: start kubecore apiserver or all-in-one with --data-dir %s first", dir, o.DataDir)
	}
	c := &completedConfig{Options: *o, dir: dir}
	if c.Output == nil {
		c.Output = io.Discard
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return Config{completed: c}, nil
}

// Run runs the verb.
func (c Config) Run(context.Context) error {
	cc := c.completed
	if cc == nil {
		return errors.New("certs config was not completed")
	}
	switch cc.Verb {
	case VerbCheck:
		return cc.check()
	case VerbRotate:
		return cc.rotate()
	default:
		return cc.kubeconfig()
	}
}

// run completes o for verb and runs it, printing to out.
func (o *Options) run(verb string, out io.Writer) error {
	v := *o
	v.Verb, v.Output = verb, out
	c, err := v.Complete()
	if err != nil {
		return err
	}
	return c.Run(context.Background())
}

// Check prints every certificate with its expiry; it fails when one is
// expired, expiring within 30 days or not signed by the CA.
func (o *Options) Check(out io.Writer) error { return o.run(VerbCheck, out) }

func (o *completedConfig) check() error {
	dir, out := o.dir, o.Output
	now := o.Now()
	statuses, err := pki.Inspect(dir, now)
	if err != nil {
		return err
	}
	fmt.Fprint(out, pki.FormatStatus(statuses, now))
	bad := 0
	for _, st := range statuses {
		if st.Problem != "" {
			bad++
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d certificate(s) need renewal: run kubecore certs rotate --data-dir %s, or restart kubecore", bad, o.DataDir)
	}
	return nil
}

// Rotate re-issues every certificate but the CA and prints the result.
func (o *Options) Rotate(out io.Writer) error { return o.run(VerbRotate, out) }

func (o *completedConfig) rotate() error {
	dir, out := o.dir, o.Output
	hosts, err := pki.DefaultHosts(o.BindAddress)
	if err != nil {
		return err
	}
	b, err := pki.EnsureServing(dir, pki.Options{Hosts: hosts, Now: o.Now, Rotate: true})
	if err != nil {
		return err
	}
	if err := b.RenewClientCerts(); err != nil {
		return err
	}
	for _, is := range b.Issued {
		fmt.Fprintf(out, "certificate %s renewed\n", is.Name)
	}
	// The admin kubeconfig embeds its certificate: rewrite it for the
	// server it names.
	kubeconfig := filepath.Join(o.DataDir, "admin.kubeconfig")
	if server, err := pki.KubeconfigServer(kubeconfig); err == nil {
		if err := pki.WriteAdminKubeconfig(kubeconfig, server, b); err != nil {
			return fmt.Errorf("rewrite %s: %w", kubeconfig, err)
		}
		fmt.Fprintf(out, "kubeconfig %s rewritten\n", kubeconfig)
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// certName turns a user name into a pki file name: system:node:n1 ->
// user-system-node-n1.
func certName(user string) string {
	var b strings.Builder
	b.WriteString("user-")
	for _, r := range strings.ToLower(user) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return strings.TrimRight(b.String(), "-.")
}

// Kubeconfig issues (or reuses) a client certificate for the user and
// groups, signed by the data dir's CA, and writes a kubeconfig with it
// for the server: what a component or a user on another machine needs.
func (o *Options) Kubeconfig(out io.Writer) error { return o.run(VerbKubeconfig, out) }

func (o *completedConfig) kubeconfig() error {
	dir, out := o.dir, o.Output
	hosts, err := pki.DefaultHosts(o.BindAddress)
	if err != nil {
		return err
	}
	b, err := pki.EnsureServing(dir, pki.Options{Hosts: hosts, Now: o.Now})
	if err != nil {
		return err
	}
	kp, err := b.EnsureClientCert(certName(o.User), o.User, o.Groups)
	if err != nil {
		return err
	}
	if err := pki.WriteKubeconfig(o.Out, o.Server, b, kp); err != nil {
		return fmt.Errorf("write %s: %w", o.Out, err)
	}
	fmt.Fprintf(out, "kubeconfig %s written for user %q (groups %v) at %s\n", o.Out, o.User, o.Groups, o.Server)
	return nil
}

// NewCommand returns the certs command and its check and rotate verbs.
func NewCommand() *cobra.Command {
	o := NewOptions()
	cmd := &cobra.Command{
		Use:   "certs",
		Short: "Check and rotate certificates",
		Long: "Check the expiry of the certificates in DATA_DIR/pki, or re-issue them.\n" +
			"kubecore renews certificates within 30 days of expiry by itself, at start and while running.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.PersistentFlags().StringVar(&o.DataDir, "data-dir", o.DataDir, "The data dir of kubecore apiserver or all-in-one")
	check := &cobra.Command{
		Use:   "check",
		Short: "List the certificates with their expiry; fail when one needs renewal",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return o.Check(cmd.OutOrStdout()) },
	}
	rotate := &cobra.Command{
		Use:   "rotate",
		Short: "Re-issue every certificate but the CA now",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return o.Rotate(cmd.OutOrStdout()) },
	}
	rotate.Flags().StringVar(&o.BindAddress, "bind-address", o.BindAddress, "The apiserver's --bind-address, which its serving certificate covers")
	kubeconfig := &cobra.Command{
		Use:   "kubeconfig",
		Short: "Issue a client certificate signed by the cluster CA and write a kubeconfig with it",
		Long: "Issue a client certificate for --user in --groups, signed by the CA of --data-dir, and write\n" +
			"a kubeconfig for --server to --out: what a scheduler, controller-manager, kubelet or user\n" +
			"on another machine needs (e.g. --user system:node:NAME --groups system:nodes for a kubelet).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.Kubeconfig(cmd.OutOrStdout()) },
	}
	kf := kubeconfig.Flags()
	kf.StringVar(&o.User, "user", o.User, "User name of the certificate (its common name)")
	kf.StringSliceVar(&o.Groups, "groups", o.Groups, "Groups of the user (its organizations)")
	kf.StringVar(&o.Server, "server", o.Server, "The apiserver's https URL; several, comma-separated, for clients to fail over between")
	kf.StringVar(&o.Out, "out", o.Out, "Where to write the kubeconfig (mode 0600)")
	cmd.AddCommand(check, rotate, kubeconfig)
	return cmd
}
