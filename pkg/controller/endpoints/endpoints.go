// Package endpoints is the endpoints controller: the Endpoints object of
// every Service with a selector lists the IPs of the pods it selects, ready
// ones under addresses and the others under notReadyAddresses, with the
// service's ports resolved to the pods' target ports.
package endpoints

import (
	"context"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/util/intstr"
	"kubecore.io/client/controller"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/typed"
	"kubecore.io/client/util/workqueue"

	"kubecore.io/kubecore/pkg/controller/podcontrol"
)

// Name is the controller's name in the controller-manager and its queue.
const Name = "endpoints"

// Controller keeps Endpoints in step with Services and their pods. Its
// keys are "namespace/name" of services.
type Controller struct {
	client    *typed.Clientset
	services  cache.Lister[*corev1.Service]
	pods      cache.Lister[*corev1.Pod]
	endpoints cache.Lister[*corev1.Endpoints]
	queue     workqueue.TypedRateLimitingInterface[string]
	synced    []func() bool
	runner    controller.Runner
}

// New returns a controller fed by the factory's informers.
func New(client *typed.Clientset, factory *informers.SharedInformerFactory) (*Controller, error) {
	services, err := informers.Services(factory)
	if err != nil {
		return nil, fmt.Errorf("endpoints controller: %w", err)
	}
	pods, err := informers.Pods(factory)
	if err != nil {
		return nil, fmt.Errorf("endpoints controller: %w", err)
	}
	endpoints, err := informers.For[*corev1.Endpoints](factory, corev1.SchemeGroupVersion.WithResource("endpoints"))
	if err != nil {
		return nil, fmt.Errorf("endpoints controller: %w", err)
	}
	c := &Controller{
		client:    client,
		services:  services.Lister(),
		pods:      pods.Lister(),
		endpoints: endpoints.Lister(),
		queue:     workqueue.NewTypedRateLimitingQueueWithConfig[string](nil, workqueue.TypedRateLimitingQueueConfig[string]{Name: Name}),
	}
	svcReg, err := services.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.Service]{
		AddFunc:    func(s *corev1.Service, _ bool) { c.queue.Add(cache.ObjectKey(s.Namespace, s.Name)) },
		UpdateFunc: func(_, s *corev1.Service) { c.queue.Add(cache.ObjectKey(s.Namespace, s.Name)) },
		DeleteFunc: func(s *corev1.Service) { c.queue.Add(cache.ObjectKey(s.Namespace, s.Name)) },
	})
	if err != nil {
		return nil, fmt.Errorf("endpoints controller: %w", err)
	}
	podReg, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.Pod]{
		AddFunc: func(p *corev1.Pod, _ bool) { c.enqueueServicesOf(p) },
		UpdateFunc: func(old, p *corev1.Pod) {
			c.enqueueServicesOf(p)
			if !maps.Equal(old.Labels, p.Labels) {
				c.enqueueServicesOf(old)
			}
		},
		DeleteFunc: func(p *corev1.Pod) { c.enqueueServicesOf(p) },
	})
	if err != nil {
		return nil, fmt.Errorf("endpoints controller: %w", err)
	}
	// An Endpoints object changed or deleted by someone else is put back.
	epReg, err := endpoints.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.Endpoints]{
		UpdateFunc: func(_, e *corev1.Endpoints) { c.queue.Add(cache.ObjectKey(e.Namespace, e.Name)) },
		DeleteFunc: func(e *corev1.Endpoints) { c.queue.Add(cache.ObjectKey(e.Namespace, e.Name)) },
	})
	if err != nil {
		return nil, fmt.Errorf("endpoints controller: %w", err)
	}
	c.synced = []func() bool{svcReg.HasSynced, podReg.HasSynced, epReg.HasSynced}
	return c, nil
}

// Run runs workers until ctx ends, once the informers have synced.
func (c *Controller) Run(ctx context.Context, workers int) error {
	return c.runner.Run(ctx, Name, workers, c.queue, c.sync, c.synced...)
}

// enqueueServicesOf queues the services of pod's namespace that select it.
func (c *Controller) enqueueServicesOf(pod *corev1.Pod) {
	services, err := c.services.Namespaced(pod.Namespace).List(nil)
	if err != nil {
		return
	}
	set := labels.Set(pod.Labels)
	for _, s := range services {
		if s.Spec.Selector != nil && labels.SelectorFromSet(s.Spec.Selector).Matches(set) {
			c.queue.Add(cache.ObjectKey(s.Namespace, s.Name))
		}
	}
}

