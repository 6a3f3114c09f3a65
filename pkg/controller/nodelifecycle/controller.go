// Package nodelifecycle is the node lifecycle controller: nodes whose Lease
// goes stale turn Unknown and are tainted, and their pods are evicted.
package nodelifecycle

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	coordinationv1 "kubecore.io/api/coordination/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/client/controller"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/tools/record"
	"kubecore.io/client/typed"
	"kubecore.io/client/util/retry"

	"k8s.io/klog/v2"
)

// Name is the controller's name in the controller-manager.
const Name = "node-lifecycle"

// Defaults of Kubernetes' kube-controller-manager.
const (
	DefaultNodeMonitorGracePeriod = 40 * time.Second
	DefaultNodeMonitorPeriod      = 5 * time.Second
	DefaultEvictionRate           = 0.1
	DefaultSecondaryEvictionRate  = 0.01
)

// Options tune a Controller; the zero value gives the defaults.
type Options struct {
	// Recorder records the controller's Events; nil means none.
	Recorder record.EventRecorder
	// NodeMonitorGracePeriod is how long a node may go without renewing
	// its Lease (or posting status) before it is Unknown.
	NodeMonitorGracePeriod time.Duration
	// NodeMonitorPeriod is how often every node is checked.
	NodeMonitorPeriod time.Duration
	// EvictionRate is how many nodes a second may be tainted NoExecute;
	// SecondaryEvictionRate applies instead when most nodes of a large
	// cluster are down.
	EvictionRate          float64
	SecondaryEvictionRate float64
	// Now reads the clock; nil means time.Now.
	Now func() time.Time
}

func (o *Options) complete() {
	o.NodeMonitorGracePeriod = controller.OrDefault(o.NodeMonitorGracePeriod, DefaultNodeMonitorGracePeriod)
	o.NodeMonitorPeriod = controller.OrDefault(o.NodeMonitorPeriod, DefaultNodeMonitorPeriod)
	o.EvictionRate = controller.OrDefault(o.EvictionRate, DefaultEvictionRate)
	o.SecondaryEvictionRate = controller.OrDefault(o.SecondaryEvictionRate, DefaultSecondaryEvictionRate)
	o.Now = controller.OrNow(o.Now)
}

// Controller watches node heartbeats, taints unhealthy nodes and evicts
// the pods that do not tolerate the taints.
type Controller struct {
	*controller.Controller
	client   Client
	recorder record.EventRecorder
	opts     Options

	nodes  *cache.Informer[*corev1.Node]
	leases *cache.Informer[*coordinationv1.Lease]
	pods   *cache.Informer[*corev1.Pod]

	nodeQueue, podQueue *controller.Queue

	tainter        *limiter
	fullDisruption atomic.Bool

	mu     sync.Mutex
	probes map[string]*probe
}

// probe is the last heartbeat seen from a node, timed by the controller's
// own clock so that a node's clock skew does not matter.
type probe struct {
	renewTime     time.Time // the Lease's renewTime as last seen
	heartbeatTime time.Time // the Ready condition's lastHeartbeatTime as last seen
	observed      time.Time // when either last changed, by our clock
}

// podsByNode is the controller's index of pods by spec.nodeName.
const podsByNode = "nodelifecycle/spec.nodeName"

// Client is what the controller asks of the API server; *typed.Clientset
// satisfies it.
type Client interface {
	CoreV1() typed.CoreV1
}

