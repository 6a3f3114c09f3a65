// Package apply implements client-side `kubectl apply`: create what is
// missing, and patch what exists with the three-way merge of the last
// applied configuration, the manifest and the live object.
package apply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/client/dynamic"
	applypatch "kubecore.io/kubecore/pkg/kubectl/apply"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/printers"
	"kubecore.io/kubecore/pkg/kubectl/resource"
)

// Options are the flags of apply.
type Options struct {
	PrintFlags   *printers.PrintFlags
	Files        resource.FilenameOptions
	DryRunFlag   cmdutil.DryRunFlag
	ValidateFlag cmdutil.ValidateFlag
	ServerSide   bool
	// ForceConflicts takes over conflicting fields (--force-conflicts).
	ForceConflicts bool
	// FieldManager names the manager of the writes (--field-manager).
	FieldManager string
	Selector     string
	// Prune deletes what the manifests no longer hold (--prune), among the
	// objects matching Selector, or all of them with All.
	Prune          bool
	All            bool
	PruneAllowlist []string

	dryRun          cmdutil.DryRun
	fieldValidation string
	patcher         *applypatch.Patcher
	factory         *cmdutil.Factory
	streams         cmdutil.IOStreams
}

// NewCommand returns the apply command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &Options{PrintFlags: printers.NewPrintFlags(""), factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "apply (-f FILENAME | -k DIRECTORY)",
		Short: "Apply a configuration to a resource by file name or stdin",
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.ServerSide && !cmd.Flags().Changed("field-manager") {
				o.FieldManager = serverSideManager
			}
			if err := o.Complete(); err != nil {
				return err
			}
			if err := o.Validate(args); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.PrintFlags.AddFlags(cmd.Flags(), false)
	cmdutil.AddFilenameFlags(cmd.Flags(), &o.Files, "that contains the configuration to apply")
	cmdutil.AddDryRunFlag(cmd.Flags(), &o.DryRunFlag)
	cmdutil.AddValidateFlag(cmd.Flags(), &o.ValidateFlag)
	cmd.Flags().BoolVar(&o.ServerSide, "server-side", false, "If true, apply runs in the server instead of the client.")
	cmd.Flags().BoolVar(&o.ForceConflicts, "force-conflicts", false, "If true, server-side apply will force the changes against conflicts.")
	cmd.Flags().StringVar(&o.FieldManager, "field-manager", clientSideManager, "Name of the manager used to track field ownership.")
	cmd.Flags().BoolVar(&o.Prune, "prune", false, "Automatically delete resource objects, that do not appear in the configs and are created by either apply or create --save-config. Should be used with either -l or --all.")
	cmd.Flags().BoolVar(&o.All, "all", false, "Select all resources in the namespace of the specified resource types.")
	cmd.Flags().StringArrayVar(&o.PruneAllowlist, "prune-allowlist", nil, "Overwrite the default allowlist with <group/version/kind> for --prune")
	cmd.Flags().StringVarP(&o.Selector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.(e.g. -l key1=value1,key2=value2). Matching objects must satisfy all of the specified label constraints.")
	return cmd
}

// Complete parses the dry-run strategy and builds the patcher.
func (o *Options) Complete() error {
	d, err := o.DryRunFlag.Strategy()
	if err != nil {
		return err
	}
	o.dryRun = d
	if o.fieldValidation, err = o.ValidateFlag.FieldValidation(); err != nil {
		return err
	}
	scheme, err := applypatch.NewScheme()
	if err != nil {
		return err
	}
	o.patcher = applypatch.NewPatcher(scheme)
	return nil
}

// Validate checks the arguments.
func (o *Options) Validate(args []string) error {
	if len(args) > 0 {
		return cmdutil.UsageErrorf("kubectl apply", "Unexpected args: %v", args)
	}
	if len(o.Files.Filenames) == 0 {
		return fmt.Errorf("must specify one of -f and -k")
	}
	if o.Prune && o.Selector == "" && !o.All {
		return fmt.Errorf("all resources selected for prune without explicitly passing --all. To prune all resources, pass the --all flag. If you did not mean to prune all resources, specify a label selector")
	}
	if o.All && o.Selector != "" {
		return fmt.Errorf("cannot set --all and --selector at the same time")
	}
	if o.ForceConflicts && !o.ServerSide {
		return fmt.Errorf("--force-conflicts only works with --server-side")
	}
	if o.ServerSide && o.dryRun == cmdutil.DryRunClient {
		return fmt.Errorf("--dry-run=client doesn't work with --server-side (did you mean --dry-run=server instead?)")
	}
	_, err := o.printer("")
	return err
}