// sync writes the Endpoints of the service key, or deletes them when the
// service is gone. Services without a selector are left to their owners,
// who write their Endpoints by hand.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, _ := strings.Cut(key, "/")
	svc, err := c.services.Namespaced(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		err := c.client.CoreV1().Endpoints(namespace).Delete(ctx, name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete the endpoints of %s: %w", key, err)
		}
		return nil
	}
	if err != nil {
		return err
	}
	if svc.Spec.Selector == nil || svc.DeletionTimestamp != nil {
		return nil
	}
	pods, err := c.pods.Namespaced(namespace).List(labels.SelectorFromSet(svc.Spec.Selector))
	if err != nil {
		return err
	}
	want := &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: endpointsLabels(svc)},
		Subsets:    subsets(svc, pods),
	}
	cur, err := c.endpoints.Namespaced(namespace).Get(name)
	switch {
	case apierrors.IsNotFound(err):
		_, err = c.client.CoreV1().Endpoints(namespace).Create(ctx, want, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) || apierrors.IsForbidden(err) {
			// Created meanwhile (the informer brings it back), or the
			// namespace is terminating.
			return nil
		}
	case err != nil:
		return err
	case reflect.DeepEqual(cur.Subsets, want.Subsets) && maps.Equal(cur.Labels, want.Labels):
		return nil
	default:
		update := cur.DeepCopy()
		update.Labels, update.Subsets = want.Labels, want.Subsets
		_, err = c.client.CoreV1().Endpoints(namespace).Update(ctx, update, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("write the endpoints of %s: %w", key, err)
	}
	return nil
}

// endpointsLabels are the service's labels, with the headless mark for a
// service without a cluster IP.
func endpointsLabels(svc *corev1.Service) map[string]string {
	out := maps.Clone(svc.Labels)
	if svc.Spec.ClusterIP == corev1.ClusterIPNone {
		if out == nil {
			out = map[string]string{}
		}
		out[corev1.IsHeadlessService] = ""
	}
	return out
}

// subsets computes the endpoint subsets of svc from the pods it selects:
// one subset per distinct set of resolved ports, addresses sorted by IP.
// Pods without an IP, finished or being deleted are left out; pods that
// are not ready are listed as not ready, unless the service publishes
// them anyway.
func subsets(svc *corev1.Service, pods []*corev1.Pod) []corev1.EndpointSubset {
	type group struct {
		ports           []corev1.EndpointPort
		ready, notReady []corev1.EndpointAddress
	}
	groups := map[string]*group{}
	for _, pod := range pods {
		if pod.Status.PodIP == "" || !podcontrol.IsPodActive(pod) {
			continue
		}
		ports := resolvePorts(svc, pod)
		if len(ports) == 0 && len(svc.Spec.Ports) > 0 {
			continue
		}
		key := fmt.Sprint(ports)
		g := groups[key]
		if g == nil {
			g = &group{ports: ports}
			groups[key] = g
		}
		addr := address(svc, pod)
		if svc.Spec.PublishNotReadyAddresses || podcontrol.IsPodReady(pod) {
			g.ready = append(g.ready, addr)
		} else {
			g.notReady = append(g.notReady, addr)
		}
	}
	var out []corev1.EndpointSubset
	for _, key := range slices.Sorted(maps.Keys(groups)) {
		g := groups[key]
		byIP := func(a, b corev1.EndpointAddress) int { return strings.Compare(a.IP, b.IP) }
		slices.SortFunc(g.ready, byIP)
		slices.SortFunc(g.notReady, byIP)
		out = append(out, corev1.EndpointSubset{Addresses: g.ready, NotReadyAddresses: g.notReady, Ports: g.ports})
	}
	return out
}

// address is pod's entry in the endpoints of svc.
func address(svc *corev1.Service, pod *corev1.Pod) corev1.EndpointAddress {
	addr := corev1.EndpointAddress{
		IP: pod.Status.PodIP,
		TargetRef: &corev1.ObjectReference{
			Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID,
		},
	}
	if pod.Spec.NodeName != "" {
		node := pod.Spec.NodeName
		addr.NodeName = &node
	}
	// A pod with a hostname in the service's subdomain gets a DNS name
	// under it.
	if pod.Spec.Hostname != "" && pod.Spec.Subdomain == svc.Name {
		addr.Hostname = pod.Spec.Hostname
	}
	return addr
}

// resolvePorts returns the service's ports as pod serves them, sorted by
// name; a port whose named target the pod does not declare is left out.
func resolvePorts(svc *corev1.Service, pod *corev1.Pod) []corev1.EndpointPort {
	var out []corev1.EndpointPort
	for _, sp := range svc.Spec.Ports {
		port, ok := targetPort(sp, pod)
		if !ok {
			continue
		}
		out = append(out, corev1.EndpointPort{Name: sp.Name, Port: port, Protocol: sp.Protocol, AppProtocol: sp.AppProtocol})
	}
	slices.SortFunc(out, func(a, b corev1.EndpointPort) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// targetPort is the pod's port number for the service port sp: targetPort
// as a number (the service port when unset), or the container port of
// that name and protocol.
func targetPort(sp corev1.ServicePort, pod *corev1.Pod) (int32, bool) {
	switch {
	case sp.TargetPort.Type == intstr.String && sp.TargetPort.StrVal != "":
		for _, c := range pod.Spec.Containers {
			for _, cp := range c.Ports {
				if cp.Name == sp.TargetPort.StrVal && protocolOf(cp.Protocol) == protocolOf(sp.Protocol) {
					return cp.ContainerPort, true
				}
			}
		}
		return 0, false
	case sp.TargetPort.Type == intstr.Int && sp.TargetPort.IntVal != 0:
		return sp.TargetPort.IntVal, true
	}
	return sp.Port, true
}

func protocolOf(p corev1.Protocol) corev1.Protocol {
	if p == "" {
		return corev1.ProtocolTCP
	}
	return p
}
