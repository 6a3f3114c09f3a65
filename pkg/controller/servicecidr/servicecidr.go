// Package servicecidr holds the ServiceCIDR controller: it marks every
// ServiceCIDR Ready and protects it with a finalizer, and lets a deleted
// one go only once no IPAddress depends on it (none inside its ranges
// that another live ServiceCIDR does not hold too), as Kubernetes'
// servicecidrs controller does.
package servicecidr

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"k8s.io/klog/v2"

	networkingv1 "kubecore.io/api/networking/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/controller"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/typed"
)

// Name is the controller's name in the controller-manager, as
// Kubernetes'.
const Name = "service-cidr-controller"

// Finalizer keeps a deleted ServiceCIDR while addresses depend on it.
const Finalizer = "networking.k8s.io/service-cidr-finalizer"

// DefaultDeletionGrace is how long a deleted ServiceCIDR keeps its
// finalizer even with no address in it, so that every API server has
// stopped handing out its addresses before it goes.
const DefaultDeletionGrace = 10 * time.Second

// The messages of the Ready condition, as Kubernetes writes them.
const (
	readyMessage       = "Kubernetes Service CIDR is ready"
	terminatingMessage = "There are still IPAddresses referencing the ServiceCIDR, please remove them or create a new ServiceCIDR"
)

// Client is what the controller asks of the API server; *typed.Clientset
// satisfies it.
type Client interface {
	NetworkingV1() typed.NetworkingV1
}

var _ Client = (*typed.Clientset)(nil)

// Options tune the controller; the zero value gives the defaults.
type Options struct {
	// DeletionGrace overrides DefaultDeletionGrace.
	DeletionGrace time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Controller keeps the Ready condition and the finalizer of
// ServiceCIDRs; its keys are their names.
type Controller struct {
	*controller.Controller
	client    Client
	cidrs     cache.Lister[*networkingv1.ServiceCIDR]
	addresses cache.Lister[*networkingv1.IPAddress]
	grace     time.Duration
	now       func() time.Time
}

// New returns the controller working through client, fed by the
// informers of factory.
func New(client Client, factory *informers.SharedInformerFactory, opts Options) (*Controller, error) {
	c := &Controller{client: client, grace: controller.OrDefault(opts.DeletionGrace, DefaultDeletionGrace), now: controller.OrNow(opts.Now)}
	c.Controller = controller.New(Name, c.sync)
	cidrs := controller.Informer(c.Controller, factory, informers.ServiceCIDRs)
	addresses := controller.Informer(c.Controller, factory, informers.IPAddresses)
	c.cidrs, c.addresses = cidrs.Lister(), addresses.Lister()
	// A ServiceCIDR that changes or goes may free the deleted ones it
	// covered.
	controller.Watch(c, cidrs, controller.Keys(func(sc *networkingv1.ServiceCIDR) []string {
		return append(c.deleting(), sc.Name)
	}))
	// An address that goes may free the deleted ServiceCIDRs holding it.
	controller.Watch(c, addresses, controller.Handler[*networkingv1.IPAddress]{Delete: func(*networkingv1.IPAddress) []string { return c.deleting() }})
	return c, c.Err()
}

// deleting are the names of the ServiceCIDRs being deleted.
func (c *Controller) deleting() []string {
	all, err := c.cidrs.List(nil)
	if err != nil {
		return nil
	}
	var names []string
	for _, sc := range all {
		if sc.DeletionTimestamp != nil {
			names = append(names, sc.Name)
		}
	}
	return names
}

// sync puts the finalizer and Ready=True on a live ServiceCIDR; on a
// deleted one it sets Ready=False while addresses depend on it, and
// removes the finalizer once none does and the grace has passed.
func (c *Controller) sync(ctx context.Context, name string) error {
	sc, ok, err := controller.Get(ctx, c.cidrs, name)
	if !ok || err != nil {
		return err
	}
	if sc.DeletionTimestamp == nil {
		if !slices.Contains(sc.Finalizers, Finalizer) {
			cp := sc.DeepCopy()
			cp.Finalizers = append(cp.Finalizers, Finalizer)
			if sc, err = c.update(ctx, cp, "add"); sc == nil || err != nil {
				return err
			}
		}
		return c.setReady(ctx, sc, metav1.ConditionTrue, "Ready", readyMessage)
	}
	if !slices.Contains(sc.Finalizers, Finalizer) {
		return nil
	}
	if ip, blocked := c.blockingAddress(sc); blocked {
		klog.FromContext(ctx).V(2).Info("ServiceCIDR deletion waits for an address", "serviceCIDR", sc.Name, "ip", ip)
		return c.setReady(ctx, sc, metav1.ConditionFalse, networkingv1.ServiceCIDRReasonTerminating, terminatingMessage)
	}
	if left := c.grace - c.now().Sub(sc.DeletionTimestamp.Time); left > 0 {
		c.Queue().AddAfter(name, left)
		return nil
	}
	cp := sc.DeepCopy()
	cp.Finalizers = slices.DeleteFunc(cp.Finalizers, func(f string) bool { return f == Finalizer })
	_, err = c.update(ctx, cp, "remove")
	return err
}

// blockingAddress finds an IPAddress of the Service allocator inside a
// deleted ServiceCIDR's ranges that no other live ServiceCIDR holds
// (addresses other managers made do not keep a ServiceCIDR, as in
// Kubernetes).
func (c *Controller) blockingAddress(sc *networkingv1.ServiceCIDR) (string, bool) {
	mine := prefixes(sc)
	all, err := c.cidrs.List(nil)
	if err != nil {
		return "", true
	}
	var others []netip.Prefix
	for _, o := range all {
		if o.Name != sc.Name && o.DeletionTimestamp == nil {
			others = append(others, prefixes(o)...)
		}
	}
	addrs, err := c.addresses.List(nil)
	if err != nil {
		return "", true
	}
	in := func(ps []netip.Prefix, ip netip.Addr) bool {
		return slices.ContainsFunc(ps, func(p netip.Prefix) bool { return p.Contains(ip) })
	}
	for _, a := range addrs {
		if a.Labels[networkingv1.LabelManagedBy] != networkingv1.ServiceIPAllocatorManager {
			continue
		}
		ip, err := netip.ParseAddr(a.Name)
		if err == nil && in(mine, ip) && !in(others, ip) {
			return a.Name, true
		}
	}
	return "", false
}

func prefixes(sc *networkingv1.ServiceCIDR) []netip.Prefix {
	var out []netip.Prefix
	for _, s := range sc.Spec.CIDRs {
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
		}
	}
	return out
}

