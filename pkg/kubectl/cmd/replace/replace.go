// Package replace implements `kubectl replace`: put each manifest in
// place of the live object, or delete and recreate it with --force.
package replace

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/printers"
	"kubecore.io/kubecore/pkg/kubectl/resource"
)

// Options are the flags of replace.
type Options struct {
	PrintFlags   *printers.PrintFlags
	Files        resource.FilenameOptions
	Force        bool
	DryRunFlag   cmdutil.DryRunFlag
	ValidateFlag cmdutil.ValidateFlag

	dryRun          cmdutil.DryRun
	fieldValidation string
	factory         *cmdutil.Factory
	streams         cmdutil.IOStreams
}

// NewCommand returns the replace command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &Options{PrintFlags: printers.NewPrintFlags("replaced"), factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "replace -f FILENAME",
		Short: "Replace a resource by file name or stdin",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	fs := cmd.Flags()
	o.PrintFlags.AddFlags(fs, false)
	cmdutil.AddFilenameFlags(fs, &o.Files, "to use to replace the resource.")
	fs.BoolVar(&o.Force, "force", false, "If true, immediately remove resources from API and bypass graceful deletion. Note that immediate deletion of some resources may result in inconsistency or data loss and requires confirmation.")
	cmdutil.AddDryRunFlag(fs, &o.DryRunFlag)
	cmdutil.AddValidateFlag(fs, &o.ValidateFlag)
	return cmd
}

// Complete checks the flags.
func (o *Options) Complete(args []string) error {
	if len(args) > 0 {
		return cmdutil.UsageErrorf("kubectl replace", "Unexpected args: %v", args)
	}
	if len(o.Files.Filenames) == 0 {
		return cmdutil.UsageErrorf("kubectl replace", "must specify --filename to replace")
	}
	d, err := o.DryRunFlag.Strategy()
	if err != nil {
		return err
	}
	o.dryRun = d
	o.PrintFlags.DryRunSuffix = d.Suffix()
	if o.fieldValidation, err = o.ValidateFlag.FieldValidation(); err != nil {
		return err
	}
	_, err = o.PrintFlags.ToPrinter()
	return err
}

// Run replaces each object.
func (o *Options) Run(ctx context.Context) error {
	b, err := o.factory.NewBuilder(o.streams)
	if err != nil {
		return err
	}
	r, err := b.Filenames(o.Files).ContinueOnError().Do(ctx)
	if err != nil {
		return err
	}
	p, err := o.PrintFlags.ToPrinter()
	if err != nil {
		return err
	}
	var errs []error
	for _, info := range r.Infos {
		c := r.Client(info)
		obj := info.Object
		if o.dryRun != cmdutil.DryRunClient {
			if o.Force {
				if err := o.deleteFirst(ctx, r, info); err != nil {
					errs = append(errs, err)
					continue
				}
				obj.SetResourceVersion("")
				obj, err = c.Create(ctx, obj, metav1.CreateOptions{DryRun: o.dryRun.Param(), FieldValidation: o.fieldValidation})
			} else {
				obj, err = c.Update(ctx, obj, metav1.UpdateOptions{DryRun: o.dryRun.Param(), FieldValidation: o.fieldValidation})
			}
			if err != nil {
				errs = append(errs, cmdutil.AddSourceToErr("replacing", info.Source, err))
				continue
			}
		}
		if obj.GetKind() == "" {
			obj.SetGroupVersionKind(info.Mapping.Kind)
		}
		if err := p.PrintObj(obj, o.streams.Out); err != nil {
			return err
		}
	}
	return errors.Join(append(errs, r.ReadErr)...)
}

// deleteFirst deletes the live object and waits until it is gone.
func (o *Options) deleteFirst(ctx context.Context, r *resource.Result, info *resource.Info) error {
	c := r.Client(info)
	grace := int64(1)
	gone, err := c.Delete(ctx, info.Name, metav1.DeleteOptions{GracePeriodSeconds: &grace, DryRun: o.dryRun.Param()})
	if err := resource.IgnoreNotFound(err); err != nil {
		return err
	}
	if err == nil {
		fmt.Fprintf(o.streams.Out, "%s %q deleted\n", info.Mapping.KindName(), info.Name)
	}
	uid := ""
	if gone != nil {
		uid = gone.GetUID()
	}
	if o.dryRun == cmdutil.DryRunServer {
		return nil
	}
	return resource.WaitForDeletion(ctx, c, info.Name, uid)
}
