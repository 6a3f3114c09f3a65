package service

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	networkingv1 "kubecore.io/api/networking/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// LeakGrace is how old an IPAddress held by no service must be before
// the repair deletes it: younger ones may belong to a service being
// created.
const LeakGrace = time.Minute

// portLeakRepairs is how many repairs in a row must find a node port
// held by no service before it is freed.
const portLeakRepairs = 2

// Repair makes the allocations agree with the stored services: a
// service's ClusterIP without its IPAddress gets one, an IPAddress of the
// range that no service holds (older than LeakGrace) is deleted, the
// node port bitmap gets the ports of every service, and a port no
// service holds for portLeakRepairs repairs in a row is freed. Two
// services holding one address are reported, not changed.
func (r *REST) Repair(ctx context.Context, now time.Time) error {
	store, err := r.ips.addresses()
	if err != nil {
		return err
	}
	// Read the allocations before the services: an allocation made
	// after these reads is never taken for a leak.
	ports, err := r.ports.snapshot(ctx)
	if err != nil {
		return fmt.Errorf("read the node port range: %w", err)
	}
	obj, err := store.List(ctx, &rest.ListOptions{})
	if err != nil {
		return fmt.Errorf("list IP addresses: %w", err)
	}
	addrs, ok := obj.(*networkingv1.IPAddressList)
	if !ok {
		return fmt.Errorf("list IP addresses: got %T", obj)
	}
	obj, err = r.Store.List(ctx, &rest.ListOptions{})
	if err != nil {
		return fmt.Errorf("list services: %w", err)
	}
	svcs, ok := obj.(*corev1.ServiceList)
	if !ok {
		return fmt.Errorf("list services: got %T", obj)
	}
	logger := klog.FromContext(ctx)
	covered, err := r.ips.covers(ctx)
	if err != nil {
		return err
	}

	holders := map[netip.Addr]owner{}
	heldPorts := map[int]bool{}
	for i := range svcs.Items {
		svc := &svcs.Items[i]
		for _, p := range svc.Spec.Ports {
			if p.NodePort != 0 {
				heldPorts[int(p.NodePort)] = true
			}
		}
		ip, err := netip.ParseAddr(svc.Spec.ClusterIP)
		if err != nil || !covered(ip) {
			continue
		}
		o := owner{svc.Namespace, svc.Name}
		if prev, dup := holders[ip]; dup {
			logger.Error(nil, "Two services hold one cluster IP", "ip", ip, "service", klog.KObj(svc), "other", klog.KRef(prev.namespace, prev.name))
			continue
		}
		holders[ip] = o
	}

	stored := map[netip.Addr]*networkingv1.IPAddress{}
	for i := range addrs.Items {
		a := &addrs.Items[i]
		ip, err := netip.ParseAddr(a.Name)
		if err != nil || !covered(ip) {
			continue
		}
		stored[ip] = a
		ref := a.Spec.ParentRef
		if ref == nil || ref.Group != "" || ref.Resource != "services" {
			continue // not a service's
		}
		if o, held := holders[ip]; held {
			if o.namespace != ref.Namespace || o.name != ref.Name {
				logger.Error(nil, "A cluster IP's IPAddress names another service", "ip", ip, "service", klog.KRef(o.namespace, o.name), "parent", klog.KRef(ref.Namespace, ref.Name))
			}
			continue
		}
		if now.Sub(a.CreationTimestamp.Time) < LeakGrace {
			continue
		}
		logger.V(2).Info("Free a leaked cluster IP", "ip", ip, "parent", klog.KRef(ref.Namespace, ref.Name))
		if err := r.ips.Release(ctx, a.Name, owner{ref.Namespace, ref.Name}); err != nil {
			return fmt.Errorf("free leaked cluster IP %s: %w", ip, err)
		}
	}
	for ip, o := range holders {
		if stored[ip] != nil {
			continue
		}
		logger.V(2).Info("Record a cluster IP without its IPAddress", "ip", ip, "service", klog.KRef(o.namespace, o.name))
		if _, err := store.Create(ctx, r.ips.object(ip, o), nil, &metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("record cluster IP %s: %w", ip, err)
		}
	}
	return r.repairPorts(ctx, ports, heldPorts)
}

// repairPorts sets the bits of the ports services hold and clears those
// found leaked often enough; snap is the bitmap read before the services.
func (r *REST) repairPorts(ctx context.Context, snap *rangeAllocation, held map[int]bool) error {
	a := r.ports
	r.leakMu.Lock()
	defer r.leakMu.Unlock()
	var free []int
	leaks := map[int]int{}
	if snap != nil {
		for i := range a.size {
			if port := a.base + i; snap.has(i) && !held[port] {
				leaks[port] = r.portLeaks[port] + 1
				if leaks[port] >= portLeakRepairs {
					free = append(free, port)
					delete(leaks, port)
				}
			}
		}
	}
	r.portLeaks = leaks
	missing := false
	for port := range held {
		if i := port - a.base; i >= 0 && i < a.size && (snap == nil || !snap.has(i)) {
			missing = true
		}
	}
	if len(free) == 0 && !missing {
		return nil
	}
	if len(free) > 0 {
		klog.FromContext(ctx).V(2).Info("Free leaked node ports", "ports", free)
	}
	return a.update(ctx, func(cur *rangeAllocation) error {
		for _, port := range free {
			cur.clear(port - a.base)
		}
		for port := range held {
			if i := port - a.base; i >= 0 && i < a.size {
				cur.set(i)
			}
		}
		return nil
	})
}
