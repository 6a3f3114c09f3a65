// Package app assembles the kubecore command: the root cobra command, its
// global flags, and one subcommand per component.
package app

import (
	"context"
	goflag "flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
	"k8s.io/klog/v2"

	"kubecore.io/kubecore/cmd/kubecore/app/allinone"
	"kubecore.io/kubecore/cmd/kubecore/app/apiserver"
	"kubecore.io/kubecore/cmd/kubecore/app/certs"
	"kubecore.io/kubecore/cmd/kubecore/app/controllermanager"
	"kubecore.io/kubecore/cmd/kubecore/app/dns"
	"kubecore.io/kubecore/cmd/kubecore/app/etcd"
	"kubecore.io/kubecore/cmd/kubecore/app/hollownodes"
	"kubecore.io/kubecore/cmd/kubecore/app/kubectl"
	"kubecore.io/kubecore/cmd/kubecore/app/kubelet"
	"kubecore.io/kubecore/cmd/kubecore/app/proxy"
	"kubecore.io/kubecore/cmd/kubecore/app/scheduler"
	"kubecore.io/kubecore/cmd/kubecore/app/token"
	"kubecore.io/kubecore/cmd/kubecore/app/version"
)

// Run executes the command named by args and returns the process exit code.
// Invoked through a link named kubectl, it runs the bundled CLI.
func Run(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	cmd := NewKubecoreCommand()
	rest := args[1:]
	if filepath.Base(args[0]) == "kubectl" {
		rest = append([]string{"kubectl"}, rest...)
	}
	cmd.SetArgs(rest)
	err := cmd.ExecuteContext(ctx)
	klog.Flush()
	if err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "error: %v\n", err)
		return 1
	}
	return 0
}

// NewKubecoreCommand returns the root command with every subcommand.
func NewKubecoreCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kubecore",
		Short: "kubecore: a small Kubernetes control plane in one binary",
		Long: "kubecore runs a Kubernetes-compatible control plane: etcd, an API server, a\n" +
			"scheduler, controllers and a kubelet, together (all-in-one) or each on its own node.",
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return cmd.Help()
		},
	}
	addKlogFlags(cmd)

	cmd.AddGroup(
		&cobra.Group{ID: "components", Title: "Components:"},
		&cobra.Group{ID: "tools", Title: "Tools:"},
	)
	for _, c := range []*cobra.Command{
		allinone.NewCommand(),
		etcd.NewCommand(),
		apiserver.NewCommand(),
		scheduler.NewCommand(),
		controllermanager.NewCommand(),
		kubelet.NewCommand(),
		proxy.NewCommand(),
		dns.NewCommand(),
		hollownodes.NewCommand(),
	} {
		c.GroupID = "components"
		cmd.AddCommand(c)
	}
	for _, c := range []*cobra.Command{
		kubectl.NewCommand(),
		certs.NewCommand(),
		token.NewCommand(),
		version.NewCommand(),
	} {
		c.GroupID = "tools"
		cmd.AddCommand(c)
	}
	cmd.SetHelpCommandGroupID("tools")
	cmd.SetCompletionCommandGroupID("tools")
	return cmd
}

// addKlogFlags exposes klog's verbosity flags (-v, --vmodule) on every
// subcommand; logs always go to stderr.
func addKlogFlags(cmd *cobra.Command) {
	fs := goflag.NewFlagSet("klog", goflag.ContinueOnError)
	klog.InitFlags(fs)
	for _, name := range []string{"v", "vmodule"} {
		cmd.PersistentFlags().AddGoFlag(fs.Lookup(name))
	}
}
