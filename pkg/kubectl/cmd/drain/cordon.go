// Package drain implements `kubectl cordon` and `kubectl uncordon`, which
// mark nodes unschedulable or schedulable again, and `kubectl drain`, which
// cordons nodes and evicts their pods.
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
	"kubecore.io/kubecore/pkg/kubectl/resource"
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
	r, infos, err := fetchNodes(ctx, o.factory, o.streams, args, o.Selector)
	if err != nil {
		return err
	}
	return setUnschedulable(ctx, r, infos, o.unschedulable, dryRun, o.streams)
}

// fetchNodes reads the nodes named by args or matching selector.
func fetchNodes(ctx context.Context, f *cmdutil.Factory, streams cmdutil.IOStreams, args []string, selector string) (*resource.Result, []*resource.Info, error) {
	b, err := f.NewBuilder(streams)
	if err != nil {
		return nil, nil, err
	}
	r, err := b.Args(append([]string{"nodes"}, args...)...).LabelSelector(selector).Do(ctx)
	if err != nil {
		return nil, nil, err
	}
	infos, err := r.Fetch(ctx)
	if err != nil {
		return nil, nil, err
	}
	return r, infos, nil
}

// setUnschedulable cordons (or uncordons) each node that needs it and
// says so of every node.
func setUnschedulable(ctx context.Context, r *resource.Result, infos []*resource.Info, unschedulable bool, dryRun cmdutil.DryRun, streams cmdutil.IOStreams) error {
	done, already := "uncordoned", "already uncordoned"
	if unschedulable {
		done, already = "cordoned", "already cordoned"
	}
	var errs []error
	for _, info := range infos {
		current, _ := dynamic.NestedField(info.Object.Object, "spec", "unschedulable").(bool)
		if current == unschedulable {
			fmt.Fprintf(streams.Out, "%s %s%s\n", info.ObjectName(), already, dryRun.Suffix())
			continue
		}
		if dryRun != cmdutil.DryRunClient {
			patch := fmt.Sprintf(`{"spec":{"unschedulable":%t}}`, unschedulable)
			if !unschedulable {
				patch = `{"spec":{"unschedulable":null}}`
			}
			if _, err := r.Client(info).Patch(ctx, info.Name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{DryRun: dryRun.Param()}); err != nil {
				errs = append(errs, fmt.Errorf("unable to %s node %q: %w", map[bool]string{true: "cordon", false: "uncordon"}[unschedulable], info.Name, err))
				continue
			}
		}
		fmt.Fprintf(streams.Out, "%s %s%s\n", info.ObjectName(), done, dryRun.Suffix())
	}
	return errors.Join(errs...)
}
