// Package scale implements `kubectl scale`: set the replicas of objects
// through their scale subresource.
package scale

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/printers"
	"kubecore.io/kubecore/pkg/kubectl/resource"
)

// Options are the flags of scale.
type Options struct {
	PrintFlags      *printers.PrintFlags
	Files           resource.FilenameOptions
	LabelSelector   string
	All             bool
	Replicas        int
	CurrentReplicas int
	ResourceVersion string
	Timeout         time.Duration
	DryRunFlag      cmdutil.DryRunFlag

	args    []string
	dryRun  cmdutil.DryRun
	factory *cmdutil.Factory
	streams cmdutil.IOStreams
}

// NewCommand returns the scale command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &Options{PrintFlags: printers.NewPrintFlags("scaled"), factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "scale [--resource-version=version] [--current-replicas=count] --replicas=COUNT (-f FILENAME | TYPE NAME)",
		Short: "Set a new size for a deployment, replica set, or replication controller",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	fs := cmd.Flags()
	o.PrintFlags.AddFlags(fs, false)
	cmdutil.AddFilenameFlags(fs, &o.Files, "identifying the resource to set a new size")
	fs.StringVarP(&o.LabelSelector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.(e.g. -l key1=value1,key2=value2,key3 in (value3)). Matching objects must satisfy all of the specified label constraints.")
	fs.BoolVar(&o.All, "all", false, "Select all resources in the namespace of the specified resource types")
	fs.IntVar(&o.Replicas, "replicas", -1, "The new desired number of replicas. Required.")
	fs.IntVar(&o.CurrentReplicas, "current-replicas", -1, "Precondition for current size. Requires that the current size of the resource match this value in order to scale. -1 (default) for no condition.")
	fs.StringVar(&o.ResourceVersion, "resource-version", "", "Precondition for resource version. Requires that the current resource version match this value in order to scale.")
	fs.DurationVar(&o.Timeout, "timeout", 0, "The length of time to wait before giving up on a scale operation, zero means don't wait. Any other values should contain a corresponding time unit (e.g. 1s, 2m, 3h).")
	cmdutil.AddDryRunFlag(fs, &o.DryRunFlag)
	return cmd
}

// Complete records the arguments.
func (o *Options) Complete(args []string) error {
	o.args = args
	d, err := o.DryRunFlag.Strategy()
	if err != nil {
		return err
	}
	o.dryRun = d
	o.PrintFlags.DryRunSuffix = d.Suffix()
	return nil
}

// Validate checks the flags.
func (o *Options) Validate() error {
	if o.Replicas < 0 {
		return cmdutil.Errorf("The --replicas=COUNT flag is required, and COUNT must be greater than or equal to 0")
	}
	if o.CurrentReplicas < -1 {
		return cmdutil.Errorf("The --current-replicas must specify an integer of -1 or greater")
	}
	_, err := o.PrintFlags.ToPrinter()
	return err
}

// Run scales each object.
func (o *Options) Run(ctx context.Context) error {
	b, err := o.factory.NewBuilder(o.streams)
	if err != nil {
		return err
	}
	r, err := b.Filenames(o.Files).Args(o.args...).LabelSelector(o.LabelSelector).
		SelectAll(o.All).RequireNames().Do(ctx)
	if err != nil {
		return err
	}
	infos, err := r.Fetch(ctx)
	if err != nil {
		return fmt.Errorf("no objects passed to scale %w", err)
	}
	if len(infos) > 1 && o.ResourceVersion != "" {
		return fmt.Errorf("cannot use --resource-version with multiple resources")
	}
	p, err := o.PrintFlags.ToPrinter()
	if err != nil {
		return err
	}
	var errs []error
	for _, info := range infos {
		if err := o.scale(ctx, r.Client(info), info); err != nil {
			errs = append(errs, err)
			continue
		}
		obj := info.Object
		if obj == nil || o.PrintFlags.OutputFormat == "" || o.PrintFlags.OutputFormat == "name" {
			obj = &dynamic.Unstructured{}
			obj.SetGroupVersionKind(info.Mapping.Kind)
			obj.SetName(info.Name)
		}
		if err := p.PrintObj(obj, o.streams.Out); err != nil {
			return err
		}
	}
	return errors.Join(errs...)
}

// scale checks the preconditions on the scale subresource, then patches it.
func (o *Options) scale(ctx context.Context, c *dynamic.ResourceClient, info *resource.Info) error {
	current, err := c.Get(ctx, info.Name, metav1.GetOptions{}, "scale")
	if err != nil {
		return err
	}
	if o.CurrentReplicas >= 0 {
		have, _ := dynamic.NestedField(current.Object, "spec", "replicas").(json.Number)
		if have.String() != fmt.Sprint(o.CurrentReplicas) {
			if have == "" {
				have = "0"
			}
			return cmdutil.Errorf("Expected replicas to be %d, was %s", o.CurrentReplicas, have)
		}
	}
	if o.ResourceVersion != "" && current.GetResourceVersion() != o.ResourceVersion {
		return cmdutil.Errorf("Expected resource version to be %s, was %s", o.ResourceVersion, current.GetResourceVersion())
	}
	if o.dryRun == cmdutil.DryRunClient {
		return nil
	}
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"replicas": o.Replicas}})
	if err != nil {
		return err
	}
	if _, err := c.Patch(ctx, info.Name, types.MergePatchType, patch, metav1.PatchOptions{DryRun: o.dryRun.Param()}, "scale"); err != nil {
		return err
	}
	if o.Timeout > 0 {
		return o.waitForReplicas(ctx, c, info)
	}
	return nil
}

// waitForReplicas waits until status.replicas reaches the target, by watching
// the object.
func (o *Options) waitForReplicas(ctx context.Context, c *dynamic.ResourceClient, info *resource.Info) error {
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	w, err := c.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + info.Name})
	if err != nil {
		return err
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("timed out waiting for %q to be synced", info.Name)
		case ev, ok := <-w.ResultChan():
			if !ok {
				return fmt.Errorf("timed out waiting for %q to be synced", info.Name)
			}
			obj, _ := ev.Object.(*dynamic.Unstructured)
			if obj == nil {
				continue
			}
			if n, _ := dynamic.NestedField(obj.Object, "status", "replicas").(json.Number); n.String() == fmt.Sprint(o.Replicas) {
				return nil
			}
		}
	}
}