func (o *Options) printer(operation string) (printers.ResourcePrinter, error) {
	pf := *o.PrintFlags
	pf.Operation, pf.DryRunSuffix = operation, o.dryRun.Suffix()
	return pf.ToPrinter()
}

// Run applies every object of the manifests, reporting each failure and
// going on with the others.
func (o *Options) Run(ctx context.Context) error {
	b, err := o.factory.NewBuilder(o.streams)
	if err != nil {
		return err
	}
	r, err := b.Filenames(o.Files).ContinueOnError().Do(ctx)
	if err != nil {
		return err
	}
	var errs []error
	visited := map[applied]bool{}
	namespaces := map[string]bool{}
	for _, info := range r.Infos {
		if o.Selector != "" && !matchesSelector(info.Object, o.Selector) {
			continue
		}
		visited[applied{resource: info.Mapping.Resource, namespace: info.Namespace, name: info.Name}] = true
		if info.Namespace != "" {
			namespaces[info.Namespace] = true
		}
		applyOne := o.applyOne
		if o.ServerSide {
			applyOne = o.serverSideApply
		}
		obj, op, err := applyOne(ctx, r.Client(info), info)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if obj.GetKind() == "" {
			obj.SetGroupVersionKind(info.Mapping.Kind)
		}
		p, err := o.printer(op)
		if err != nil {
			return err
		}
		if err := p.PrintObj(obj, o.streams.Out); err != nil {
			return err
		}
	}
	if o.Prune && len(errs) == 0 && r.ReadErr == nil {
		if err := o.prune(ctx, visited, namespaces); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(append(errs, r.ReadErr)...)
}

// applyOne creates or patches one object and says which it did.
func (o *Options) applyOne(ctx context.Context, c *dynamic.ResourceClient, info *resource.Info) (*dynamic.Unstructured, string, error) {
	annotated, modified, err := applypatch.ModifiedConfiguration(info.Object)
	if err != nil {
		return nil, "", err
	}
	current, err := c.Get(ctx, info.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		if o.dryRun == cmdutil.DryRunClient {
			return annotated, "created", nil
		}
		created, err := c.Create(ctx, annotated, metav1.CreateOptions{DryRun: o.dryRun.Param(), FieldManager: o.FieldManager, FieldValidation: o.fieldValidation})
		if err != nil {
			return nil, "", cmdutil.AddSourceToErr("creating", info.Source, err)
		}
		return created, "created", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("error when retrieving current configuration of:\nResource: %q, GroupVersionKind: %q\nName: %q, Namespace: %q\nfrom server for: %q: %w",
			info.Mapping.Resource.String(), info.Mapping.Kind.String(), info.Name, info.Namespace, info.Source, err)
	}
	if o.dryRun == cmdutil.DryRunClient {
		return annotated, "configured", nil
	}
	original := []byte(current.GetAnnotations()[applypatch.LastAppliedAnnotation])
	if len(original) == 0 {
		fmt.Fprintf(o.streams.ErrOut, "Warning: resource %s/%s is missing the %s annotation which is required by kubectl apply. kubectl apply should only be used on resources created declaratively by either kubectl create --save-config or kubectl apply. The missing annotation will be patched automatically.\n",
			info.Mapping.Resource.Resource, info.Name, applypatch.LastAppliedAnnotation)
	}
	currentJSON, err := json.Marshal(current.Object)
	if err != nil {
		return nil, "", fmt.Errorf("encode the live %s %s: %w", info.Mapping.Kind.Kind, info.Name, err)
	}
	patch, pt, err := o.patcher.Patch(info.Mapping.Kind, original, modified, currentJSON)
	if err != nil {
		return nil, "", cmdutil.AddSourceToErr("patching", info.Source, err)
	}
	if string(patch) == "{}" {
		return current, "unchanged", nil
	}
	patched, err := c.Patch(ctx, info.Name, pt, patch, metav1.PatchOptions{DryRun: o.dryRun.Param(), FieldManager: o.FieldManager, FieldValidation: o.fieldValidation})
	if err != nil {
		return nil, "", cmdutil.AddSourceToErr("patching", info.Source, err)
	}
	return patched, "configured", nil
}

// matchesSelector reports whether the manifest's labels match selector.
func matchesSelector(obj *dynamic.Unstructured, selector string) bool {
	sel, err := labels.Parse(selector)
	if err != nil {
		return false
	}
	return sel.Matches(labels.Set(obj.GetLabels()))
}
