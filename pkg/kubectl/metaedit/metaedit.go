// Package metaedit is what `kubectl label` and `kubectl annotate` share:
// KEY=VALUE and KEY- arguments, the change of one metadata map, and the
// command that fetches, patches and reports each object.
package metaedit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/util/validation"
	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/printers"
	"kubecore.io/kubecore/pkg/kubectl/resource"
)

// Kind says what is edited: labels or annotations.
type Kind struct {
	// Field is the metadata field: "labels" or "annotations".
	Field string
	// Noun is "label" or "annotation", for messages.
	Noun string
	// Verb is the command: "label" or "annotate".
	Verb string
	// Done, NotDone and Removed are the outcomes printed: "labeled", "not
	// labeled", "unlabeled". Annotations always report Done.
	Done, NotDone, Removed string
	// ValidValue checks a value (labels have a syntax; annotations none).
	ValidValue func(string) []string
}

// overwriteError says a key already holds another value.
func (k Kind) overwriteError(key, old string) error {
	if k.Field == "annotations" {
		return fmt.Errorf("--overwrite is false but found the following declared annotation(s): '%s' already has a value (%s)", key, old)
	}
	return fmt.Errorf("'%s' already has a value (%s), and --overwrite is false", key, old)
}

// Labels edits metadata.labels.
func Labels() Kind {
	return Kind{
		Field: "labels", Noun: "label", Verb: "label",
		Done: "labeled", NotDone: "not labeled", Removed: "unlabeled",
		ValidValue: validation.IsValidLabelValue,
	}
}

// Annotations edits metadata.annotations.
func Annotations() Kind {
	return Kind{
		Field: "annotations", Noun: "annotation", Verb: "annotate",
		Done: "annotated", NotDone: "annotated", Removed: "annotated",
	}
}

// Change is what the arguments ask: keys to set and keys to remove.
type Change struct {
	Set    map[string]string
	Remove []string
}

// ParseArgs splits KEY=VALUE and KEY- arguments.
func (k Kind) ParseArgs(args []string) (Change, error) {
	c := Change{Set: map[string]string{}}
	for _, a := range args {
		switch {
		case strings.Contains(a, "="):
			key, value, _ := strings.Cut(a, "=")
			if errs := validation.IsQualifiedName(key); len(errs) > 0 {
				return c, fmt.Errorf("invalid %s spec: %v, %s", k.Noun, a, strings.Join(errs, "; "))
			}
			if k.ValidValue != nil {
				if errs := k.ValidValue(value); len(errs) > 0 {
					return c, fmt.Errorf("invalid %s value: %q: %s", k.Noun, a, strings.Join(errs, "; "))
				}
			}
			c.Set[key] = value
		case strings.HasSuffix(a, "-"):
			c.Remove = append(c.Remove, strings.TrimSuffix(a, "-"))
		default:
			return c, fmt.Errorf("invalid %s format: %s", k.Noun, a)
		}
	}
	for _, r := range c.Remove {
		if _, both := c.Set[r]; both {
			return c, fmt.Errorf("can not both modify and remove the following %s(s) in the same command: %s", k.Noun, r)
		}
	}
	return c, nil
}

// Options are the flags of label and annotate.
type Options struct {
	Kind            Kind
	PrintFlags      *printers.PrintFlags
	Files           resource.FilenameOptions
	LabelSelector   string
	FieldSelector   string
	All             bool
	AllNamespaces   bool
	Overwrite       bool
	List            bool
	ResourceVersion string
	DryRunFlag      cmdutil.DryRunFlag

	resourceArgs []string
	change       Change
	dryRun       cmdutil.DryRun
	factory      *cmdutil.Factory
	streams      cmdutil.IOStreams
}

// NewCommand returns the label or annotate command.
func NewCommand(kind Kind, use, short string, f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &Options{Kind: kind, PrintFlags: printers.NewPrintFlags(kind.Done), factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	fs := cmd.Flags()
	o.PrintFlags.AddFlags(fs, false)
	cmdutil.AddFilenameFlags(fs, &o.Files, "identifying the resource to update the "+kind.Noun)
	cmdutil.AddSelectorFlags(fs, &o.LabelSelector, &o.FieldSelector)
	fs.BoolVar(&o.All, "all", false, "Select all resources, in the namespace of the specified resource types")
	fs.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "If true, check the specified action in all namespaces.")
	fs.BoolVar(&o.Overwrite, "overwrite", false, fmt.Sprintf("If true, allow %ss to be overwritten, otherwise reject %s updates that overwrite existing %ss.", kind.Noun, kind.Noun, kind.Noun))
	fs.BoolVar(&o.List, "list", false, fmt.Sprintf("If true, display the %ss for a given resource.", kind.Noun))
	fs.StringVar(&o.ResourceVersion, "resource-version", "", fmt.Sprintf("If non-empty, the %s update will only succeed if this is the current resource-version for the object. Only valid when specifying a single resource.", kind.Noun))
	cmdutil.AddDryRunFlag(fs, &o.DryRunFlag)
	return cmd
}