// setReady writes the Ready condition, when it differs.
func (c *Controller) setReady(ctx context.Context, sc *networkingv1.ServiceCIDR, status metav1.ConditionStatus, reason, message string) error {
	i := slices.IndexFunc(sc.Status.Conditions, func(c metav1.Condition) bool { return c.Type == networkingv1.ServiceCIDRConditionReady })
	if i >= 0 && sc.Status.Conditions[i].Status == status && sc.Status.Conditions[i].Reason == reason && sc.Status.Conditions[i].Message == message {
		return nil
	}
	cp := sc.DeepCopy()
	cond := metav1.Condition{Type: networkingv1.ServiceCIDRConditionReady, Status: status, Reason: reason, Message: message,
		LastTransitionTime: metav1.NewTime(c.now().Truncate(time.Second))}
	if i >= 0 {
		if cp.Status.Conditions[i].Status == status {
			cond.LastTransitionTime = cp.Status.Conditions[i].LastTransitionTime
		}
		cp.Status.Conditions[i] = cond
	} else {
		cp.Status.Conditions = append(cp.Status.Conditions, cond)
	}
	_, err := c.client.NetworkingV1().ServiceCIDRs().UpdateStatus(ctx, cp, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("set the Ready condition of ServiceCIDR %s to %s: %w", sc.Name, status, err)
	}
	klog.FromContext(ctx).V(2).Info("Set the Ready condition", "serviceCIDR", sc.Name, "status", status, "reason", reason)
	return nil
}

// update writes a ServiceCIDR whose finalizers changed; it returns the
// stored object, nil when it is gone.
func (c *Controller) update(ctx context.Context, sc *networkingv1.ServiceCIDR, what string) (*networkingv1.ServiceCIDR, error) {
	out, err := c.client.NetworkingV1().ServiceCIDRs().Update(ctx, sc, metav1.UpdateOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s the finalizer of ServiceCIDR %s: %w", what, sc.Name, err)
	}
	klog.FromContext(ctx).V(2).Info("Updated the ServiceCIDR finalizer", "serviceCIDR", sc.Name, "action", what)
	return out, nil
}
