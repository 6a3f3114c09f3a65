// Package taint implements `kubectl taint`: add, change and remove node
// taints.
package taint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
)

// Options are the flags of taint.
type Options struct {
	Selector   string
	All        bool
	Overwrite  bool
	DryRunFlag cmdutil.DryRunFlag

	factory *cmdutil.Factory
	streams cmdutil.IOStreams
}

// NewCommand returns the taint command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &Options{factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "taint NODE NAME KEY_1=VAL_1:TAINT_EFFECT_1 ... KEY_N=VAL_N:TAINT_EFFECT_N",
		Short: "Update the taints on one or more nodes",
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.Run(cmd.Context(), args)
		},
	}
	cmd.Flags().StringVarP(&o.Selector, "selector", "l", "", "Selector (label query) to filter on.")
	cmd.Flags().BoolVar(&o.All, "all", false, "Select all nodes in the cluster")
	cmd.Flags().BoolVar(&o.Overwrite, "overwrite", false, "If true, allow taints to be overwritten, otherwise reject taint updates that overwrite existing taints.")
	cmdutil.AddDryRunFlag(cmd.Flags(), &o.DryRunFlag)
	return cmd
}

// taintSpec is one argument: key[=value]:effect, with remove for a trailing -.
type taintSpec struct {
	key, value, effect string
	remove             bool
}

func parseTaint(s string) (taintSpec, error) {
	var t taintSpec
	if strings.HasSuffix(s, "-") {
		t.remove = true
		s = strings.TrimSuffix(s, "-")
	}
	kv, effect, hasEffect := strings.Cut(s, ":")
	t.key, t.value, _ = strings.Cut(kv, "=")
	t.effect = effect
	switch {
	case t.key == "":
		return t, fmt.Errorf("invalid taint spec: %v", s)
	case !t.remove && !hasEffect:
		return t, fmt.Errorf("invalid taint spec: %v, unsupported taint effect", s)
	case hasEffect && effect != "NoSchedule" && effect != "PreferNoSchedule" && effect != "NoExecute":
		return t, fmt.Errorf("invalid taint effect: %v, unsupported taint effect", effect)
	}
	return t, nil
}

// Run changes the taints of each node.
func (o *Options) Run(ctx context.Context, args []string) error {
	dryRun, err := o.DryRunFlag.Strategy()
	if err != nil {
		return err
	}
	var resArgs []string
	var specs []taintSpec
	for i, a := range args {
		if i > 0 && (strings.Contains(a, ":") || strings.Contains(a, "=") || strings.HasSuffix(a, "-")) {
			t, err := parseTaint(a)
			if err != nil {
				return err
			}
			specs = append(specs, t)
			continue
		}
		resArgs = append(resArgs, a)
	}
	if len(specs) == 0 {
		return fmt.Errorf("at least one taint update is required")
	}
	b, err := o.factory.NewBuilder(o.streams)
	if err != nil {
		return err
	}
	r, err := b.Args(resArgs...).LabelSelector(o.Selector).SelectAll(o.All).RequireNames().Do(ctx)
	if err != nil {
		return err
	}
	infos, err := r.Fetch(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, info := range infos {
		taints, _ := dynamic.NestedField(info.Object.Object, "spec", "taints").([]any)
		next, op, err := o.apply(info.Name, taints, specs)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if dryRun != cmdutil.DryRunClient {
			patch, err := json.Marshal(map[string]any{"spec": map[string]any{"taints": next}})
			if err != nil {
				return err
			}
			if _, err := r.Client(info).Patch(ctx, info.Name, types.MergePatchType, patch, metav1.PatchOptions{DryRun: dryRun.Param()}); err != nil {
				errs = append(errs, err)
				continue
			}
		}
		fmt.Fprintf(o.streams.Out, "%s %s%s\n", info.ObjectName(), op, dryRun.Suffix())
	}
	return errors.Join(errs...)
}

// apply returns the node's taints after the changes — like kubectl, the
// added and overwritten ones first — and what was done.
func (o *Options) apply(node string, taints []any, specs []taintSpec) ([]any, string, error) {
	next := append([]any(nil), taints...)
	var fresh []any
	added, removed, modified := false, false, false
	for _, s := range specs {
		if s.remove {
			var kept []any
			found := false
			for _, t := range next {
				m, _ := t.(map[string]any)
				if dynamic.NestedString(m, "key") == s.key && (s.effect == "" || dynamic.NestedString(m, "effect") == s.effect) {
					found = true
					continue
				}
				kept = append(kept, t)
			}
			if !found {
				name := s.key
				if s.effect != "" {
					name += ":" + s.effect
				}
				return nil, "", fmt.Errorf("taint %q not found", name)
			}
			next, removed = kept, true
			continue
		}
		var kept []any
		for _, t := range next {
			m, _ := t.(map[string]any)
			if dynamic.NestedString(m, "key") != s.key || dynamic.NestedString(m, "effect") != s.effect {
				kept = append(kept, t)
				continue
			}
			if !o.Overwrite {
				return nil, "", fmt.Errorf("node %s already has %s taint(s) with same effect(s) and --overwrite is false", node, s.key)
			}
			modified = true
		}
		next = kept
		fresh = append(fresh, taintObject(s))
		added = added || !modified
	}
	next = append(fresh, next...)
	switch {
	case modified || (added && removed):
		return next, "modified", nil
	case removed:
		return next, "untainted", nil
	}
	return next, "tainted", nil
}

func taintObject(s taintSpec) map[string]any {
	t := map[string]any{"key": s.key, "effect": s.effect}
	if s.value != "" {
		t["value"] = s.value
	}
	return t
}
