package network

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"time"

	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/typed"
)

// resyncPeriod is how often the routes are made again without a change
// of the Nodes, repairing what someone else removed.
const resyncPeriod = time.Minute

// Run keeps the network in step with the Nodes until ctx ends: the bridge
// once the Node named node has a pod CIDR, and a route to every other
// Node's pod CIDR through its InternalIP (changed with the Node, removed
// when it goes); and with the node's pods: their host ports (see
// writeHostPorts). It removes the masquerade and host port tables when it
// returns.
func (n *Network) Run(ctx context.Context, client *typed.Clientset, node string) error {
	logger := klog.FromContext(ctx)
	factory := informers.NewSharedInformerFactory(client)
	nodes, err := informers.Nodes(factory)
	if err != nil {
		return fmt.Errorf("pod network: node informer: %w", err)
	}
	pods, err := informers.Pods(factory.Restricted(informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.FieldSelector = "spec.nodeName=" + node
	})))
	if err != nil {
		return fmt.Errorf("pod network: pod informer: %w", err)
	}
	changed := make(chan struct{}, 1)
	poke := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	if _, err := nodes.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.Node]{
		AddFunc:    func(*corev1.Node, bool) { poke() },
		UpdateFunc: func(_, _ *corev1.Node) { poke() },
		DeleteFunc: func(*corev1.Node) { poke() },
	}); err != nil {
		return fmt.Errorf("pod network: node informer: %w", err)
	}
	if _, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.Pod]{
		AddFunc:    func(*corev1.Pod, bool) { poke() },
		UpdateFunc: func(_, _ *corev1.Pod) { poke() },
		DeleteFunc: func(*corev1.Pod) { poke() },
	}); err != nil {
		return fmt.Errorf("pod network: pod informer: %w", err)
	}
	factory.Start(ctx)
	defer factory.Shutdown()
	defer func() {
		if err := n.Close(); err != nil {
			logger.Error(err, "Failed to remove the pod network's masquerade table")
		}
		if err := deleteHostPorts(node); err != nil {
			logger.Error(err, "Failed to remove the pod network's host port table")
		}
	}()
	var hostPorts []HostPort
	hostPortsWritten := false
	lister := nodes.Lister()
	t := time.NewTicker(resyncPeriod)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		case <-t.C:
		}
		if !nodes.HasSynced() {
			continue
		}
		all, err := lister.List(labels.Everything())
		if err != nil {
			logger.Error(err, "Failed to list Nodes for the pod network")
			continue
		}
		own, routes := Routes(all, node, hostAddrs())
		if own.IsValid() {
			if err := n.SetPodCIDR(ctx, own); err != nil {
				logger.Error(err, "Failed to set up the pod network's bridge", "podCIDR", own)
			}
		}
		if err := n.SyncRoutes(ctx, routes); err != nil {
			logger.Error(err, "Failed to sync the routes to other nodes' pods")
		}
		if !pods.HasSynced() {
			continue
		}
		if want := PodHostPorts(pods.GetIndexer().List()); !hostPortsWritten || !slices.Equal(want, hostPorts) {
			if err := writeHostPorts(node, want); err != nil {
				logger.Error(err, "Failed to write the pods' host ports")
				hostPortsWritten = false
				continue
			}
			logger.V(2).Info("Pods' host ports written", "hostPorts", len(want))
			hostPorts, hostPortsWritten = want, true
		}
	}
}

// Routes returns the pod CIDR of the Node named self and the routes to
// the other Nodes' pod CIDRs (IPv4) through their InternalIP. A Node whose
// InternalIP is one of local (this host's addresses: a second kubelet on
// the same host, with a bridge of its own) gets no route: its pod CIDR is
// on a bridge of this host's already, and a route through a local address
// would take the place of the bridge's own.
func Routes(nodes []*corev1.Node, self string, local map[netip.Addr]bool) (netip.Prefix, []Route) {
	var own netip.Prefix
	var routes []Route
	for _, nd := range nodes {
		cidr, err := netip.ParsePrefix(nd.Spec.PodCIDR)
		if err != nil || !cidr.Addr().Is4() {
			continue
		}
		if nd.Name == self {
			own = cidr
			continue
		}
		for _, a := range nd.Status.Addresses {
			if a.Type != corev1.NodeInternalIP {
				continue
			}
			if ip, err := netip.ParseAddr(a.Address); err == nil && ip.Is4() {
				if !local[ip] && !ip.IsLoopback() {
					routes = append(routes, Route{Dst: cidr.Masked(), Via: ip})
				}
				break
			}
		}
	}
	return own, routes
}

// hostAddrs returns the addresses of this host's interfaces; none when
// they cannot be listed.
func hostAddrs() map[netip.Addr]bool {
	out := map[netip.Addr]bool{}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		klog.ErrorS(err, "Failed to list this host's addresses for the pod network's routes")
		return out
	}
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil {
			out[p.Addr().Unmap()] = true
		}
	}
	return out
}