// New returns a node lifecycle controller working through client, fed by
// the informers of factory.
func New(client Client, factory *informers.SharedInformerFactory, opts Options) (*Controller, error) {
	opts.complete()
	c := &Controller{
		client: client, recorder: record.OrDiscard(opts.Recorder), opts: opts,
		tainter: &limiter{qps: opts.EvictionRate},
		probes:  map[string]*probe{},
	}
	c.Controller = controller.New(Name, c.syncNode)
	c.nodeQueue = c.Queue()
	c.podQueue = c.AddQueue(Name+"-eviction", c.syncPod)
	c.AddLoop(controller.Every(opts.NodeMonitorPeriod, c.monitor))
	c.nodes = controller.Informer(c.Controller, factory, informers.Nodes)
	c.leases = controller.Informer(c.Controller, factory.Restricted(informers.WithNamespace(corev1.NamespaceNodeLease)), informers.Leases)
	c.pods = controller.Informer(c.Controller, factory, informers.Pods)
	if _, err := c.pods.GetIndexer().ByIndex(podsByNode, ""); err != nil {
		// Not indexed yet by another instance on the same informer.
		if err := c.pods.AddIndexers(map[string]cache.IndexFunc[*corev1.Pod]{
			podsByNode: func(p *corev1.Pod) ([]string, error) {
				if p.Spec.NodeName == "" {
					return nil, nil
				}
				return []string{p.Spec.NodeName}, nil
			},
		}); err != nil {
			return nil, fmt.Errorf("node lifecycle controller: %w", err)
		}
	}
	nodeName := func(obj metav1.Object) []string { return []string{obj.GetName()} }
	controller.Watch(c.nodeQueue, c.nodes, controller.Handler[*corev1.Node]{
		Add:    func(n *corev1.Node) []string { return nodeName(n) },
		Update: func(_, n *corev1.Node) []string { return nodeName(n) },
		Delete: func(n *corev1.Node) []string { c.forget(n.Name); return nil },
	})
	controller.Watch(c.nodeQueue, c.leases, controller.Handler[*coordinationv1.Lease]{
		Add:    func(l *coordinationv1.Lease) []string { return nodeName(l) },
		Update: func(_, l *coordinationv1.Lease) []string { return nodeName(l) },
	})
	// A change of a node's taints asks every pod on it whether it still
	// tolerates them.
	controller.Watch(c.podQueue, c.nodes, controller.Handler[*corev1.Node]{
		Update: func(old, n *corev1.Node) []string {
			if sameTaints(old.Spec.Taints, n.Spec.Taints) {
				return nil
			}
			pods, _ := c.pods.GetIndexer().ByIndex(podsByNode, n.Name)
			var keys []string
			for _, p := range pods {
				keys = append(keys, podKeys(p)...)
			}
			return keys
		},
	})
	controller.Watch(c.podQueue, c.pods, controller.Handler[*corev1.Pod]{
		Add: podKeys,
		Update: func(old, p *corev1.Pod) []string {
			if old.Spec.NodeName != p.Spec.NodeName || len(old.Spec.Tolerations) != len(p.Spec.Tolerations) {
				return podKeys(p)
			}
			return nil
		},
	})
	return c, c.Err()
}

// podKeys maps a pod bound to a node to its key.
func podKeys(p *corev1.Pod) []string {
	if p.Spec.NodeName == "" {
		return nil
	}
	return controller.KeyOf(p)
}

func (c *Controller) forget(node string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.probes, node)
}

// Runners return the counters of the node and eviction workers.
func (c *Controller) Runners() (nodes, evictions *controller.Runner) {
	r := c.Controller.Runners()
	return r[0], r[1]
}

// monitor checks every node (each NodeMonitorPeriod), so that silence is
// noticed: a node that stops sending sends no event.
func (c *Controller) monitor(ctx context.Context) {
	nodes, _ := c.nodes.Lister().List(labels.Everything())
	d := disruptionOf(nodes)
	if full := d == disruptionFull; full != c.fullDisruption.Swap(full) {
		klog.FromContext(ctx).Info("Cluster disruption changed: no eviction while every node is not ready", "allNodesNotReady", full)
	}
	c.tainter.setQPS(c.evictionRate(d, len(nodes)))
	for _, n := range nodes {
		c.nodeQueue.Add(n.Name)
	}
}

