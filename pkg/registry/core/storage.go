// Package core provides the storage of the core API group (v1): the
// resources the API server serves for it, each built by its own package
// below. Namespaces come first: every later namespaced Store checks them.
package core

import (
	"context"
	"errors"
	"fmt"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/core/binding"
	"kubecore.io/kubecore/pkg/registry/core/componentstatus"
	"kubecore.io/kubecore/pkg/registry/core/configmap"
	"kubecore.io/kubecore/pkg/registry/core/endpoints"
	"kubecore.io/kubecore/pkg/registry/core/event"
	"kubecore.io/kubecore/pkg/registry/core/limitrange"
	"kubecore.io/kubecore/pkg/registry/core/namespace"
	"kubecore.io/kubecore/pkg/registry/core/node"
	"kubecore.io/kubecore/pkg/registry/core/persistentvolume"
	"kubecore.io/kubecore/pkg/registry/core/persistentvolumeclaim"
	"kubecore.io/kubecore/pkg/registry/core/pod"
	"kubecore.io/kubecore/pkg/registry/core/podtemplate"
	"kubecore.io/kubecore/pkg/registry/core/replicationcontroller"
	"kubecore.io/kubecore/pkg/registry/core/resourcequota"
	"kubecore.io/kubecore/pkg/registry/core/secret"
	"kubecore.io/kubecore/pkg/registry/core/service"
	"kubecore.io/kubecore/pkg/registry/core/serviceaccount"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
	"kubecore.io/kubecore/pkg/registry/rest"
)

// Provider builds the storage of v1.
type Provider struct {
	// Services are the cluster IP and node port ranges.
	Services service.Config
	// Kubelet says how pods/log and pods/exec reach kubelets.
	Kubelet node.KubeletClientConfig
	// Disruptions checks evictions against disruption budgets; nil allows
	// every eviction.
	Disruptions pod.DisruptionChecker
	// Token serves serviceaccounts/token; nil leaves it out.
	Token rest.Storage
	// Components replace the componentstatuses' default probes
	// (componentstatus.DefaultProbes: etcd's members, and the scheduler and
	// controller-manager at Kubernetes' default addresses) of the same
	// names, and add the others.
	Components []componentstatus.Probe
}

// GroupVersion is the group version served.
func (Provider) GroupVersion() schema.GroupVersion { return corev1.SchemeGroupVersion }

// NewStorage adds every resource of the group to rs; ctx bounds the reads
// of the services' allocations.
func (p Provider) NewStorage(ctx context.Context, rs strategy.Resources, opts generic.StoreOptions) error {
	ns, err := namespace.NewStorage(opts)
	if err != nil {
		return fmt.Errorf("storage of namespaces: %w", err)
	}
	rs["namespaces"], rs["namespaces/status"], rs["namespaces/finalize"] = ns.Namespace, ns.Status, ns.Finalize
	opts.NamespaceLifecycle = ns.Namespace.Lifecycle()
	nodes, err := node.NewStorage(opts)
	if err != nil {
		return fmt.Errorf("storage of nodes: %w", err)
	}
	kubelets := node.NewKubeletConnections(nodes.Store, p.Kubelet)
	rs["nodes"], rs["nodes/status"], rs["nodes/proxy"] = nodes.Store, nodes.Status, node.NewProxyREST(kubelets)
	pods, err := pod.NewStorage(opts, p.Disruptions, kubelets)
	if err != nil {
		return fmt.Errorf("storage of pods: %w", err)
	}
	rs["pods"], rs["pods/status"], rs["pods/binding"], rs["pods/eviction"] = pods.Pod, pods.Status, pods.Binding, pods.Eviction
	rs["pods/log"], rs["pods/exec"], rs["pods/portforward"], rs["pods/proxy"] = pods.Log, pods.Exec, pods.PortForward, pods.Proxy
	rs["pods/attach"], rs["pods/ephemeralcontainers"], rs["pods/resize"] = pods.Attach, pods.EphemeralContainers, pods.Resize
	rs["bindings"] = binding.NewREST(pods.Binding)
	services, err := service.NewStorage(ctx, opts, p.Services)
	if err != nil {
		return fmt.Errorf("storage of services: %w", err)
	}
	eps, err := endpoints.NewREST(opts)
	if err != nil {
		return fmt.Errorf("storage of endpoints: %w", err)
	}
	rs["endpoints"] = eps
	rs["services"], rs["services/status"], rs["services/proxy"] = services.Service, services.Status, service.NewProxyREST(services.Service, eps)
	rcs, err := replicationcontroller.NewStorage(opts)
	if err != nil {
		return fmt.Errorf("storage of replicationcontrollers: %w", err)
	}
	rs["replicationcontrollers"], rs["replicationcontrollers/status"], rs["replicationcontrollers/scale"] = rcs.Store, rcs.Status, rcs.Scale
	var probes []componentstatus.Probe
	if opts.Client != nil {
		probes = componentstatus.DefaultProbes(opts.Client)
	}
	probes = componentstatus.Replace(probes, p.Components...)
	var csTable rest.TableConvertor
	if opts.TableConvertorFor != nil {
		csTable = opts.TableConvertorFor(corev1.Resource("componentstatuses"))
	}
	rs["componentstatuses"] = componentstatus.NewREST(probes, csTable)
	if p.Token != nil {
		rs["serviceaccounts/token"] = p.Token
	}
	return errors.Join(
		strategy.Add(rs, "persistentvolumeclaims", opts, persistentvolumeclaim.NewStorage),
		strategy.Add(rs, "secrets", opts, secret.NewREST),
		strategy.Add(rs, "serviceaccounts", opts, serviceaccount.NewREST),
		strategy.Add(rs, "persistentvolumes", opts, persistentvolume.NewStorage),
		strategy.Add(rs, "configmaps", opts, configmap.NewREST),
		strategy.Add(rs, "events", opts, event.NewREST),
		strategy.Add(rs, "podtemplates", opts, podtemplate.NewREST),
		strategy.Add(rs, "limitranges", opts, limitrange.NewREST),
		strategy.Add(rs, "resourcequotas", opts, resourcequota.NewStorage),
	)
}
