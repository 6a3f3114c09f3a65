// Package delete implements `kubectl delete`: by names, manifests,
// selectors or --all, with the grace period and cascade chosen, waiting
// until the objects are gone.
package delete

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/resource"
)

// Options are the flags of delete.
type Options struct {
	Files          resource.FilenameOptions
	LabelSelector  string
	FieldSelector  string
	All            bool
	AllNamespaces  bool
	GracePeriod    int
	Now            bool
	Force          bool
	Cascade        string
	Wait           bool
	Timeout        time.Duration
	IgnoreNotFound bool
	Output         string
	DryRunFlag     cmdutil.DryRunFlag

	args        []string
	dryRun      cmdutil.DryRun
	propagation metav1.DeletionPropagation
	factory     *cmdutil.Factory
	streams     cmdutil.IOStreams
}

// NewCommand returns the delete command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &Options{factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "delete ([-f FILENAME] | [-k DIRECTORY] | TYPE [(NAME | -l label | --all)])",
		Short: "Delete resources by file names, stdin, resources and names, or by resources and label selector",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(cmd, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	fs := cmd.Flags()
	cmdutil.AddFilenameFlags(fs, &o.Files, "containing the resource to delete.")
	cmdutil.AddSelectorFlags(fs, &o.LabelSelector, &o.FieldSelector)
	fs.BoolVar(&o.All, "all", false, "Delete all resources, in the namespace of the specified resource types.")
	fs.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "If present, list the requested object(s) across all namespaces. Namespace in current context is ignored even if specified with --namespace.")
	fs.IntVar(&o.GracePeriod, "grace-period", -1, "Period of time in seconds given to the resource to terminate gracefully. Ignored if negative. Set to 1 for immediate shutdown. Can only be set to 0 when --force is true (force deletion).")
	fs.BoolVar(&o.Now, "now", false, "If true, resources are signaled for immediate shutdown (same as --grace-period=1).")
	fs.BoolVar(&o.Force, "force", false, "If true, immediately remove resources from API and bypass graceful deletion. Note that immediate deletion of some resources may result in inconsistency or data loss and requires confirmation.")
	fs.StringVar(&o.Cascade, "cascade", "background", `Must be "background", "orphan", or "foreground". Selects the deletion cascading strategy for the dependents (e.g. Pods created by a ReplicationController). Defaults to background.`)
	fs.Lookup("cascade").NoOptDefVal = "background"
	fs.BoolVar(&o.Wait, "wait", true, "If true, wait for resources to be gone before returning. This waits for finalizers.")
	fs.DurationVar(&o.Timeout, "timeout", 0, "The length of time to wait before giving up on a delete, zero means determine a timeout from the size of the object")
	fs.BoolVar(&o.IgnoreNotFound, "ignore-not-found", false, "Treat \"resource not found\" as a successful delete. Defaults to \"true\" when --all is specified.")
	fs.StringVarP(&o.Output, "output", "o", "", "Output mode. Use \"-o name\" for shorter output (resource/name).")
	cmdutil.AddDryRunFlag(fs, &o.DryRunFlag)
	return cmd
}

// Complete resolves the flags into a deletion.
func (o *Options) Complete(cmd *cobra.Command, args []string) error {
	o.args = args
	d, err := o.DryRunFlag.Strategy()
	if err != nil {
		return err
	}
	o.dryRun = d
	switch o.Cascade {
	case "background", "true":
		o.propagation = metav1.DeletePropagationBackground
	case "orphan", "false":
		o.propagation = metav1.DeletePropagationOrphan
	case "foreground":
		o.propagation = metav1.DeletePropagationForeground
	default:
		return fmt.Errorf(`invalid cascade value (%v). Must be "background", "foreground", or "orphan"`, o.Cascade)
	}
	if o.Now {
		if o.GracePeriod != -1 {
			return fmt.Errorf("--now and --grace-period cannot be specified together")
		}
		o.GracePeriod = 1
	}
	if o.GracePeriod == 0 && !o.Force {
		// A zero grace period means "immediately" only with --force.
		o.GracePeriod = 1
	}
	if o.Force && o.GracePeriod < 0 {
		o.GracePeriod = 0
	}
	if o.All || o.LabelSelector != "" || o.FieldSelector != "" {
		if !cmd.Flags().Changed("ignore-not-found") {
			o.IgnoreNotFound = true
		}
	}
	return nil
}

