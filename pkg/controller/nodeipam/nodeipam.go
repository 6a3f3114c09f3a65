// Package nodeipam is the node IPAM controller: it gives every Node a pod
// address range (spec.podCIDR and spec.podCIDRs) cut from the cluster CIDR,
// never the same range to two Nodes, and takes a range back when its Node goes.
package nodeipam

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"net/netip"
	"sync"

	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/client/controller"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/tools/record"
	"kubecore.io/client/typed"
)

// Name is the controller's name in the controller-manager.
const Name = "nodeipam"

// Defaults of the controller-manager's flags.
const (
	DefaultClusterCIDR      = "10.244.0.0/16"
	DefaultNodeCIDRMaskSize = 24
)

// ReasonCIDRNotAvailable is the Event recorded on a Node when the cluster
// CIDR has no free range left for it.
const ReasonCIDRNotAvailable = "CIDRNotAvailable"

// ErrCIDRFull is returned (and requeues the Node) when every range is taken.
var ErrCIDRFull = errors.New("no free pod CIDR left in the cluster CIDR")

// Options configure a Controller.
type Options struct {
	// ClusterCIDR is the range the nodes' pod CIDRs are cut from.
	ClusterCIDR netip.Prefix
	// NodeCIDRMaskSize is the prefix length of each node's pod CIDR.
	NodeCIDRMaskSize int
	// Recorder records the controller's Events; nil means none.
	Recorder record.EventRecorder
}

// Validate checks that the node ranges fit in the cluster range.
func (o Options) Validate() error {
	if !o.ClusterCIDR.IsValid() {
		return errors.New("a cluster CIDR is required")
	}
	if o.ClusterCIDR != o.ClusterCIDR.Masked() {
		return fmt.Errorf("cluster CIDR %s has host bits set (did you mean %s?)", o.ClusterCIDR, o.ClusterCIDR.Masked())
	}
	bits := o.ClusterCIDR.Addr().BitLen()
	if o.NodeCIDRMaskSize < o.ClusterCIDR.Bits() || o.NodeCIDRMaskSize > bits-2 {
		return fmt.Errorf("node CIDR mask size %d must be between the cluster CIDR's %d and %d", o.NodeCIDRMaskSize, o.ClusterCIDR.Bits(), bits-2)
	}
	if o.NodeCIDRMaskSize-o.ClusterCIDR.Bits() > 30 {
		return fmt.Errorf("node CIDR mask size %d cuts %s into more than 2^30 ranges", o.NodeCIDRMaskSize, o.ClusterCIDR)
	}
	return nil
}

// Client is what the controller asks of the API server; *typed.Clientset
// satisfies it.
type Client interface {
	CoreV1() typed.CoreV1
}

// Controller allocates the nodes' pod CIDRs. Its keys are Node names.
//
// What is taken is read from the Nodes themselves (the lister) on every
// allocation, plus the ranges this controller has written that its cache
// has not shown yet: a restarted controller therefore never hands out a
// range twice, and a deleted Node's range is free again as soon as the
// Node is gone from the cache.
type Controller struct {
	*controller.Controller
	client Client
	opts   Options
	nodes  cache.Lister[*corev1.Node]

	mu sync.Mutex
	// pending are ranges written to a Node that the lister may not show
	// yet, by Node name.
	pending map[string]netip.Prefix
}

// New returns a node IPAM controller working through client, fed by the
// informers of factory.
func New(client Client, factory *informers.SharedInformerFactory, opts Options) (*Controller, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("node IPAM controller: %w", err)
	}
	c := &Controller{client: client, opts: opts, pending: map[string]netip.Prefix{}}
	c.Controller = controller.New(Name, c.sync)
	nodes := controller.Informer(c.Controller, factory, informers.Nodes)
	c.nodes = nodes.Lister()
	controller.Watch(c, nodes, controller.Handler[*corev1.Node]{
		Add:    controller.KeyOf[*corev1.Node],
		Update: func(_, n *corev1.Node) []string { return controller.KeyOf(n) },
		// A freed range may be what a waiting Node needs.
		Delete: func(n *corev1.Node) []string { return append(controller.KeyOf(n), c.waiting()...) },
	})
	return c, c.Err()
}

