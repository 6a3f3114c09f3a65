// Package patch implements `kubectl patch`: a strategic merge, JSON merge
// or JSON patch sent to each object.
package patch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/printers"
	"kubecore.io/kubecore/pkg/kubectl/resource"
)

// Options are the flags of patch.
type Options struct {
	PrintFlags  *printers.PrintFlags
	Files       resource.FilenameOptions
	Patch       string
	PatchFile   string
	PatchType   string
	Subresource string
	DryRunFlag  cmdutil.DryRunFlag

	args      []string
	patch     []byte
	patchType types.PatchType
	dryRun    cmdutil.DryRun
	factory   *cmdutil.Factory
	streams   cmdutil.IOStreams
}

// NewCommand returns the patch command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &Options{PrintFlags: printers.NewPrintFlags("patched"), factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "patch (-f FILENAME | TYPE NAME) [-p PATCH|--patch-file FILE]",
		Short: "Update fields of a resource",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	fs := cmd.Flags()
	o.PrintFlags.AddFlags(fs, false)
	cmdutil.AddFilenameFlags(fs, &o.Files, "identifying the resource to update")
	fs.StringVarP(&o.Patch, "patch", "p", "", "The patch to be applied to the resource JSON file.")
	fs.StringVar(&o.PatchFile, "patch-file", "", "A file containing a patch to be applied to the resource.")
	fs.StringVar(&o.PatchType, "type", "strategic", "The type of patch being provided; one of [json merge strategic]")
	fs.StringVar(&o.Subresource, "subresource", "", "If specified, patch will operate on the subresource of the requested object.")
	cmdutil.AddDryRunFlag(fs, &o.DryRunFlag)
	return cmd
}

// Complete reads the patch.
func (o *Options) Complete(args []string) error {
	o.args = args
	d, err := o.DryRunFlag.Strategy()
	if err != nil {
		return err
	}
	o.dryRun = d
	o.PrintFlags.DryRunSuffix = d.Suffix()
	switch o.PatchType {
	case "strategic":
		o.patchType = types.StrategicMergePatchType
	case "merge":
		o.patchType = types.MergePatchType
	case "json":
		o.patchType = types.JSONPatchType
	default:
		return fmt.Errorf("--type must be one of [json merge strategic], not %q", o.PatchType)
	}
	raw := []byte(o.Patch)
	switch {
	case o.Patch != "" && o.PatchFile != "":
		return fmt.Errorf("--patch and --patch-file are mutually exclusive")
	case o.PatchFile != "":
		if raw, err = os.ReadFile(o.PatchFile); err != nil {
			return fmt.Errorf("unable to read patch file: %w", err)
		}
	case o.Patch == "":
		return fmt.Errorf("must specify --patch or --patch-file containing the contents of the patch")
	}
	if o.patch, err = yaml.YAMLToJSON(raw); err != nil {
		return fmt.Errorf("unable to parse %q: %w", string(raw), err)
	}
	if len(o.args) == 0 && len(o.Files.Filenames) == 0 {
		return cmdutil.UsageErrorf("kubectl patch", "You must provide one or more resources by argument or filename.")
	}
	_, err = o.PrintFlags.ToPrinter()
	return err
}

// Run patches each object and says whether it changed.
func (o *Options) Run(ctx context.Context) error {
	b, err := o.factory.NewBuilder(o.streams)
	if err != nil {
		return err
	}
	r, err := b.Filenames(o.Files).Args(o.args...).RequireNames().Do(ctx)
	if err != nil {
		return err
	}
	infos, err := r.Fetch(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, info := range infos {
		if o.dryRun == cmdutil.DryRunClient {
			errs = append(errs, fmt.Errorf("client-side dry run is not supported by patch; use --dry-run=server"))
			continue
		}
		var subresources []string
		if o.Subresource != "" {
			subresources = []string{o.Subresource}
		}
		patched, err := r.Client(info).Patch(ctx, info.Name, o.patchType, o.patch, metav1.PatchOptions{DryRun: o.dryRun.Param()}, subresources...)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if patched.GetKind() == "" {
			patched.SetGroupVersionKind(info.Mapping.Kind)
		}
		pf := *o.PrintFlags
		if sameObject(info.Object.Object, patched.Object) {
			pf.Operation = "patched (no change)"
		}
		p, err := pf.ToPrinter()
		if err != nil {
			return err
		}
		if err := p.PrintObj(patched, o.streams.Out); err != nil {
			return err
		}
	}
	return errors.Join(errs...)
}

// sameObject compares two objects as JSON.
func sameObject(a, b map[string]any) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if errA != nil || errB != nil {
		return false
	}
	var va, vb any
	_ = json.Unmarshal(ja, &va)
	_ = json.Unmarshal(jb, &vb)
	return reflect.DeepEqual(va, vb)
}
