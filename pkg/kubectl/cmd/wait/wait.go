// Package wait implements `kubectl wait`: until objects are deleted, hold
// a condition, or have a field at a value.
package wait

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/dynamic"
	"kubecore.io/client/util/jsonpath"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/resource"
)

// Options are the flags of wait.
type Options struct {
	Files         resource.FilenameOptions
	LabelSelector string
	FieldSelector string
	All           bool
	AllNamespaces bool
	For           string
	Timeout       time.Duration

	args    []string
	check   func(*dynamic.Unstructured) bool
	forName string
	factory *cmdutil.Factory
	streams cmdutil.IOStreams
}

// NewCommand returns the wait command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &Options{factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "wait ([-f FILENAME] | resource.group/resource.name | resource.group [(-l label | --all)]) [--for=delete|--for condition=available|--for=jsonpath='{}'[=value]]",
		Short: "Experimental: Wait for a specific condition on one or many resources",
		RunE: func(cmd *cobra.Command, args []string) error {
			o.args = args
			if err := o.Complete(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	fs := cmd.Flags()
	cmdutil.AddFilenameFlags(fs, &o.Files, "identifying the resource.")
	cmdutil.AddSelectorFlags(fs, &o.LabelSelector, &o.FieldSelector)
	fs.BoolVar(&o.All, "all", false, "Select all resources in the namespace of the specified resource types")
	fs.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "If present, list the requested object(s) across all namespaces. Namespace in current context is ignored even if specified with --namespace.")
	fs.StringVar(&o.For, "for", "", "The condition to wait on: [create|delete|condition=condition-name[=condition-value]|jsonpath='{JSONPath expression}'=[JSONPath value]]. The default condition-value is true.  Condition values are compared after Unicode simple case folding, which is a more general form of case-insensitivity.")
	fs.DurationVar(&o.Timeout, "timeout", 30*time.Second, "The length of time to wait before giving up.  Zero means check once and don't wait, negative means wait for a week.")
	return cmd
}

// Complete parses --for into a check of an object.
func (o *Options) Complete() error {
	switch f := o.For; {
	case f == "":
		return fmt.Errorf("--for must be set")
	case strings.EqualFold(f, "delete"):
		o.forName = "delete"
	case strings.HasPrefix(f, "condition="):
		cond, want, hasValue := strings.Cut(strings.TrimPrefix(f, "condition="), "=")
		if !hasValue {
			want = "True"
		}
		o.check = func(obj *dynamic.Unstructured) bool {
			conds, _ := dynamic.NestedField(obj.Object, "status", "conditions").([]any)
			for _, c := range conds {
				m, _ := c.(map[string]any)
				if strings.EqualFold(dynamic.NestedString(m, "type"), cond) && strings.EqualFold(dynamic.NestedString(m, "status"), want) {
					return true
				}
			}
			return false
		}
	case strings.HasPrefix(f, "jsonpath="):
		expr, want, hasValue := cutJSONPath(strings.TrimPrefix(f, "jsonpath="))
		tmpl, err := jsonpath.RelaxedTemplate(expr)
		if err != nil {
			return err
		}
		jp, err := jsonpath.New("wait", tmpl)
		if err != nil {
			return err
		}
		jp.AllowMissingKeys(true)
		o.check = func(obj *dynamic.Unstructured) bool {
			res, err := jp.FindResults(obj.Object)
			if err != nil || len(res) == 0 || len(res[0]) == 0 {
				return false
			}
			if !hasValue {
				return true
			}
			got, _ := jsonpath.ValueText(res[0][0])
			return got == want
		}
	default:
		return fmt.Errorf("unrecognized condition: %q", f)
	}
	return nil
}

// cutJSONPath splits "{.a.b}=value" at the = after the expression.
func cutJSONPath(s string) (expr, value string, hasValue bool) {
	if end := strings.Index(s, "}"); strings.HasPrefix(s, "{") && end > 0 {
		expr, rest := s[:end+1], s[end+1:]
		value, hasValue = strings.CutPrefix(rest, "=")
		return expr, value, hasValue
	}
	return strings.Cut(s, "=")
}

// Run waits for each object in turn, within one overall timeout.
func (o *Options) Run(ctx context.Context) error {
	b, err := o.factory.NewBuilder(o.streams)
	if err != nil {
		return err
	}
	r, err := b.Filenames(o.Files).Args(o.args...).LabelSelector(o.LabelSelector).
		FieldSelector(o.FieldSelector).AllNamespaces(o.AllNamespaces).SelectAll(o.All).Do(ctx)
	if err != nil {
		return err
	}
	timeout := o.Timeout
	if timeout < 0 {
		timeout = 7 * 24 * time.Hour
	}
	ctx, cancel := context.WithTimeout(ctx, max(timeout, time.Millisecond))
	defer cancel()
	infos, fetchErr := r.Fetch(ctx)
	if o.forName == "delete" {
		fetchErr = ignoreAllNotFound(fetchErr)
	}
	if fetchErr != nil {
		return fetchErr
	}
	if len(infos) == 0 && o.forName != "delete" {
		return fmt.Errorf("no matching resources found")
	}
	var errs []error
	for _, info := range infos {
		c := r.Client(info)
		var err error
		if o.forName == "delete" {
			err = resource.WaitForDeletion(ctx, c, info.Name, info.Object.GetUID())
		} else {
			err = o.waitFor(ctx, c, info)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("timed out waiting for the condition on %s/%s", info.Mapping.Resource.Resource, info.Name))
			continue
		}
		fmt.Fprintf(o.streams.Out, "%s condition met\n", info.ObjectName())
	}
	return errors.Join(errs...)
}

// waitFor watches one object until the check holds.
func (o *Options) waitFor(ctx context.Context, c *dynamic.ResourceClient, info *resource.Info) error {
	if o.check(info.Object) {
		return nil
	}
	w, err := c.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + info.Name, ResourceVersion: info.Object.GetResourceVersion()})
	if err != nil {
		return err
	}
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-w.ResultChan():
			if !ok {
				return fmt.Errorf("watch closed")
			}
			obj, _ := ev.Object.(*dynamic.Unstructured)
			if ev.Type == watch.Deleted || obj == nil {
				continue
			}
			if o.check(obj) {
				return nil
			}
		}
	}
}

func ignoreAllNotFound(err error) error {
	if err == nil {
		return nil
	}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var kept []error
		for _, e := range joined.Unwrap() {
			if resource.IgnoreNotFound(e) != nil {
				kept = append(kept, e)
			}
		}
		return errors.Join(kept...)
	}
	return resource.IgnoreNotFound(err)
}
