// Package top implements `kubectl top node` and `kubectl top pod`: the
// CPU and memory the metrics.k8s.io API (metrics-server, behind the
// aggregator) reports for nodes and pods, in kubectl's table.
package top

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"
	"kubecore.io/client/dynamic"

	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/printers"
)

// nodesGVR is the resource of nodes, for their allocatable figures.
var nodesGVR = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}

// metricsGV is the group version of the resource metrics API.
var metricsGV = schema.GroupVersion{Group: "metrics.k8s.io", Version: "v1beta1"}

// errNoMetricsAPI is kubectl's answer when no server serves metricsGV.
//
//lint:ignore ST1005 kubectl's wording, capital included.
var errNoMetricsAPI = errors.New("Metrics API not available")

// options are the flags both subcommands share.
type options struct {
	factory       *cmdutil.Factory
	streams       cmdutil.IOStreams
	selector      string
	sortBy        string
	noHeaders     bool
	allNamespaces bool
}

// NewCommand returns the top command and its node and pod subcommands.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "top",
		Short: "Display resource (CPU/memory) usage",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newSubcommand(f, streams, "node [NAME | -l label]", []string{"nodes", "no"}, "Display resource (CPU/memory) usage of nodes", false),
		newSubcommand(f, streams, "pod [NAME | -l label]", []string{"pods", "po"}, "Display resource (CPU/memory) usage of pods", true))
	return cmd
}

func newSubcommand(f *cmdutil.Factory, streams cmdutil.IOStreams, use string, aliases []string, short string, pods bool) *cobra.Command {
	o := &options{factory: f, streams: streams}
	cmd := &cobra.Command{
		Use: use, Aliases: aliases, Short: short, Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := ""
			if len(args) == 1 {
				name = args[0]
			}
			if o.sortBy != "" && o.sortBy != "cpu" && o.sortBy != "memory" {
				return fmt.Errorf("--sort-by accepts only cpu or memory")
			}
			if pods {
				return o.runPods(cmd.Context(), name)
			}
			return o.runNodes(cmd.Context(), name)
		},
	}
	fs := cmd.Flags()
	fs.StringVarP(&o.selector, "selector", "l", "", "Selector (label query) to filter on, supports '=', '==', and '!='.(e.g. -l key1=value1,key2=value2)")
	fs.StringVar(&o.sortBy, "sort-by", "", "If non-empty, sort list using specified field. The field can be either 'cpu' or 'memory'.")
	fs.BoolVar(&o.noHeaders, "no-headers", false, "If present, print output without headers")
	if pods {
		fs.BoolVarP(&o.allNamespaces, "all-namespaces", "A", false, "If present, list the requested object(s) across all namespaces. Namespace in current context is ignored even if specified with --namespace.")
	}
	return cmd
}

// usage is one row: a node's or pod's name and its summed usage.
type usage struct {
	namespace, name string
	cpu, memory     resource.Quantity
}

// list reads the metrics of resource ("nodes", "pods") in ns ("" for all
// or cluster-scoped), one named object when name is set.
func (o *options) list(ctx context.Context, res, ns, name string) ([]map[string]any, error) {
	d, err := o.factory.Discovery()
	if err != nil {
		return nil, err
	}
	groups, err := d.ServerGroups(ctx)
	if err != nil {
		return nil, err
	}
	served := slices.ContainsFunc(groups.Groups, func(g metav1.APIGroup) bool {
		return g.Name == metricsGV.Group && slices.ContainsFunc(g.Versions, func(v metav1.GroupVersionForDiscovery) bool { return v.Version == metricsGV.Version })
	})
	if !served {
		return nil, errNoMetricsAPI
	}
	dyn, err := o.factory.Dynamic()
	if err != nil {
		return nil, err
	}
	rc := dyn.Resource(metricsGV.WithResource(res)).Namespace(ns)
	if name != "" {
		obj, err := rc.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return []map[string]any{obj.Object}, nil
	}
	l, err := rc.List(ctx, metav1.ListOptions{LabelSelector: o.selector})
	if err != nil {
		return nil, err
	}
	return items(l.Object), nil
}