// evictionRate is the NoExecute tainting rate the cluster's health allows.
func (c *Controller) evictionRate(d disruption, nodes int) float64 {
	switch d {
	case disruptionFull:
		return 0
	case disruptionPartial:
		if nodes > largeClusterThreshold {
			return c.opts.SecondaryEvictionRate
		}
		return 0
	}
	return c.opts.EvictionRate
}

// lastHeard updates and returns when the node was last heard from.
func (c *Controller) lastHeard(node *corev1.Node, now time.Time) time.Time {
	var renew, heartbeat time.Time
	if l, err := c.leases.Lister().Namespaced(corev1.NamespaceNodeLease).Get(node.Name); err == nil && l.Spec.RenewTime != nil {
		renew = l.Spec.RenewTime.Time
	}
	if rc := readyCondition(node); rc != nil {
		heartbeat = rc.LastHeartbeatTime.Time
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.probes[node.Name]
	if !ok {
		p = &probe{renewTime: renew, heartbeatTime: heartbeat, observed: now}
		c.probes[node.Name] = p
	}
	if !renew.Equal(p.renewTime) || !heartbeat.Equal(p.heartbeatTime) {
		p.renewTime, p.heartbeatTime, p.observed = renew, heartbeat, now
	}
	return p.observed
}

// syncNode marks a silent node Unknown and keeps the node's taints in line
// with its Ready condition.
func (c *Controller) syncNode(ctx context.Context, name string) error {
	node, err := c.nodes.Lister().Get(name)
	if apierrors.IsNotFound(err) {
		c.forget(name)
		return nil
	}
	if err != nil {
		return err
	}
	now := c.opts.Now()
	logger := klog.FromContext(ctx).WithValues("node", name)
	silentFor := now.Sub(c.lastHeard(node, now))
	if silentFor > c.opts.NodeMonitorGracePeriod {
		cp := node.DeepCopy()
		if markUnknown(cp, now) {
			logger.V(2).Info("Node stopped posting status", "silentFor", silentFor.Round(time.Millisecond))
			updated, err := c.client.CoreV1().Nodes().UpdateStatus(ctx, cp, metav1.UpdateOptions{})
			if err != nil {
				return fmt.Errorf("mark node %s unknown: %w", name, err)
			}
			node = updated
			c.recorder.Event(node, corev1.EventTypeNormal, "NodeNotReady", fmt.Sprintf("Node %s status is now: NodeNotReady", name))
		}
	} else {
		c.nodeQueue.AddAfter(name, c.opts.NodeMonitorGracePeriod-silentFor+10*time.Millisecond)
	}
	return c.updateTaints(ctx, node, now)
}

// updateTaints writes the taints the node's Ready condition asks for;
// adding a NoExecute taint waits for the rate limiter.
func (c *Controller) updateTaints(ctx context.Context, node *corev1.Node, now time.Time) error {
	mode := noExecuteKeep
	want := desiredTaints(node, noExecuteAdd, now)
	if hasNoExecute(want) && !hasNoExecute(node.Spec.Taints) {
		if ok, wait := c.tainter.allow(now); ok {
			mode = noExecuteAdd
		} else {
			c.nodeQueue.AddAfter(node.Name, wait)
		}
	}
	if c.fullDisruption.Load() {
		mode = noExecuteNone
	}
	want = desiredTaints(node, mode, now)
	if sameTaints(want, node.Spec.Taints) {
		return nil
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := c.client.CoreV1().Nodes().Get(ctx, node.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		taints := desiredTaints(cur, mode, now)
		if sameTaints(taints, cur.Spec.Taints) {
			return nil
		}
		cur.Spec.Taints = taints
		_, err = c.client.CoreV1().Nodes().Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("update taints of node %s: %w", node.Name, err)
	}
	klog.FromContext(ctx).V(2).Info("Updated node taints", "node", node.Name, "ready", readyStatus(node), "noExecute", hasNoExecute(want))
	return nil
}
