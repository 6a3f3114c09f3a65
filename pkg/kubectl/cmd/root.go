// Package cmd assembles the kubectl command: the global flags, the verbs in
// their groups, and kubectl's handling of unknown verbs and flags.
package cmd

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"kubecore.io/kubecore/pkg/kubectl/cmd/annotate"
	"kubecore.io/kubecore/pkg/kubectl/cmd/apiresources"
	"kubecore.io/kubecore/pkg/kubectl/cmd/apiversions"
	"kubecore.io/kubecore/pkg/kubectl/cmd/apply"
	"kubecore.io/kubecore/pkg/kubectl/cmd/attach"
	"kubecore.io/kubecore/pkg/kubectl/cmd/clusterinfo"
	"kubecore.io/kubecore/pkg/kubectl/cmd/completion"
	"kubecore.io/kubecore/pkg/kubectl/cmd/config"
	"kubecore.io/kubecore/pkg/kubectl/cmd/create"
	"kubecore.io/kubecore/pkg/kubectl/cmd/debug"
	"kubecore.io/kubecore/pkg/kubectl/cmd/delete"
	"kubecore.io/kubecore/pkg/kubectl/cmd/describe"
	"kubecore.io/kubecore/pkg/kubectl/cmd/drain"
	"kubecore.io/kubecore/pkg/kubectl/cmd/edit"
	"kubecore.io/kubecore/pkg/kubectl/cmd/exec"
	"kubecore.io/kubecore/pkg/kubectl/cmd/explain"
	"kubecore.io/kubecore/pkg/kubectl/cmd/expose"
	"kubecore.io/kubecore/pkg/kubectl/cmd/get"
	"kubecore.io/kubecore/pkg/kubectl/cmd/label"
	"kubecore.io/kubecore/pkg/kubectl/cmd/logs"
	"kubecore.io/kubecore/pkg/kubectl/cmd/patch"
	"kubecore.io/kubecore/pkg/kubectl/cmd/portforward"
	"kubecore.io/kubecore/pkg/kubectl/cmd/replace"
	"kubecore.io/kubecore/pkg/kubectl/cmd/rollout"
	"kubecore.io/kubecore/pkg/kubectl/cmd/run"
	"kubecore.io/kubecore/pkg/kubectl/cmd/scale"
	"kubecore.io/kubecore/pkg/kubectl/cmd/set"
	"kubecore.io/kubecore/pkg/kubectl/cmd/taint"
	"kubecore.io/kubecore/pkg/kubectl/cmd/top"
	"kubecore.io/kubecore/pkg/kubectl/cmd/version"
	"kubecore.io/kubecore/pkg/kubectl/cmd/wait"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
)