func items(list map[string]any) []map[string]any {
	raw, _ := dynamic.NestedField(list, "items").([]any)
	out := make([]map[string]any, 0, len(raw))
	for _, it := range raw {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// quantity reads a quantity at path of obj; zero when absent or bad.
func quantity(obj map[string]any, path ...string) resource.Quantity {
	q, err := resource.ParseQuantity(dynamic.NestedString(obj, path...))
	if err != nil {
		return resource.Quantity{}
	}
	return q
}

func (o *options) sort(rows []usage) {
	switch o.sortBy {
	case "cpu":
		slices.SortStableFunc(rows, func(a, b usage) int { return b.cpu.Cmp(a.cpu) })
	case "memory":
		slices.SortStableFunc(rows, func(a, b usage) int { return b.memory.Cmp(a.memory) })
	default:
		slices.SortStableFunc(rows, func(a, b usage) int {
			return cmp.Or(cmp.Compare(a.namespace, b.namespace), cmp.Compare(a.name, b.name))
		})
	}
}

func (o *options) runNodes(ctx context.Context, name string) error {
	metrics, err := o.list(ctx, "nodes", "", name)
	if err != nil {
		return err
	}
	if len(metrics) == 0 {
		return errors.New("metrics not available yet")
	}
	dyn, err := o.factory.Dynamic()
	if err != nil {
		return err
	}
	nodes, err := dyn.Resource(nodesGVR).List(ctx, metav1.ListOptions{LabelSelector: o.selector})
	if err != nil {
		return err
	}
	allocatable := map[string]map[string]any{}
	for _, n := range items(nodes.Object) {
		allocatable[dynamic.NestedString(n, "metadata", "name")] = n
	}
	rows := make([]usage, 0, len(metrics))
	for _, m := range metrics {
		rows = append(rows, usage{name: dynamic.NestedString(m, "metadata", "name"), cpu: quantity(m, "usage", "cpu"), memory: quantity(m, "usage", "memory")})
	}
	o.sort(rows)
	w := printers.NewTabWriter(o.streams.Out)
	if !o.noHeaders {
		fmt.Fprintln(w, "NAME\tCPU(cores)\tCPU(%)\tMEMORY(bytes)\tMEMORY(%)\t")
	}
	for _, r := range rows {
		n := allocatable[r.name]
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t\n", r.name, cores(r.cpu), percent(r.cpu.MilliValue(), quantity(n, "status", "allocatable", "cpu").MilliValue()),
			mebibytes(r.memory), percent(r.memory.Value(), quantity(n, "status", "allocatable", "memory").Value()))
	}
	return w.Flush()
}

func (o *options) runPods(ctx context.Context, name string) error {
	ns := ""
	if !o.allNamespaces {
		var err error
		if ns, _, err = o.factory.Namespace(); err != nil {
			return err
		}
	}
	metrics, err := o.list(ctx, "pods", ns, name)
	if err != nil {
		return err
	}
	if len(metrics) == 0 {
		return o.noPodMetrics(ctx, ns)
	}
	rows := make([]usage, 0, len(metrics))
	for _, m := range metrics {
		r := usage{namespace: dynamic.NestedString(m, "metadata", "namespace"), name: dynamic.NestedString(m, "metadata", "name")}
		containers, _ := dynamic.NestedField(m, "containers").([]any)
		for _, c := range containers {
			if cm, ok := c.(map[string]any); ok {
				r.cpu.Add(quantity(cm, "usage", "cpu"))
				r.memory.Add(quantity(cm, "usage", "memory"))
			}
		}
		rows = append(rows, r)
	}
	o.sort(rows)
	w := printers.NewTabWriter(o.streams.Out)
	if !o.noHeaders {
		if o.allNamespaces {
			fmt.Fprint(w, "NAMESPACE\t")
		}
		fmt.Fprintln(w, "NAME\tCPU(cores)\tMEMORY(bytes)\t")
	}
	for _, r := range rows {
		if o.allNamespaces {
			fmt.Fprintf(w, "%s\t", r.namespace)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t\n", r.name, cores(r.cpu), mebibytes(r.memory))
	}
	return w.Flush()
}

// noPodMetrics answers an empty metrics list as kubectl does: pods that
// exist have no metrics yet; no pods is "No resources found".
func (o *options) noPodMetrics(ctx context.Context, ns string) error {
	dyn, err := o.factory.Dynamic()
	if err != nil {
		return err
	}
	pods, err := dyn.Resource(cmdutil.PodsGVR).Namespace(ns).List(ctx, metav1.ListOptions{LabelSelector: o.selector})
	if err != nil {
		return err
	}
	if len(items(pods.Object)) > 0 {
		return errors.New("metrics not available yet")
	}
	noResources(o.streams.ErrOut, ns)
	return nil
}

func noResources(w io.Writer, ns string) {
	if ns == "" {
		fmt.Fprintln(w, "No resources found")
		return
	}
	fmt.Fprintf(w, "No resources found in %s namespace.\n", ns)
}

// cores and mebibytes are kubectl's units of the table.
func cores(q resource.Quantity) string     { return fmt.Sprintf("%dm", q.MilliValue()) }
func mebibytes(q resource.Quantity) string { return fmt.Sprintf("%dMi", q.Value()/(1024*1024)) }

// percent is used of total as a whole percentage, "<unknown>" without a total.
func percent(used, total int64) string {
	if total <= 0 {
		return "<unknown>"
	}
	return fmt.Sprintf("%d%%", used*100/total)
}
