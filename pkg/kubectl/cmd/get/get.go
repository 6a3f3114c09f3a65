// Package get implements `kubectl get`: tables from the server, or objects
// in any output format, optionally watched.
package get

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/printers"
	"kubecore.io/kubecore/pkg/kubectl/resource"
)

// tableAccept asks for a server-side Table, JSON otherwise.
const tableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"

// chunkSize is how many objects one list request asks for.
const chunkSize = 500

// Options are the flags and arguments of get.
type Options struct {
	PrintFlags *printers.PrintFlags
	Files      resource.FilenameOptions

	LabelSelector     string
	FieldSelector     string
	AllNamespaces     bool
	Watch             bool
	WatchOnly         bool
	OutputWatchEvents bool
	IgnoreNotFound    bool
	Raw               string

	args    []string
	factory *cmdutil.Factory
	streams cmdutil.IOStreams
}

// NewOptions returns the defaults.
func NewOptions(f *cmdutil.Factory, streams cmdutil.IOStreams) *Options {
	return &Options{PrintFlags: printers.NewPrintFlags(""), factory: f, streams: streams}
}

// NewCommand returns the get command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := NewOptions(f, streams)
	cmd := &cobra.Command{
		Use:   "get [(-o|--output=)json|yaml|name|go-template|go-template-file|template|templatefile|jsonpath|jsonpath-as-json|jsonpath-file|custom-columns|custom-columns-file|wide] (TYPE[.VERSION][.GROUP] [NAME | -l label] | TYPE[.VERSION][.GROUP]/NAME ...) [flags]",
		Short: "Display one or many resources",
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(cmd.Context())
		},
	}
	o.PrintFlags.AddFlags(cmd.Flags(), true)
	cmdutil.AddFilenameFlags(cmd.Flags(), &o.Files, "identifying the resource to get from a server.")
	cmdutil.AddSelectorFlags(cmd.Flags(), &o.LabelSelector, &o.FieldSelector)
	cmd.Flags().BoolVarP(&o.AllNamespaces, "all-namespaces", "A", false, "If present, list the requested object(s) across all namespaces. Namespace in current context is ignored even if specified with --namespace.")
	cmd.Flags().BoolVarP(&o.Watch, "watch", "w", false, "After listing/getting the requested object, watch for changes.")
	cmd.Flags().BoolVar(&o.WatchOnly, "watch-only", false, "Watch for changes to the requested object(s), without listing/getting first.")
	cmd.Flags().BoolVar(&o.OutputWatchEvents, "output-watch-events", false, "Output watch event objects when --watch or --watch-only is used. Existing objects are output as initial ADDED events.")
	cmd.Flags().StringVar(&o.Raw, "raw", "", "Raw URI to request from the server.  Uses the transport specified by the kubeconfig file.")
	cmd.Flags().BoolVar(&o.IgnoreNotFound, "ignore-not-found", false, "If set to true, suppresses NotFound error for specific objects that do not exist. Using this flag with commands that query for collections of resources has no effect when no resources are found.")
	return cmd
}

// Complete records the arguments.
func (o *Options) Complete(args []string) error {
	o.args = args
	if o.WatchOnly {
		o.Watch = true
	}
	return nil
}

// Validate checks the flags.
func (o *Options) Validate() error {
	if o.Raw != "" {
		if len(o.args) > 0 || len(o.Files.Filenames) > 0 {
			return fmt.Errorf("arguments may not be passed when --raw is specified")
		}
		if o.Watch || o.LabelSelector != "" {
			return fmt.Errorf("--raw may not be specified with other flags that filter the server request or alter the output")
		}
		if o.PrintFlags.OutputFormat != "" {
			return fmt.Errorf("--raw and --output are mutually exclusive")
		}
		return cmdutil.ValidateRawURI(o.Raw)
	}
	if len(o.args) == 0 && len(o.Files.Filenames) == 0 {
		fmt.Fprint(o.streams.ErrOut, "You must specify the type of resource to get. Use \"kubectl api-resources\" for a complete list of supported resources.\n\n")
		return cmdutil.UsageErrorf("kubectl get", "Required resource not specified.\nUse \"kubectl explain <resource>\" for a detailed description of that resource (e.g. kubectl explain pods).")
	}
	if !o.PrintFlags.IsTable() {
		if _, err := o.PrintFlags.ToPrinter(); err != nil {
			return err
		}
	}
	if o.PrintFlags.ShowLabels && !o.PrintFlags.IsTable() {
		return fmt.Errorf("--show-labels option cannot be used with %s printer", o.PrintFlags.OutputFormat)
	}
	return nil
}

// Run gets and prints.
func (o *Options) Run(ctx context.Context) error {
	if o.Raw != "" {
		return cmdutil.RawRequest(ctx, o.factory, "GET", o.Raw, nil, o.streams.Out)
	}
	b, err := o.factory.NewBuilder(o.streams)
	if err != nil {
		return err
	}
	r, err := b.Filenames(o.Files).Args(o.args...).
		LabelSelector(o.LabelSelector).FieldSelector(o.FieldSelector).
		AllNamespaces(o.AllNamespaces).ContinueOnError().Do(ctx)
	if err != nil {
		return err
	}
	if r.ReadErr != nil && len(r.Infos) == 0 {
		return readError(r.ReadErr)
	}
	if o.Watch {
		err = o.watch(ctx, r)
	} else if o.PrintFlags.IsTable() {
		err = o.printTables(ctx, r)
	} else {
		err = o.printObjects(ctx, r)
	}
	return errors.Join(err, readError(r.ReadErr))
}

// readError is how get reports the manifests it could not read: among its
// other errors, each without kubectl's "error: " prefix.
func readError(err error) error {
	if err == nil {
		return nil
	}
	return cmdutil.RawError(err.Error())
}

