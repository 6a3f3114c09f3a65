// Package version implements `kubecore version`: the build's version, commit
// and tree state as the Makefile stamped them.
package version

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"kubecore.io/apimachinery/pkg/version"
)

// NewCommand returns the version subcommand.
func NewCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version of kubecore",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info := version.Get()
			switch output {
			case "":
				commit := info.GitCommit
				if commit == "" {
					commit = "unknown"
				}
				fmt.Fprintf(cmd.OutOrStdout(), "kubecore %s (commit %s, tree %s, built %s, %s %s)\n",
					info.GitVersion, commit, orUnknown(info.GitTreeState), info.BuildDate, info.GoVersion, info.Platform)
			case "json":
				b, err := json.MarshalIndent(info, "", "  ")
				if err != nil {
					return err
				}
				fmt.Fprintln(cmd.OutOrStdout(), string(b))
			default:
				return fmt.Errorf("--output must be 'json' or empty, not %q", output)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "Output format: empty for one line, or json")
	return cmd
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
