// Package generate is what kubectl's generator verbs share — create
// namespace|configmap|secret|deployment|service, run, expose: the output
// and dry-run flags, and the creation of the one object they build.
package generate

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/apply"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/printers"
)

// Creator creates the object a generator built and prints it.
type Creator struct {
	PrintFlags   *printers.PrintFlags
	DryRunFlag   cmdutil.DryRunFlag
	ValidateFlag cmdutil.ValidateFlag
	SaveConfig   bool
	// WrapErrors reports failures as "failed to create <kind>: ..." rather
	// than as the server's error, as most of kubectl's generators do.
	WrapErrors bool

	Factory *cmdutil.Factory
	Streams cmdutil.IOStreams
}

// NewCreator returns a Creator printing "<kind>/<name> <operation>".
func NewCreator(f *cmdutil.Factory, streams cmdutil.IOStreams, operation string) *Creator {
	return &Creator{PrintFlags: printers.NewPrintFlags(operation), WrapErrors: true, Factory: f, Streams: streams}
}

// AddFlags registers -o, --dry-run, --validate and --save-config.
func (c *Creator) AddFlags(cmd *cobra.Command) {
	c.PrintFlags.AddFlags(cmd.Flags(), false)
	cmdutil.AddDryRunFlag(cmd.Flags(), &c.DryRunFlag)
	cmdutil.AddValidateFlag(cmd.Flags(), &c.ValidateFlag)
	cmd.Flags().BoolVar(&c.SaveConfig, "save-config", false, "If true, the configuration of current object will be saved in its annotation. Otherwise, the annotation will be unchanged. This flag is useful when you want to perform kubectl apply on this object in the future.")
}

// NewObject starts an object of a kind, as kubectl's typed generators
// serialize it (creationTimestamp: null).
func NewObject(apiVersion, kind, name string) *dynamic.Unstructured {
	return &dynamic.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion,
		"kind":       kind,
		"metadata":   map[string]any{"name": name, "creationTimestamp": nil},
	}}
}

// NameArg checks the one NAME argument of a generator.
func NameArg(path string, args []string) (string, error) {
	switch len(args) {
	case 0:
		return "", cmdutil.UsageErrorf(path, "NAME is required")
	case 1:
		return args[0], nil
	}
	return "", cmdutil.UsageErrorf(path, "exactly one NAME is required, got %d", len(args))
}

// Create sends obj, a resourceArg ("deployments.apps"), to the namespace of
// the flags, and prints the result. The object names its namespace only
// when -n did, as kubectl's do.
func (c *Creator) Create(ctx context.Context, resourceArg string, obj *dynamic.Unstructured) error {
	dryRun, err := c.DryRunFlag.Strategy()
	if err != nil {
		return err
	}
	validation, err := c.ValidateFlag.FieldValidation()
	if err != nil {
		return err
	}
	pf := *c.PrintFlags
	pf.DryRunSuffix = dryRun.Suffix()
	p, err := pf.ToPrinter()
	if err != nil {
		return err
	}
	mapper, err := c.Factory.Mapper()
	if err != nil {
		return err
	}
	m, err := mapper.ResourceFor(ctx, resourceArg)
	if err != nil {
		return err
	}
	ns := ""
	if m.Namespaced {
		explicit := false
		if ns, explicit, err = c.Factory.Namespace(); err != nil {
			return err
		}
		if explicit {
			obj.SetNamespace(ns)
		}
	}
	if c.SaveConfig {
		if obj, _, err = apply.ModifiedConfiguration(obj); err != nil {
			return err
		}
	}
	out := obj
	if dryRun != cmdutil.DryRunClient {
		dyn, err := c.Factory.Dynamic()
		if err != nil {
			return err
		}
		out, err = dyn.Resource(m.Resource).Namespace(ns).Create(ctx, obj, metav1.CreateOptions{DryRun: dryRun.Param(), FieldValidation: validation})
		if err != nil && c.WrapErrors {
			return fmt.Errorf("failed to create %s: %w", strings.ToLower(m.Kind.Kind), err)
		}
		if err != nil {
			return err
		}
		if out.GetKind() == "" {
			out.SetGroupVersionKind(m.Kind)
		}
	}
	return p.PrintObj(out, c.Streams.Out)
}
