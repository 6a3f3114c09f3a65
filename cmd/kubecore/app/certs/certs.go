// Package certs implements `kubecore certs check|rotate`: the expiry of
// the certificates in a data dir's pki/, and their forced re-issue. A
// running apiserver serves a rotated certificate within a minute; the
// other components load theirs when they restart.
package certs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"kubecore.io/kubecore/cmd/kubecore/app/apiserver"
	"kubecore.io/kubecore/pkg/pki"
)

// Options are the flags of `kubecore certs`.
type Options struct {
	DataDir string
	// BindAddress is the apiserver's, which its serving certificate covers.
	BindAddress string
	Now         func() time.Time
}

// NewOptions returns the defaults, those of the apiserver.
func NewOptions() *Options {
	a := apiserver.NewOptions()
	return &Options{DataDir: a.DataDir, BindAddress: a.BindAddress, Now: time.Now}
}

// pkiDir returns DATA_DIR/pki, which must hold a CA.
func (o *Options) pkiDir() (string, error) {
	if o.DataDir == "" {
		return "", errors.New("--data-dir is required")
	}
	dir := filepath.Join(o.DataDir, "pki")
	if !pki.Exists(dir) {
		return "", fmt.Errorf("no certificates in %s: start kubecore apiserver or all-in-one with --data-dir %s first", dir, o.DataDir)
	}
	return dir, nil
}

// Check prints every certificate with its expiry; it fails when one is
// expired, expiring within 30 days or not signed by the CA.
func (o *Options) Check(out io.Writer) error {
	dir, err := o.pkiDir()
	if err != nil {
		return err
	}
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
func (o *Options) Rotate(out io.Writer) error {
	dir, err := o.pkiDir()
	if err != nil {
		return err
	}
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
	cmd.AddCommand(check, rotate)
	return cmd
}
