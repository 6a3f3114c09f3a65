// Package clusterinfo implements `kubectl cluster-info`: where the
// control plane answers.
package clusterinfo

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
)

// NewCommand returns the cluster-info command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "cluster-info",
		Short: "Display cluster information",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd.Context(), f, streams)
		},
	}
}

func run(ctx context.Context, f *cmdutil.Factory, streams cmdutil.IOStreams) error {
	d, err := f.Discovery()
	if err != nil {
		return err
	}
	// Reaching the server is the check: kubectl reports it only when it answers.
	if _, err := d.ServerVersion(ctx); err != nil {
		return err
	}
	fmt.Fprintf(streams.Out, "Kubernetes control plane is running at %s\n", d.RESTClient().Server())
	fmt.Fprintf(streams.Out, "\nTo further debug and diagnose cluster problems, use 'kubectl cluster-info dump'.\n")
	return nil
}