// Validate checks the combination of flags.
func (o *Options) Validate() error {
	if o.Output != "" && o.Output != "name" {
		return fmt.Errorf(`unexpected -o output mode: %v. We only support '-o name'`, o.Output)
	}
	if o.All && o.LabelSelector != "" {
		return fmt.Errorf("cannot set --all and --selector at the same time")
	}
	if o.All && o.FieldSelector != "" {
		return fmt.Errorf("cannot set --all and --field-selector at the same time")
	}
	if len(o.args) == 0 && len(o.Files.Filenames) == 0 {
		return resource.ErrNoResources
	}
	return nil
}

// Run deletes, then waits.
func (o *Options) Run(ctx context.Context) error {
	b, err := o.factory.NewBuilder(o.streams)
	if err != nil {
		return err
	}
	r, err := b.Filenames(o.Files).Args(o.args...).
		LabelSelector(o.LabelSelector).FieldSelector(o.FieldSelector).
		AllNamespaces(o.AllNamespaces).SelectAll(o.All).RequireNames().ContinueOnError().Do(ctx)
	if err != nil {
		return err
	}
	targets := r.Infos
	var errs []error
	if !r.Named {
		found, err := r.Fetch(ctx)
		if err != nil {
			errs = append(errs, err)
		}
		targets = found
	}
	if o.Force {
		fmt.Fprintln(o.streams.ErrOut, "Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.")
	}
	opts := metav1.DeleteOptions{PropagationPolicy: &o.propagation, DryRun: o.dryRun.Param()}
	if o.GracePeriod >= 0 {
		grace := int64(o.GracePeriod)
		opts.GracePeriodSeconds = &grace
	}
	type pending struct {
		info *resource.Info
		uid  string
	}
	var deleted []pending
	for _, info := range targets {
		if o.dryRun != cmdutil.DryRunClient {
			obj, err := r.Client(info).Delete(ctx, info.Name, opts)
			if err != nil {
				if o.IgnoreNotFound && resource.IgnoreNotFound(err) == nil {
					continue
				}
				errs = append(errs, err)
				continue
			}
			uid := ""
			if obj != nil {
				uid = obj.GetUID()
			} else if info.Object != nil {
				uid = info.Object.GetUID()
			}
			deleted = append(deleted, pending{info: info, uid: uid})
		}
		if o.Output == "name" {
			fmt.Fprintln(o.streams.Out, info.ObjectName())
		} else {
			verb := "deleted"
			if o.Force && o.GracePeriod == 0 {
				verb = "force deleted"
			}
			fmt.Fprintf(o.streams.Out, "%s %q %s%s\n", info.Mapping.KindName(), info.Name, verb, o.dryRun.Suffix())
		}
	}
	if len(targets) == 0 && len(errs) == 0 && !r.Named {
		fmt.Fprintln(o.streams.Out, "No resources found")
	}
	if o.Wait && o.dryRun == cmdutil.DryRunNone && len(deleted) > 0 {
		timeout := o.Timeout
		if timeout == 0 {
			timeout = 7 * 24 * time.Hour
		}
		waitCtx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		for _, d := range deleted {
			if err := resource.WaitForDeletion(waitCtx, r.Client(d.info), d.info.Name, d.uid); err != nil {
				errs = append(errs, fmt.Errorf("wait for %s to be deleted: %w", d.info.ObjectName(), err))
			}
		}
	}
	return errors.Join(append(errs, r.ReadErr)...)
}
