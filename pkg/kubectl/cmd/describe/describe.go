// Package describe implements `kubectl describe`: a readable page per
// object, with its Events.
package describe

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	describer "kubecore.io/kubecore/pkg/kubectl/describe"
	"kubecore.io/kubecore/pkg/kubectl/resource"
)

// Options are the flags of describe.
type Options struct {
	Files         resource.FilenameOptions
	LabelSelector string
	AllNamespaces bool
	ShowEvents    bool

	args    []string
	factory *cmdutil.Factory
	streams cmdutil.IOStreams
}

// NewCommand returns the describe command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &Options{ShowEvents: true, factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "describe (-f FILENAME | TYPE [NAME_PREFIX | -l label] | TYPE/NAME)",
		Short: "Show details of a specific resource or group of resources",
		RunE: func(cmd *cobra.Command, args []string) error {
			o.args = args
			if len(args) == 0 && len(o.Files.Filenames) == 0 {
				return cmdutil.UsageErrorf("kubectl describe", "You must specify the type of resource to describe. Use \"kubectl api-resources\" for a complete list of supported resources.\n")
			}
			return o.Run(cmd.Context())
		},
	}
	fs := cmd.Flags()
	cmdutil.AddFilenameFlags(fs, &o.Files, "containing the resource to describe")
	fs.StringVarP(&o.LabelSelector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.(e.g. -l key1=value1,key2=value2,key3 in (value3)). Matching objects must satisfy all of the specified label constraints.")
	fs.BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "If present, list the requested object(s) across all namespaces. Namespace in current context is ignored even if specified with --namespace.")
	fs.BoolVar(&o.ShowEvents, "show-events", true, "If true, display events related to the described object.")
	return cmd
}

// Run describes every object named, matched by a name prefix, or selected.
func (o *Options) Run(ctx context.Context) error {
	b, err := o.factory.NewBuilder(o.streams)
	if err != nil {
		return err
	}
	r, err := b.Filenames(o.Files).Args(o.args...).LabelSelector(o.LabelSelector).
		AllNamespaces(o.AllNamespaces).Do(ctx)
	if err != nil {
		return err
	}
	var infos []*resource.Info
	// byPrefix marks the objects matched by a name prefix: kubectl ends
	// each of their pages with an empty line.
	byPrefix := map[*resource.Info]bool{}
	var errs []error
	for _, info := range r.Infos {
		if info.Name == "" {
			sub := *r
			sub.Infos = []*resource.Info{info}
			found, err := sub.Fetch(ctx)
			if err != nil {
				errs = append(errs, err)
			}
			infos = append(infos, found...)
			continue
		}
		one := *r
		one.Infos = []*resource.Info{info}
		found, err := one.Fetch(ctx)
		if err == nil {
			infos = append(infos, found...)
			continue
		}
		if !apierrors.IsNotFound(err) || len(o.Files.Filenames) > 0 {
			errs = append(errs, err)
			continue
		}
		// Not an exact name: describe the objects whose names start with it.
		matched, listErr := o.byPrefix(ctx, r, info)
		if listErr != nil || len(matched) == 0 {
			errs = append(errs, err)
			continue
		}
		for _, m := range matched {
			byPrefix[m] = true
		}
		infos = append(infos, matched...)
	}
	mapper, err := o.factory.Mapper()
	if err != nil {
		return err
	}
	dyn, err := o.factory.Dynamic()
	if err != nil {
		return err
	}
	d := describer.New(dyn, mapper, time.Now)
	d.ShowEvents = o.ShowEvents
	for i, info := range infos {
		page, err := d.Describe(ctx, info.Object)
		if err != nil {
			errs = append(errs, fmt.Errorf("describe %s: %w", info.ObjectName(), err))
			continue
		}
		if i > 0 && !byPrefix[info] {
			fmt.Fprint(o.streams.Out, "\n\n")
		}
		fmt.Fprint(o.streams.Out, page)
		if byPrefix[info] {
			fmt.Fprintln(o.streams.Out)
		}
	}
	if len(infos) == 0 && len(errs) == 0 {
		if r.AllNamespaces || !r.Infos[0].Mapping.Namespaced {
			fmt.Fprintln(o.streams.ErrOut, "No resources found")
		} else {
			fmt.Fprintf(o.streams.ErrOut, "No resources found in %s namespace.\n", r.Namespace)
		}
	}
	return errors.Join(errs...)
}

// byPrefix lists the info's collection and keeps the names starting with
// its name.
func (o *Options) byPrefix(ctx context.Context, r *resource.Result, info *resource.Info) ([]*resource.Info, error) {
	all := *r
	coll := *info
	coll.Name = ""
	all.Infos = []*resource.Info{&coll}
	found, err := all.Fetch(ctx)
	if err != nil {
		return nil, err
	}
	var out []*resource.Info
	for _, f := range found {
		if strings.HasPrefix(f.Name, info.Name) {
			out = append(out, f)
		}
	}
	return out, nil
}