// NewKubectlCommand returns the kubectl command reading and writing
// streams. Its errors are meant to be printed with cmdutil.ErrorMessage.
func NewKubectlCommand(streams cmdutil.IOStreams) *cobra.Command {
	flags := cmdutil.NewConfigFlags()
	f := cmdutil.NewFactory(flags)
	cmd := &cobra.Command{
		Use:           "kubectl",
		Short:         "kubectl controls the Kubernetes cluster manager",
		Long:          "kubectl controls the cluster: the same verbs, flags and output as the Kubernetes kubectl, for what kubecore serves.",
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommandError(cmd, args[0])
			}
			return cmd.Help()
		},
	}
	cmd.SetIn(streams.In)
	cmd.SetOut(streams.Out)
	cmd.SetErr(streams.ErrOut)
	flags.AddFlags(cmd.PersistentFlags())
	cmd.SetFlagErrorFunc(flagError)

	groups := []struct {
		id, title string
		cmds      []*cobra.Command
	}{
		{"basic", "Basic Commands (Beginner):", []*cobra.Command{
			create.NewCommand(f, streams),
			expose.NewCommand(f, streams),
			run.NewCommand(f, streams),
			set.NewCommand(f, streams),
		}},
		{"intermediate", "Basic Commands (Intermediate):", []*cobra.Command{
			get.NewCommand(f, streams),
			edit.NewCommand(f, streams),
			delete.NewCommand(f, streams),
		}},
		{"cluster", "Cluster Management Commands:", []*cobra.Command{
			clusterinfo.NewCommand(f, streams),
			top.NewCommand(f, streams),
			drain.NewCordonCommand(f, streams),
			drain.NewDrainCommand(f, streams),
			drain.NewUncordonCommand(f, streams),
			taint.NewCommand(f, streams),
		}},
		{"troubleshooting", "Troubleshooting and Debugging Commands:", []*cobra.Command{
			describe.NewCommand(f, streams),
			logs.NewCommand(f, streams),
			attach.NewCommand(f, streams),
			debug.NewCommand(f, streams),
			explain.NewCommand(f, streams),
			exec.NewCommand(f, streams),
			portforward.NewCommand(f, streams),
		}},
		{"deploy", "Deploy Commands:", []*cobra.Command{
			rollout.NewCommand(f, streams),
			scale.NewCommand(f, streams),
		}},
		{"advanced", "Advanced Commands:", []*cobra.Command{
			apply.NewCommand(f, streams),
			patch.NewCommand(f, streams),
			replace.NewCommand(f, streams),
			wait.NewCommand(f, streams),
		}},
		{"settings", "Settings Commands:", []*cobra.Command{
			label.NewCommand(f, streams),
			annotate.NewCommand(f, streams),
		}},
		{"other", "Other Commands:", []*cobra.Command{
			apiresources.NewCommand(f, streams),
			apiversions.NewCommand(f, streams),
			completion.NewCommand(streams),
			config.NewCommand(f, streams),
			version.NewCommand(f, streams),
		}},
	}
	for _, g := range groups {
		cmd.AddGroup(&cobra.Group{ID: g.id, Title: g.title})
		for _, c := range g.cmds {
			c.GroupID = g.id
			cmd.AddCommand(c)
		}
	}
	return cmd
}

// unknownCommandError is what kubectl says for a verb it does not know,
// with the nearest verbs.
func unknownCommandError(cmd *cobra.Command, verb string) error {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
			names = append(names, c.Aliases...)
		}
	}
	msg := fmt.Sprintf("unknown command %q for %q", verb, "kubectl")
	if s := cmdutil.Suggest(verb, names); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t") + "\n"
	}
	return &CobraError{Msg: msg}
}

// CobraError is an error of the command line itself, printed as cobra
// prints it ("Error: ...") rather than as kubectl's "error: ...".
type CobraError struct{ Msg string }

func (e *CobraError) Error() string { return e.Msg }

// flagError names the flag, suggests the nearest ones, and points at help.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		var names []string
		seen := map[string]bool{}
		add := func(fl *pflag.Flag) {
			if !seen[fl.Name] {
				seen[fl.Name] = true
				names = append(names, fl.Name)
			}
		}
		cmd.Flags().VisitAll(add)
		cmd.InheritedFlags().VisitAll(add)
		if s := cmdutil.Suggest(name, names); len(s) > 0 {
			msg += "\n\nDid you mean this?\n\t--" + strings.Join(s, "\n\t--") + "\n"
		}
	}
	path := strings.Replace(cmd.CommandPath(), "kubecore kubectl", "kubectl", 1)
	return &CobraError{Msg: fmt.Sprintf("%s\nSee '%s --help' for usage.", msg, path)}
}

// ExitCode is the exit code of the kubectl command for err.
func ExitCode(err error) int { return cmdutil.ExitCode(err) }

// Message returns what to print for an error of the kubectl command.
func Message(err error) string {
	var ce *CobraError
	if errors.As(err, &ce) {
		return "Error: " + ce.Msg
	}
	return cmdutil.ErrorMessage(err)
}
