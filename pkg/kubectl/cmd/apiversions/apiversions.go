// Package apiversions implements `kubectl api-versions`: every group
// version the server serves, one a line.
package apiversions

import (
	"context"
	"fmt"
	"slices"

	"github.com/spf13/cobra"

	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
)

// NewCommand returns the api-versions command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "api-versions",
		Short: "Print the supported API versions on the server, in the form of \"group/version\"",
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
	groups, err := d.ServerGroups(ctx)
	if err != nil {
		return fmt.Errorf("couldn't get available api versions from server: %w", err)
	}
	var versions []string
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			versions = append(versions, v.GroupVersion)
		}
	}
	slices.Sort(versions)
	for _, v := range versions {
		fmt.Fprintln(streams.Out, v)
	}
	return nil
}
