// Package version implements `kubectl version`: the bundled CLI's build and
// the server's.
package version

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"kubecore.io/apimachinery/pkg/version"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
)

// Options are the flags of version.
type Options struct {
	ClientOnly bool
	Output     string

	factory *cmdutil.Factory
	streams cmdutil.IOStreams
}

// NewCommand returns the version command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &Options{factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the client and server version information",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.Output != "" && o.Output != "yaml" && o.Output != "json" {
				return fmt.Errorf("--output must be 'yaml' or 'json'")
			}
			return o.Run(cmd.Context())
		},
	}
	cmd.Flags().BoolVar(&o.ClientOnly, "client", false, "If true, shows client version only (no server required).")
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "One of 'yaml' or 'json'.")
	return cmd
}

// versions is what -o json and -o yaml print.
type versions struct {
	ClientVersion *version.Info `json:"clientVersion,omitempty"`
	ServerVersion *version.Info `json:"serverVersion,omitempty"`
}

// Run prints the versions; a server that cannot be reached is reported
// after the client's version.
func (o *Options) Run(ctx context.Context) error {
	client := version.Get()
	v := versions{ClientVersion: &client}
	var serverErr error
	if !o.ClientOnly {
		d, err := o.factory.Discovery()
		if err == nil {
			v.ServerVersion, err = d.ServerVersion(ctx)
		}
		serverErr = err
	}
	switch o.Output {
	case "json":
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		fmt.Fprintln(o.streams.Out, string(b))
	case "yaml":
		b, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		fmt.Fprint(o.streams.Out, string(b))
	default:
		fmt.Fprintf(o.streams.Out, "Client Version: %s\n", client.GitVersion)
		if v.ServerVersion != nil {
			fmt.Fprintf(o.streams.Out, "Server Version: %s\n", v.ServerVersion.GitVersion)
		}
	}
	return serverErr
}