// waiting lists the Nodes still without a pod CIDR.
func (c *Controller) waiting() []string {
	all, err := c.nodes.List(labels.Everything())
	if err != nil {
		return nil
	}
	var keys []string
	for _, n := range all {
		if n.Spec.PodCIDR == "" && n.DeletionTimestamp == nil {
			keys = append(keys, n.Name)
		}
	}
	return keys
}

// sync gives the Node a pod CIDR if it has none.
func (c *Controller) sync(ctx context.Context, name string) error {
	node, ok, err := controller.Get(ctx, c.nodes, name)
	if err != nil {
		return err
	}
	if !ok {
		c.mu.Lock()
		delete(c.pending, name)
		c.mu.Unlock()
		return nil
	}
	if node.Spec.PodCIDR != "" || len(node.Spec.PodCIDRs) > 0 {
		c.mu.Lock()
		if p, ok := c.pending[name]; ok && p.String() == node.Spec.PodCIDR {
			delete(c.pending, name)
		}
		c.mu.Unlock()
		return nil
	}
	if node.DeletionTimestamp != nil {
		return nil
	}
	cidr, err := c.allocate(name)
	if errors.Is(err, ErrCIDRFull) {
		if c.opts.Recorder != nil {
			c.opts.Recorder.Eventf(node, corev1.EventTypeNormal, ReasonCIDRNotAvailable, "Node %s status is now: %s", name, ReasonCIDRNotAvailable)
		}
		return fmt.Errorf("allocate a pod CIDR for node %s in %s: %w", name, c.opts.ClusterCIDR, err)
	}
	if err != nil {
		return err
	}
	update := node.DeepCopy()
	update.Spec.PodCIDR, update.Spec.PodCIDRs = cidr.String(), []string{cidr.String()}
	if _, err := c.client.CoreV1().Nodes().Update(ctx, update, metav1.UpdateOptions{}); err != nil {
		c.mu.Lock()
		if c.pending[name] == cidr {
			delete(c.pending, name)
		}
		c.mu.Unlock()
		return fmt.Errorf("set pod CIDR %s on node %s: %w", cidr, name, err)
	}
	klog.V(2).InfoS("Allocated a pod CIDR", "node", klog.KRef("", name), "podCIDR", cidr)
	return nil
}

// allocate reserves the first free range for the named Node.
func (c *Controller) allocate(name string) (netip.Prefix, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.pending[name]; ok {
		return p, nil
	}
	used := map[netip.Prefix]bool{}
	all, err := c.nodes.List(labels.Everything())
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("list nodes: %w", err)
	}
	for _, n := range all {
		for _, s := range append([]string{n.Spec.PodCIDR}, n.Spec.PodCIDRs...) {
			if p, err := netip.ParsePrefix(s); err == nil {
				used[p.Masked()] = true
			}
		}
	}
	for _, p := range c.pending {
		used[p] = true
	}
	n := 1 << (c.opts.NodeCIDRMaskSize - c.opts.ClusterCIDR.Bits())
	for i := range n {
		p := NthRange(c.opts.ClusterCIDR, c.opts.NodeCIDRMaskSize, i)
		if used[p] || overlapsUsed(p, used) {
			continue
		}
		c.pending[name] = p
		return p, nil
	}
	return netip.Prefix{}, ErrCIDRFull
}

// overlapsUsed reports whether p overlaps a used range of another size
// (a Node given a range by hand).
func overlapsUsed(p netip.Prefix, used map[netip.Prefix]bool) bool {
	for u := range used {
		if u.Bits() != p.Bits() && u.Overlaps(p) {
			return true
		}
	}
	return false
}

// NthRange returns the i-th range of prefix length bits inside cluster.
func NthRange(cluster netip.Prefix, bits, i int) netip.Prefix {
	base := new(big.Int).SetBytes(cluster.Addr().AsSlice())
	off := new(big.Int).Lsh(big.NewInt(int64(i)), uint(cluster.Addr().BitLen()-bits))
	b := new(big.Int).Add(base, off).FillBytes(make([]byte, cluster.Addr().BitLen()/8))
	addr, _ := netip.AddrFromSlice(b)
	return netip.PrefixFrom(addr, bits)
}
