// Package label implements `kubectl label`.
package label

import (
	"github.com/spf13/cobra"

	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/metaedit"
)

// NewCommand returns the label command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	return metaedit.NewCommand(metaedit.Labels(),
		"label [--overwrite] (-f FILENAME | TYPE NAME) KEY_1=VAL_1 ... KEY_N=VAL_N [--resource-version=version]",
		"Update the labels on a resource", f, streams)
}
