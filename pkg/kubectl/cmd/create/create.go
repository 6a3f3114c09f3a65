// Package create implements `kubectl create`: objects from manifests
// (-f), and the generators namespace, configmap and deployment.
package create

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/apply"
	"kubecore.io/kubecore/pkg/kubectl/cmd/edit"
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
	// Edit opens the manifests in the editor before creating them.
	Edit bool
	// Raw is a URI the manifest is posted to as it is.
	Raw string

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
				return errors.New("must specify one of -f and -k")
			}
			if err := o.Complete(); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			if o.Raw != "" {
				return o.raw(cmd.Context())
			}
			return o.Run(cmd.Context())
		},
	}
	o.addFlags(cmd)
	cmdutil.AddFilenameFlags(cmd.Flags(), &o.Files, "to use to create the resource")
	cmd.Flags().BoolVar(&o.Edit, "edit", false, "Edit the API resource before creating")
	cmd.Flags().StringVar(&o.Raw, "raw", "", "Raw URI to POST to the server.  Uses the transport specified by the kubeconfig file.")
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

// Validate checks what --raw and --edit allow.
func (o *Options) Validate() error {
	if o.Raw != "" {
		switch {
		case o.Edit:
			return errors.New("--raw and --edit are mutually exclusive")
		case len(o.Files.Filenames) != 1:
			return errors.New("--raw can only use a single local file or stdin")
		case strings.HasPrefix(o.Files.Filenames[0], "http://") || strings.HasPrefix(o.Files.Filenames[0], "https://"):
			return errors.New("--raw cannot read from a url")
		case o.Files.Recursive:
			return errors.New("--raw and --recursive are mutually exclusive")
		case o.PrintFlags.OutputFormat != "":
			return errors.New("--raw and --output are mutually exclusive")
		}
		return cmdutil.ValidateRawURI(o.Raw)
	}
	if o.Edit {
		switch o.PrintFlags.OutputFormat {
		case "", "yaml", "json":
		default:
			return fmt.Errorf("unable to match a printer suitable for the output format %q, allowed formats are: json,yaml", o.PrintFlags.OutputFormat)
		}
	}
	return nil
}

// raw posts the manifest as it is and prints what the server answers.
func (o *Options) raw(ctx context.Context) error {
	body, err := cmdutil.ReadRawBody(o.Files.Filenames[0], o.streams.In)
	if err != nil {
		return err
	}
	return cmdutil.RawRequest(ctx, o.factory, "POST", o.Raw, body, o.streams.Out)
}

// Run creates every object of the manifests, reporting each failure and
// going on with the others.
func (o *Options) Run(ctx context.Context) error {
	b, err := o.factory.NewBuilder(o.streams)
	if err != nil {
		return err
	}
	if o.Edit {
		return o.editThenCreate(ctx, b)
	}
	r, err := b.Filenames(o.Files).ContinueOnError().Do(ctx)
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
	return errors.Join(append(errs, r.ReadErr)...)
}

// editThenCreate opens the manifests in the editor and creates what is
// saved.
func (o *Options) editThenCreate(ctx context.Context, b *resource.Builder) error {
	r, err := b.Filenames(o.Files).Do(ctx)
	if err != nil {
		return err
	}
	objs := make([]*dynamic.Unstructured, 0, len(r.Infos))
	for _, info := range r.Infos {
		objs = append(objs, info.Object)
	}
	return edit.BeforeCreate(ctx, o.streams, objs, func(obj *dynamic.Unstructured) error {
		info, err := b.Resolve(ctx, obj, "edited file")
		if err != nil {
			return err
		}
		created, err := o.create(ctx, r.Client(info), info.Mapping, info.Object)
		if err != nil {
			return err
		}
		return o.print(created)
	})
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
