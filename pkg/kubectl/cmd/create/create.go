// Package create implements `kubectl create`: objects from manifests
// (-f), and the generators namespace, configmap and deployment.
package create

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/apply"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/printers"
	"kubecore.io/kubecore/pkg/kubectl/resource"
	"kubecore.io/kubecore/pkg/kubectl/restmapper"
)

// Options are the flags of create -f.
type Options struct {
	PrintFlags   *printers.PrintFlags
	Files        resource.FilenameOptions
	DryRunFlag   cmdutil.DryRunFlag
	ValidateFlag cmdutil.ValidateFlag
	SaveConfig   bool

	dryRun          cmdutil.DryRun
	fieldValidation string
	factory         *cmdutil.Factory
	streams         cmdutil.IOStreams
}

// NewCommand returns create and its generators.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &Options{PrintFlags: printers.NewPrintFlags("created"), factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "create -f FILENAME",
		Short: "Create a resource from a file or from stdin",
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(o.Files.Filenames) == 0 {
				if len(args) > 0 {
					return cmdutil.UsageErrorf("kubectl create", "Unexpected args: %v", args)
				}
				return cmdutil.UsageErrorf("kubectl create", "must specify one of -f and -k")
			}
			if err := o.Complete(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.addFlags(cmd)
	cmdutil.AddFilenameFlags(cmd.Flags(), &o.Files, "to use to create the resource")
	cmd.Flags().BoolVar(&o.SaveConfig, "save-config", false, "If true, the configuration of current object will be saved in its annotation. Otherwise, the annotation will be unchanged. This flag is useful when you want to perform kubectl apply on this object in the future.")
	for _, sub := range []*cobra.Command{
		newNamespaceCommand(f, streams),
		newConfigMapCommand(f, streams),
		newDeploymentCommand(f, streams),
		newSecretCommand(f, streams),
		newServiceCommand(f, streams),
	} {
		cmd.AddCommand(sub)
	}
	return cmd
}

func (o *Options) addFlags(cmd *cobra.Command) {
	o.PrintFlags.AddFlags(cmd.Flags(), false)
	cmdutil.AddDryRunFlag(cmd.Flags(), &o.DryRunFlag)
	cmdutil.AddValidateFlag(cmd.Flags(), &o.ValidateFlag)
}

// Complete parses the dry-run strategy.
func (o *Options) Complete() error {
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

// Run creates every object of the manifests, reporting each failure and
// going on with the others.
func (o *Options) Run(ctx context.Context) error {
	b, err := o.factory.NewBuilder(o.streams)
	if err != nil {
		return err
	}
	r, err := b.Filenames(o.Files).Do(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, info := range r.Infos {
		obj := info.Object
		if o.SaveConfig {
			if obj, _, err = apply.ModifiedConfiguration(obj); err != nil {
				return err
			}
		}
		created, err := o.create(ctx, r.Client(info), info.Mapping, obj)
		if err != nil {
			errs = append(errs, cmdutil.AddSourceToErr("creating", info.Source, err))
			continue
		}
		if err := o.print(created); err != nil {
			return err
		}
	}
	return errors.Join(errs...)
}

// create sends obj unless the dry run is the client's.
func (o *Options) create(ctx context.Context, c *dynamic.ResourceClient, m *restmapper.Mapping, obj *dynamic.Unstructured) (*dynamic.Unstructured, error) {
	if o.dryRun == cmdutil.DryRunClient {
		return obj, nil
	}
	out, err := c.Create(ctx, obj, metav1.CreateOptions{DryRun: o.dryRun.Param(), FieldValidation: o.fieldValidation})
	if err != nil {
		return nil, err
	}
	if out.GetKind() == "" {
		out.SetGroupVersionKind(m.Kind)
	}
	return out, nil
}

func (o *Options) print(obj *dynamic.Unstructured) error {
	p, err := o.PrintFlags.ToPrinter()
	if err != nil {
		return err
	}
	return p.PrintObj(obj, o.streams.Out)
}
