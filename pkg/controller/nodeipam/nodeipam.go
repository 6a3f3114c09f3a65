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
	"slices"
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
// What is taken is kept from the Nodes themselves (their informer's
// events), plus the ranges this controller has written that its cache
// has not shown yet: a restarted controller therefore never hands out a
// range twice, and a deleted Node's range is free again as soon as the
// Node is gone from the cache. The ranges are kept by index inside the
// cluster CIDR, so that an allocation costs O(1) amortized, not a pass
// over every Node (5,000 Nodes joining at once used to keep the
// controller-manager too busy to renew its Lease).
type Controller struct {
	*controller.Controller
	client Client
	opts   Options
	nodes  cache.Lister[*corev1.Node]

	mu sync.Mutex
	// pending are ranges written to a Node that the lister may not show
	// yet, by Node name.
	pending map[string]netip.Prefix
	// held are the index spans each Node holds (or was given, pending).
	held map[string][]span
	// taken counts the holders of each single node range; wide are the
	// spans of more than one range (set on a Node by hand), by Node.
	taken map[int]int
	wide  map[string][]span
	// free is a hint: no range below it is free.
	free int
}

// New returns a node IPAM controller working through client, fed by the
// informers of factory.
func New(client Client, factory *informers.SharedInformerFactory, opts Options) (*Controller, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("node IPAM controller: %w", err)
	}
	c := newController(client, opts)
	c.Controller = controller.New(Name, c.sync)
	nodes := controller.Informer(c.Controller, factory, informers.Nodes)
	c.nodes = nodes.Lister()
	controller.Watch(c, nodes, controller.Handler[*corev1.Node]{
		Add: func(n *corev1.Node) []string {
			c.observe(n.Name, n)
			return controller.KeyOf(n)
		},
		Update: func(_, n *corev1.Node) []string {
			c.observe(n.Name, n)
			return controller.KeyOf(n)
		},
		// A freed range may be what a waiting Node needs.
		Delete: func(n *corev1.Node) []string {
			c.observe(n.Name, nil)
			return append(controller.KeyOf(n), c.waiting()...)
		},
	})
	return c, c.Err()
}

func newController(client Client, opts Options) *Controller {
	return &Controller{client: client, opts: opts, pending: map[string]netip.Prefix{},
		held: map[string][]span{}, taken: map[int]int{}, wide: map[string][]span{}}
}

// observe records the ranges Node name holds as the cache shows it (nil:
// gone); a range given to it and not yet shown stays held.
func (c *Controller) observe(name string, n *corev1.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var spans []span
	if n != nil {
		for _, s := range append([]string{n.Spec.PodCIDR}, n.Spec.PodCIDRs...) {
			if p, err := netip.ParsePrefix(s); err == nil {
				spans = c.appendSpan(spans, p.Masked())
			}
		}
	}
	if p, ok := c.pending[name]; ok {
		if n == nil || (n.Spec.PodCIDR == "" && len(n.Spec.PodCIDRs) == 0) {
			spans = c.appendSpan(spans, p)
		} else {
			delete(c.pending, name)
		}
	}
	c.hold(name, spans)
}

// hold replaces the spans Node name holds. Called with mu held.
func (c *Controller) hold(name string, spans []span) {
	for _, s := range c.held[name] {
		if s.first == s.last {
			if c.taken[s.first]--; c.taken[s.first] <= 0 {
				delete(c.taken, s.first)
			}
		}
		c.free = min(c.free, s.first)
	}
	delete(c.wide, name)
	delete(c.held, name)
	if len(spans) == 0 {
		return
	}
	c.held[name] = spans
	for _, s := range spans {
		if s.first == s.last {
			c.taken[s.first]++
		} else {
			c.wide[name] = append(c.wide[name], s)
		}
	}
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
		c.hold(name, nil)
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
		current, _, _ := controller.Get(ctx, c.nodes, name)
		c.observe(name, current)
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
	n := 1 << (c.opts.NodeCIDRMaskSize - c.opts.ClusterCIDR.Bits())
	i := c.free
	for i < n {
		if c.taken[i] > 0 {
			i++
			continue
		}
		if s, ok := c.wideSpanAt(i); ok {
			i = s.last + 1
			continue
		}
		break
	}
	c.free = i
	if i >= n {
		return netip.Prefix{}, ErrCIDRFull
	}
	p := NthRange(c.opts.ClusterCIDR, c.opts.NodeCIDRMaskSize, i)
	c.pending[name] = p
	c.hold(name, append(slices.Clone(c.held[name]), span{first: i, last: i}))
	return p, nil
}

// wideSpanAt returns a wide span holding index i.
func (c *Controller) wideSpanAt(i int) (span, bool) {
	for _, spans := range c.wide {
		for _, s := range spans {
			if s.first <= i && i <= s.last {
				return s, true
			}
		}
	}
	return span{}, false
}

// span is an inclusive run of node range indices within the cluster CIDR.
type span struct{ first, last int }

// appendSpan adds the node ranges p overlaps (p may be a Node's range, or
// one of another size set by hand) to spans.
func (c *Controller) appendSpan(spans []span, p netip.Prefix) []span {
	cluster := c.opts.ClusterCIDR.Masked()
	if p.Addr().BitLen() != cluster.Addr().BitLen() || !cluster.Overlaps(p) {
		return spans
	}
	bits := c.opts.NodeCIDRMaskSize
	if p.Bits() < cluster.Bits() {
		p = cluster // it holds the whole cluster range
	}
	first := rangeIndex(cluster, bits, p.Addr())
	last := first
	if p.Bits() < bits {
		last = first + 1<<(bits-p.Bits()) - 1
	}
	return append(spans, span{first: first, last: last})
}

// rangeIndex is the index of the node range of prefix length bits that
// holds addr, an address inside cluster.
func rangeIndex(cluster netip.Prefix, bits int, addr netip.Addr) int {
	off := new(big.Int).Sub(new(big.Int).SetBytes(addr.AsSlice()), new(big.Int).SetBytes(cluster.Addr().AsSlice()))
	return int(off.Rsh(off, uint(addr.BitLen()-bits)).Int64())
}

// NthRange returns the i-th range of prefix length bits inside cluster.
func NthRange(cluster netip.Prefix, bits, i int) netip.Prefix {
	base := new(big.Int).SetBytes(cluster.Addr().AsSlice())
	off := new(big.Int).Lsh(big.NewInt(int64(i)), uint(cluster.Addr().BitLen()-bits))
	b := new(big.Int).Add(base, off).FillBytes(make([]byte, cluster.Addr().BitLen()/8))
	addr, _ := netip.AddrFromSlice(b)
	return netip.PrefixFrom(addr, bits)
}
