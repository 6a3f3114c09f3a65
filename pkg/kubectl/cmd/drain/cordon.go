// Package drain implements `kubectl cordon` and `kubectl uncordon`: mark
// nodes unschedulable, or schedulable again.
package drain

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
)

// NewCordonCommand returns cordon.
func NewCordonCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	return newCommand(f, streams, true)
}

// NewUncordonCommand returns uncordon.
func NewUncordonCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	return newCommand(f, streams, false)
}

// Options are the flags of cordon and uncordon.
type Options struct {
	Selector   string
	DryRunFlag cmdutil.DryRunFlag

	unschedulable bool
	factory       *cmdutil.Factory
	streams       cmdutil.IOStreams
}

func newCommand(f *cmdutil.Factory, streams cmdutil.IOStreams, cordon bool) *cobra.Command {
	o := &Options{unschedulable: cordon, factory: f, streams: streams}
	verb, short := "uncordon", "Mark node as schedulable"
	if cordon {
		verb, short = "cordon", "Mark node as unschedulable"
	}
	cmd := &cobra.Command{
		Use:   verb + " NODE",
		Short: short,
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.Run(cmd.Context(), args)
		},
	}
	cmd.Flags().StringVarP(&o.Selector, "selector", "l", "", "Selector (label query) to filter on")
	cmdutil.AddDryRunFlag(cmd.Flags(), &o.DryRunFlag)
	return cmd
}

// Run sets spec.unschedulable on each node that needs it.
func (o *Options) Run(ctx context.Context, args []string) error {
	dryRun, err := o.DryRunFlag.Strategy()
	if err != nil {
		return err
	}
	if len(args) == 0 && o.Selector == "" {
		return cmdutil.UsageErrorf("kubectl cordon", "USAGE: cordon NODE [flags]")
	}
	b, err := o.factory.NewBuilder(o.streams)
	if err != nil {
		return err
	}
	r, err := b.Args(append([]string{"nodes"}, args...)...).LabelSelector(o.Selector).Do(ctx)
	if err != nil {
		return err
	}
	infos, err := r.Fetch(ctx)
	if err != nil {
		return err
	}
	done, already := "uncordoned", "already uncordoned"
	if o.unschedulable {
		done, already = "cordoned", "already cordoned"
	}
	var errs []error
	for _, info := range infos {
		current, _ := dynamic.NestedField(info.Object.Object, "spec", "unschedulable").(bool)
		if current == o.unschedulable {
			fmt.Fprintf(o.streams.Out, "%s %s\n", info.ObjectName(), already)
			continue
		}
		if dryRun != cmdutil.DryRunClient {
			patch := fmt.Sprintf(`{"spec":{"unschedulable":%t}}`, o.unschedulable)
			if !o.unschedulable {
				patch = `{"spec":{"unschedulable":null}}`
			}
			if _, err := r.Client(info).Patch(ctx, info.Name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{DryRun: dryRun.Param()}); err != nil {
				errs = append(errs, fmt.Errorf("unable to %s node %q: %w", map[bool]string{true: "cordon", false: "uncordon"}[o.unschedulable], info.Name, err))
				continue
			}
		}
		fmt.Fprintf(o.streams.Out, "%s %s%s\n", info.ObjectName(), done, dryRun.Suffix())
	}
	return errors.Join(errs...)
}
