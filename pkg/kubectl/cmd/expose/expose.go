// Package expose implements `kubectl expose`: a service in front of a
// workload, a pod or another service, selecting what it selects.
package expose

import (
	"context"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"kubecore.io/client/dynamic"
	"kubecore.io/kubecore/pkg/kubectl/cmdutil"
	"kubecore.io/kubecore/pkg/kubectl/generate"
	"kubecore.io/kubecore/pkg/kubectl/resource"
)

// Options are the flags of expose.
type Options struct {
	Files      resource.FilenameOptions
	Port       string
	TargetPort string
	Protocol   string
	Name       string
	Type       string
	Selector   string

	creator *generate.Creator
	factory *cmdutil.Factory
	streams cmdutil.IOStreams
}

// NewCommand returns the expose command.
func NewCommand(f *cmdutil.Factory, streams cmdutil.IOStreams) *cobra.Command {
	o := &Options{creator: generate.NewCreator(f, streams, "exposed"), factory: f, streams: streams}
	o.creator.WrapErrors = false
	cmd := &cobra.Command{
		Use:   "expose (-f FILENAME | TYPE NAME) [--port=port] [--protocol=TCP|UDP|SCTP] [--target-port=number-or-name] [--name=name] [--type=type]",
		Short: "Take a replication controller, service, deployment or pod and expose it as a new Kubernetes service",
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.Run(cmd.Context(), args)
		},
	}
	o.creator.AddFlags(cmd)
	fs := cmd.Flags()
	cmdutil.AddFilenameFlags(fs, &o.Files, "identifying the resource to expose a service")
	fs.StringVar(&o.Port, "port", "", "The port that the service should serve on. Copied from the resource being exposed, if unspecified")
	fs.StringVar(&o.TargetPort, "target-port", "", "Name or number for the port on the container that the service should direct traffic to. Optional.")
	fs.StringVar(&o.Protocol, "protocol", "", "The network protocol for the service to be created. Default is 'TCP'.")
	fs.StringVar(&o.Name, "name", "", "The name for the newly created object.")
	fs.StringVar(&o.Type, "type", "", "Type for this service: ClusterIP, NodePort, LoadBalancer, or ExternalName. Default is 'ClusterIP'.")
	fs.StringVar(&o.Selector, "selector", "", "A label selector to use for this service. Only equality-based selector requirements are supported.")
	return cmd
}

// Run builds a service for each object.
func (o *Options) Run(ctx context.Context, args []string) error {
	b, err := o.factory.NewBuilder(o.streams)
	if err != nil {
		return err
	}
	r, err := b.Filenames(o.Files).Args(args...).RequireNames().Do(ctx)
	if err != nil {
		return err
	}
	infos, err := r.Fetch(ctx)
	if err != nil {
		return err
	}
	for _, info := range infos {
		svc, err := o.service(info.Object)
		if err != nil {
			return err
		}
		if err := o.creator.Create(ctx, "services", svc); err != nil {
			return err
		}
	}
	return nil
}

// service builds the service for obj.
func (o *Options) service(obj *dynamic.Unstructured) (*dynamic.Unstructured, error) {
	var selector map[string]any
	var ports []any
	switch obj.GetKind() {
	case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet":
		selector, _ = dynamic.NestedField(obj.Object, "spec", "selector", "matchLabels").(map[string]any)
		ports = containerPorts(dynamic.NestedField(obj.Object, "spec", "template", "spec", "containers"))
	case "Pod":
		selector = map[string]any{}
		for k, v := range obj.GetLabels() {
			selector[k] = v
		}
		ports = containerPorts(dynamic.NestedField(obj.Object, "spec", "containers"))
	case "Service":
		selector, _ = dynamic.NestedField(obj.Object, "spec", "selector").(map[string]any)
		raw, _ := dynamic.NestedField(obj.Object, "spec", "ports").([]any)
		for _, p := range raw {
			m, _ := p.(map[string]any)
			ports = append(ports, m["port"])
		}
	default:
		return nil, fmt.Errorf("cannot expose a %s", obj.GetKind())
	}
	if len(selector) == 0 {
		return nil, fmt.Errorf("couldn't retrieve selectors via --selector flag or introspection: the %s has no selector", obj.GetKind())
	}
	if o.Port != "" {
		ports = []any{o.Port}
	}
	if len(ports) == 0 {
		return nil, fmt.Errorf("couldn't find port via --port flag or introspection")
	}
	protocol := o.Protocol
	if protocol == "" {
		protocol = "TCP"
	}
	var specPorts []any
	for i, p := range ports {
		n, err := strconv.Atoi(fmt.Sprint(p))
		if err != nil {
			return nil, fmt.Errorf("invalid port %v", p)
		}
		sp := map[string]any{"port": n, "protocol": protocol}
		var target any = n
		if o.TargetPort != "" {
			target = o.TargetPort
			if t, err := strconv.Atoi(o.TargetPort); err == nil {
				target = t
			}
		}
		sp["targetPort"] = target
		if len(ports) > 1 {
			sp["name"] = fmt.Sprintf("port-%d", i+1)
		}
		specPorts = append(specPorts, sp)
	}
	name := o.Name
	if name == "" {
		name = obj.GetName()
	}
	svc := generate.NewObject("v1", "Service", name)
	if l := obj.GetLabels(); len(l) > 0 {
		labels := map[string]any{}
		for k, v := range l {
			labels[k] = v
		}
		svc.Object["metadata"].(map[string]any)["labels"] = labels
	}
	spec := map[string]any{"ports": specPorts, "selector": selector}
	if o.Type != "" {
		spec["type"] = o.Type
	}
	svc.Object["spec"] = spec
	svc.Object["status"] = map[string]any{"loadBalancer": map[string]any{}}
	return svc, nil
}

// containerPorts returns the container ports of a list of containers.
func containerPorts(containers any) []any {
	list, _ := containers.([]any)
	var out []any
	for _, c := range list {
		m, _ := c.(map[string]any)
		ports, _ := m["ports"].([]any)
		for _, p := range ports {
			pm, _ := p.(map[string]any)
			out = append(out, pm["containerPort"])
		}
	}
	return out
}
