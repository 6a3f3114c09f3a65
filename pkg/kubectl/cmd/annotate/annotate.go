// Package annotate implements `kubectl annotate`.
package annotate

import (
	"github.com/spf13/cobra"

	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/metaedit"
)

// NewCommand returns the annotate command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	return metaedit.NewCommand(metaedit.Annotations(),
		"annotate [--overwrite] (-f FILENAME | TYPE NAME) KEY_1=VAL_1 ... KEY_N=VAL_N [--resource-version=version]",
		"Update the annotations on a resource", f, streams)
}