// Complete splits resource arguments from KEY=VALUE and KEY- ones.
func (o *Options) Complete(args []string) error {
	d, err := o.DryRunFlag.Strategy()
	if err != nil {
		return err
	}
	o.dryRun = d
	o.PrintFlags.DryRunSuffix = d.Suffix()
	var changes []string
	for i, a := range args {
		if strings.Contains(a, "=") || (strings.HasSuffix(a, "-") && i > 0) {
			changes = append(changes, a)
			continue
		}
		o.resourceArgs = append(o.resourceArgs, a)
	}
	if len(o.resourceArgs) == 0 && len(o.Files.Filenames) == 0 {
		return cmdutil.UsageErrorf("kubectl "+o.Kind.Verb, "one or more resources must be specified as <resource> <name> or <resource>/<name>")
	}
	if len(changes) == 0 && !o.List {
		return fmt.Errorf("at least one %s update is required", o.Kind.Noun)
	}
	if o.change, err = o.Kind.ParseArgs(changes); err != nil {
		return err
	}
	_, err = o.PrintFlags.ToPrinter()
	return err
}

// Run changes each object.
func (o *Options) Run(ctx context.Context) error {
	b, err := o.factory.NewBuilder(o.streams)
	if err != nil {
		return err
	}
	r, err := b.Filenames(o.Files).Args(o.resourceArgs...).
		LabelSelector(o.LabelSelector).FieldSelector(o.FieldSelector).
		AllNamespaces(o.AllNamespaces).SelectAll(o.All).RequireNames().Do(ctx)
	if err != nil {
		return err
	}
	infos, fetchErr := r.Fetch(ctx)
	if len(infos) > 1 && o.ResourceVersion != "" {
		return fmt.Errorf("--resource-version may only be used with a single resource")
	}
	var errs []error
	if fetchErr != nil {
		errs = append(errs, fetchErr)
	}
	for _, info := range infos {
		if o.List {
			current := currentMap(info.Object, o.Kind.Field)
			for _, k := range slices.Sorted(maps.Keys(current)) {
				fmt.Fprintf(o.streams.Out, "%s=%s\n", k, current[k])
			}
			continue
		}
		out, msg, err := o.edit(ctx, r.Client(info), info)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		pf := *o.PrintFlags
		pf.Operation = msg
		mp, err := pf.ToPrinter()
		if err != nil {
			return err
		}
		if err := mp.PrintObj(out, o.streams.Out); err != nil {
			return err
		}
	}
	return errors.Join(errs...)
}

func currentMap(obj *dynamic.Unstructured, field string) map[string]string {
	if field == "labels" {
		return obj.GetLabels()
	}
	return obj.GetAnnotations()
}

// edit applies the change to one object and reports the outcome.
func (o *Options) edit(ctx context.Context, c *dynamic.ResourceClient, info *resource.Info) (*dynamic.Unstructured, string, error) {
	obj := info.Object
	current := currentMap(obj, o.Kind.Field)
	if !o.Overwrite {
		for _, k := range slices.Sorted(maps.Keys(o.change.Set)) {
			if old, ok := current[k]; ok && old != o.change.Set[k] {
				return nil, "", o.Kind.overwriteError(k, old)
			}
		}
	}
	next := maps.Clone(current)
	if next == nil {
		next = map[string]string{}
	}
	patchMap := map[string]any{}
	for _, k := range o.change.Remove {
		if _, ok := next[k]; !ok {
			fmt.Fprintf(o.streams.Out, "%s %q not found.\n", o.Kind.Noun, k)
			continue
		}
		delete(next, k)
		patchMap[k] = nil
	}
	for k, v := range o.change.Set {
		if current[k] != v || !hasKey(current, k) {
			patchMap[k] = v
		}
		next[k] = v
	}
	msg := o.Kind.NotDone
	if !reflect.DeepEqual(current, next) && !(len(current) == 0 && len(next) == 0) {
		msg = o.Kind.Done
		if !o.Overwrite && len(next) < len(current) {
			msg = o.Kind.Removed
		}
	}
	updated := obj.DeepCopy()
	if o.Kind.Field == "labels" {
		updated.SetLabels(next)
	} else {
		updated.SetAnnotations(next)
	}
	if o.dryRun == cmdutil.DryRunClient {
		return updated, msg, nil
	}
	meta := map[string]any{o.Kind.Field: patchMap}
	if o.ResourceVersion != "" {
		meta["resourceVersion"] = o.ResourceVersion
	}
	patch, err := json.Marshal(map[string]any{"metadata": meta})
	if err != nil {
		return nil, "", fmt.Errorf("encode %s patch: %w", o.Kind.Noun, err)
	}
	out, err := c.Patch(ctx, info.Name, types.MergePatchType, patch, metav1.PatchOptions{DryRun: o.dryRun.Param()})
	if err != nil {
		return nil, "", err
	}
	if out.GetKind() == "" {
		out.SetGroupVersionKind(info.Mapping.Kind)
	}
	return out, msg, nil
}

func hasKey(m map[string]string, k string) bool {
	_, ok := m[k]
	return ok
}