// multipleKinds reports whether the infos span several resources: names
// are then printed with their kind.
func multipleKinds(infos []*resource.Info) bool {
	for _, i := range infos {
		if i.Mapping.Resource != infos[0].Mapping.Resource {
			return true
		}
	}
	return false
}

func (o *Options) tableOptions(r *resource.Result, info *resource.Info) printers.TableOptions {
	opts := printers.TableOptions{
		Wide:          o.PrintFlags.OutputFormat == "wide",
		NoHeaders:     o.PrintFlags.NoHeaders,
		WithNamespace: o.AllNamespaces && info.Mapping.Namespaced,
		ShowLabels:    o.PrintFlags.ShowLabels,
		LabelColumns:  o.PrintFlags.LabelColumns,
	}
	if multipleKinds(r.Infos) {
		opts.KindPrefix = info.Mapping.KindName()
	}
	return opts
}

// fetchTable reads the Table of one info: one object or a collection,
// following list continuations.
func (o *Options) fetchTable(ctx context.Context, r *resource.Result, info *resource.Info) (*metav1.Table, error) {
	c := r.Client(info)
	var out *metav1.Table
	cont := ""
	for {
		req, err := c.NewRequest("GET", info.Name)
		if err != nil {
			return nil, err
		}
		req.SetHeader("Accept", tableAccept)
		if o.PrintFlags.SortBy != "" {
			req.Param("includeObject", "Object")
		}
		if info.Name == "" {
			lo := r.ListOptions()
			lo.Limit, lo.Continue = chunkSize, cont
			req.VersionedParams(&lo)
		}
		body, err := req.Do(ctx).Raw()
		if err != nil {
			return nil, err
		}
		t, err := printers.DecodeTable(body)
		if err != nil {
			return nil, fmt.Errorf("get %s: %w", info.Mapping.GroupResource(), err)
		}
		if out == nil {
			out = t
		} else {
			out.Rows = append(out.Rows, t.Rows...)
		}
		if info.Name != "" || t.Continue == "" {
			return out, nil
		}
		cont = t.Continue
	}
}

// printTables prints a table per resource: consecutive infos of one
// resource share one.
func (o *Options) printTables(ctx context.Context, r *resource.Result) error {
	var errs []error
	printedTables, rows := 0, 0
	i := 0
	for i < len(r.Infos) {
		j := i
		var merged *metav1.Table
		for ; j < len(r.Infos) && r.Infos[j].Mapping.Resource == r.Infos[i].Mapping.Resource; j++ {
			t, err := o.fetchTable(ctx, r, r.Infos[j])
			if err != nil {
				if o.IgnoreNotFound && resource.IgnoreNotFound(err) == nil {
					continue
				}
				errs = append(errs, err)
				continue
			}
			if merged == nil {
				merged = t
			} else {
				merged.Rows = append(merged.Rows, t.Rows...)
			}
		}
		info := r.Infos[i]
		i = j
		if merged == nil || len(merged.Rows) == 0 {
			continue
		}
		if o.PrintFlags.SortBy != "" {
			if err := printers.SortRows(merged, o.PrintFlags.SortBy); err != nil {
				return err
			}
		}
		if printedTables > 0 {
			fmt.Fprintln(o.streams.Out)
		}
		p := printers.NewTablePrinter(o.streams.Out)
		if err := p.PrintTable(merged, o.tableOptions(r, info)); err != nil {
			return err
		}
		if err := p.Flush(); err != nil {
			return err
		}
		printedTables++
		rows += len(merged.Rows)
	}
	if rows == 0 && len(errs) == 0 && !r.Named {
		o.noResources(r)
	}
	return errors.Join(errs...)
}

// noResources says nothing matched, on stderr.
func (o *Options) noResources(r *resource.Result) {
	for _, info := range r.Infos {
		if info.Mapping.Namespaced && !r.AllNamespaces {
			fmt.Fprintf(o.streams.ErrOut, "No resources found in %s namespace.\n", info.Namespace)
			return
		}
	}
	fmt.Fprintln(o.streams.ErrOut, "No resources found")
}

// printObjects prints whole objects: one named object as itself, anything
// else as a List.
func (o *Options) printObjects(ctx context.Context, r *resource.Result) error {
	p, err := o.PrintFlags.ToPrinter()
	if err != nil {
		return err
	}
	infos, fetchErr := r.Fetch(ctx)
	if o.IgnoreNotFound {
		fetchErr = ignoreNotFound(fetchErr)
	}
	var objs []*dynamic.Unstructured
	for _, info := range infos {
		objs = append(objs, info.Object)
	}
	if o.PrintFlags.SortBy != "" {
		if err := printers.SortObjects(objs, o.PrintFlags.SortBy); err != nil {
			return err
		}
	}
	if err := printList(p, objs, r.SingleItem && len(objs) == 1, o.streams.Out); err != nil {
		return err
	}
	return fetchErr
}

// printList prints objs as one object when single, else as a List.
func printList(p printers.ResourcePrinter, objs []*dynamic.Unstructured, single bool, w io.Writer) error {
	if single {
		return p.PrintObj(objs[0], w)
	}
	items := make([]any, 0, len(objs))
	for _, obj := range objs {
		items = append(items, obj.Object)
	}
	list := &dynamic.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       "List",
		"items":      items,
		"metadata":   map[string]any{"resourceVersion": ""},
	}}
	return p.PrintObj(list, w)
}

func ignoreNotFound(err error) error {
	if err == nil {
		return nil
	}
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return resource.IgnoreNotFound(err)
	}
	var kept []error
	for _, e := range joined.Unwrap() {
		if resource.IgnoreNotFound(e) != nil {
			kept = append(kept, e)
		}
	}
	return errors.Join(kept...)
}
