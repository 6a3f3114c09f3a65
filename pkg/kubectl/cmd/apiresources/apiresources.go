// Package apiresources implements `kubectl api-resources`: the resources
// the server serves, from discovery.
package apiresources

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/printers"
)

// Options are the flags of api-resources.
type Options struct {
	Output     string
	NoHeaders  bool
	APIGroup   string
	Namespaced bool
	Verbs      []string
	SortBy     string
	Cached     bool
	Categories []string

	namespacedSet bool
	factory       *cmdutil.Factory
	streams       cmdutil.IOStreams
}

// NewCommand returns the api-resources command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &Options{Namespaced: true, factory: f, streams: streams}
	cmd := &cobra.Command{
		Use:   "api-resources",
		Short: "Print the supported API resources on the server",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.namespacedSet = cmd.Flags().Changed("namespaced")
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.Output, "output", "o", "", "Output format. One of: (wide, name).")
	fs.BoolVar(&o.NoHeaders, "no-headers", false, "When using the default or custom-column output format, don't print headers (default print headers).")
	fs.StringVar(&o.APIGroup, "api-group", "", "Limit to resources in the specified API group.")
	fs.BoolVar(&o.Namespaced, "namespaced", true, "If false, non-namespaced resources will be returned, otherwise returning namespaced resources by default.")
	fs.StringSliceVar(&o.Verbs, "verbs", nil, "Limit to resources that support the specified verbs.")
	fs.StringVar(&o.SortBy, "sort-by", "", "If non-empty, sort list of resources using specified field. The field can be either 'name' or 'kind'.")
	fs.BoolVar(&o.Cached, "cached", false, "Use the cached list of resources if available.")
	fs.StringSliceVar(&o.Categories, "categories", nil, "Limit to resources that belong to the specified categories.")
	return cmd
}

// Validate checks the flags.
func (o *Options) Validate() error {
	if o.Output != "" && o.Output != "wide" && o.Output != "name" {
		return fmt.Errorf("--output %v is not available", o.Output)
	}
	if o.SortBy != "" && o.SortBy != "name" && o.SortBy != "kind" {
		return fmt.Errorf("--sort-by accepts only name or kind")
	}
	return nil
}

type entry struct {
	gv  schema.GroupVersion
	res metav1.APIResource
}

// Run lists the resources.
func (o *Options) Run(ctx context.Context) error {
	mapper, err := o.factory.Mapper()
	if err != nil {
		return err
	}
	lists, err := mapper.PreferredResources(ctx)
	if err != nil {
		return err
	}
	var entries []entry
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		if o.APIGroup != "" && gv.Group != o.APIGroup {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			if o.namespacedSet && r.Namespaced != o.Namespaced {
				continue
			}
			if len(o.Verbs) > 0 && !containsAll(r.Verbs, o.Verbs) {
				continue
			}
			if len(o.Categories) > 0 && !containsAll(r.Categories, o.Categories) {
				continue
			}
			entries = append(entries, entry{gv: gv, res: r})
		}
	}
	slices.SortStableFunc(entries, func(a, b entry) int {
		switch o.SortBy {
		case "name":
			return strings.Compare(a.res.Name, b.res.Name)
		case "kind":
			return strings.Compare(a.res.Kind, b.res.Kind)
		}
		if c := strings.Compare(a.gv.Group, b.gv.Group); c != 0 {
			return c
		}
		return strings.Compare(a.res.Name, b.res.Name)
	})
	if o.Output == "name" {
		for _, e := range entries {
			name := e.res.Name
			if e.gv.Group != "" {
				name += "." + e.gv.Group
			}
			fmt.Fprintln(o.streams.Out, name)
		}
		return nil
	}
	w := printers.NewTabWriter(o.streams.Out)
	if !o.NoHeaders {
		header := "NAME\tSHORTNAMES\tAPIVERSION\tNAMESPACED\tKIND"
		if o.Output == "wide" {
			header += "\tVERBS\tCATEGORIES"
		}
		fmt.Fprintln(w, header)
	}
	for _, e := range entries {
		line := fmt.Sprintf("%s\t%s\t%s\t%v\t%s", e.res.Name, strings.Join(e.res.ShortNames, ","), e.gv.String(), e.res.Namespaced, e.res.Kind)
		if o.Output == "wide" {
			verbs := slices.Sorted(slices.Values(e.res.Verbs))
			line += fmt.Sprintf("\t%s\t%s", strings.Join(verbs, ","), strings.Join(e.res.Categories, ","))
		}
		fmt.Fprintln(w, line)
	}
	return w.Flush()
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
