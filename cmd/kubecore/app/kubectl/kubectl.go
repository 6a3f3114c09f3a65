// Package kubectl is `kubecore kubectl`, the bundled kubectl (also run when
// the binary is invoked through a link named kubectl).
package kubectl

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	kubectlcmd "kubecore.io/kubecore/pkg/kubectl/cmd"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
)

// NewCommand returns the kubectl subcommand. kubectl prints its own errors
// ("Error from server (NotFound): ...") and exits 1 (or a remote command's
// exit code), so every failure of a
// verb is printed here and ends the process rather than reaching the
// kubecore root's generic "error: ..." report.
func NewCommand() *cobra.Command {
	streams := cmdutil.StdStreams()
	cmd := kubectlcmd.NewKubectlCommand(streams)
	cmd.Short = "Drive the cluster, as kubectl does"
	exitOnError(cmd, func(err error) {
		fmt.Fprintln(streams.ErrOut, kubectlcmd.Message(err))
		klog.Flush()
		os.Exit(kubectlcmd.ExitCode(err))
	})
	return cmd
}

// exitOnError makes the RunE of cmd and of every command under it, and
// their flag errors, call fail with the error.
func exitOnError(cmd *cobra.Command, fail func(error)) {
	if run := cmd.RunE; run != nil {
		cmd.RunE = func(c *cobra.Command, args []string) error {
			if err := run(c, args); err != nil {
				fail(err)
			}
			return nil
		}
	}
	if flagErr := cmd.FlagErrorFunc(); flagErr != nil {
		cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
			fail(flagErr(c, err))
			return nil
		})
	}
	for _, c := range cmd.Commands() {
		exitOnError(c, fail)
	}
}
