// Package endpoints is the endpoints controller: for every Service with a
// selector it writes the Endpoints object and the EndpointSlices that list
// the pods it selects, both from one computation of what each pod serves
// (its address, the service's ports resolved to its target ports, whether
// it is ready or terminating).
package endpoints

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"reflect"
	"slices"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/util/intstr"
	"kubecore.io/client/controller"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/controller/podcontrol"
	"kubecore.io/kubecore/pkg/controller/sliceplan"
)

// Name is the controller's name in the controller-manager and its queue.
const Name = "endpoints"

// Client is what the controller asks of the API server; *typed.Clientset
// satisfies it.
type Client interface {
	CoreV1() typed.CoreV1
	DiscoveryV1() typed.DiscoveryV1
}

// Controller keeps Endpoints and EndpointSlices in step with Services and
// their pods. Its keys are "namespace/name" of services.
type Controller struct {
	*controller.Controller
	client    Client
	services  cache.Lister[*corev1.Service]
	pods      cache.Lister[*corev1.Pod]
	endpoints cache.Lister[*corev1.Endpoints]
	slices    cache.Lister[*discoveryv1.EndpointSlice]
	// writer writes the slices and holds, per service key, those created
	// but not yet seen by the informer.
	writer *sliceplan.Writer
}

// New returns a controller working through client, fed by the informers
// of factory.
func New(client Client, factory *informers.SharedInformerFactory) (*Controller, error) {
	c := &Controller{client: client, writer: sliceplan.NewWriter(sliceplan.SlicesOf(client))}
	c.Controller = controller.New(Name, c.sync)
	services := controller.Informer(c.Controller, factory, informers.Services)
	pods := controller.Informer(c.Controller, factory, informers.Pods)
	endpoints := controller.Informer(c.Controller, factory, informers.Endpoints)
	endpointSlices := controller.Informer(c.Controller, factory, informers.EndpointSlices)
	c.services, c.pods, c.endpoints, c.slices = services.Lister(), pods.Lister(), endpoints.Lister(), endpointSlices.Lister()
	controller.Watch(c, services, controller.ObjectKeys[*corev1.Service]())
	controller.Watch(c, pods, controller.Handler[*corev1.Pod]{
		Add: c.servicesOf,
		Update: func(old, p *corev1.Pod) []string {
			keys := c.servicesOf(p)
			if !maps.Equal(old.Labels, p.Labels) {
				keys = append(keys, c.servicesOf(old)...)
			}
			return keys
		},
		Delete: c.servicesOf,
	})
	// An Endpoints object of a service changed or deleted by someone else
	// is put back. One without a service is someone else's: as in
	// Kubernetes, changing it does not make the controller delete it.
	controller.Watch(c, endpoints, controller.Handler[*corev1.Endpoints]{
		Update: func(_, ep *corev1.Endpoints) []string {
			if _, err := c.services.Namespaced(ep.Namespace).Get(ep.Name); err != nil {
				return nil
			}
			return controller.KeyOf(ep)
		},
		Delete: controller.KeyOf[*corev1.Endpoints],
	})
	// So are our slices; their creations are counted off as they appear.
	controller.Watch(c, endpointSlices, c.writer.Handler(ManagedBy))
	return c, c.Err()
}

// servicesOf returns the keys of the services of pod's namespace that
// select it.
func (c *Controller) servicesOf(pod *corev1.Pod) []string {
	services, err := c.services.Namespaced(pod.Namespace).List(nil)
	if err != nil {
		return nil
	}
	set := labels.Set(pod.Labels)
	var keys []string
	for _, s := range services {
		if s.Spec.Selector != nil && labels.SelectorFromSet(s.Spec.Selector).Matches(set) {
			keys = append(keys, cache.ObjectKey(s.Namespace, s.Name))
		}
	}
	return keys
}

// sync writes the Endpoints and EndpointSlices of the service key, or
// deletes them when the service is gone. Services without a selector are
// left to their owners, who write their Endpoints by hand.
func (c *Controller) sync(ctx context.Context, key string) error {
	namespace, name, _ := strings.Cut(key, "/")
	svc, err := c.services.Namespaced(namespace).Get(name)
	if apierrors.IsNotFound(err) {
		c.writer.Forget(key)
		err := c.client.CoreV1().Endpoints(namespace).Delete(ctx, name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			err = fmt.Errorf("delete the endpoints of %s: %w", key, err)
		} else {
			err = nil
		}
		return errors.Join(err, c.deleteSlices(ctx, namespace, name))
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
	bs := backends(svc, pods)
	return errors.Join(c.syncEndpoints(ctx, svc, bs), c.syncSlices(ctx, key, svc, bs))
}

// syncEndpoints writes the Endpoints of svc.
func (c *Controller) syncEndpoints(ctx context.Context, svc *corev1.Service, bs []backend) error {
	want := &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{Namespace: svc.Namespace, Name: svc.Name, Labels: endpointsLabels(svc)},
		Subsets:    subsets(svc, bs),
	}
	cur, err := c.endpoints.Namespaced(svc.Namespace).Get(svc.Name)
	switch {
	case apierrors.IsNotFound(err):
		_, err = c.client.CoreV1().Endpoints(svc.Namespace).Create(ctx, want, metav1.CreateOptions{})
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
		_, err = c.client.CoreV1().Endpoints(svc.Namespace).Update(ctx, update, metav1.UpdateOptions{})
	}
	if err != nil {
		return fmt.Errorf("write the endpoints of %s/%s: %w", svc.Namespace, svc.Name, err)
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

// backend is one pod selected by a Service as its endpoints see it,
// computed once for the Endpoints and the EndpointSlices.
type backend struct {
	pod *corev1.Pod
	// ports are the service's ports as the pod serves them, by name.
	ports []corev1.EndpointPort
	// serving: the pod is ready; terminating: it is being deleted.
	serving, terminating bool
}

// backends returns the pods of svc that can serve it: those with an IP
// that have not finished and serve at least one of its ports (when it has
// any). Pods being deleted are kept, marked terminating.
func backends(svc *corev1.Service, pods []*corev1.Pod) []backend {
	var out []backend
	for _, pod := range pods {
		if len(podIPs(pod)) == 0 || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
			continue
		}
		ports := resolvePorts(svc, pod)
		if len(ports) == 0 && len(svc.Spec.Ports) > 0 {
			continue
		}
		out = append(out, backend{pod: pod, ports: ports, serving: podcontrol.IsPodReady(pod), terminating: pod.DeletionTimestamp != nil})
	}
	return out
}

// serviceFamilies are the address families of svc's endpoints: its IP
// families, else its cluster IP's, else IPv4.
func serviceFamilies(svc *corev1.Service) []corev1.IPFamily {
	if len(svc.Spec.IPFamilies) > 0 {
		return svc.Spec.IPFamilies
	}
	if ip := net.ParseIP(svc.Spec.ClusterIP); ip != nil && ip.To4() == nil {
		return []corev1.IPFamily{corev1.IPv6Protocol}
	}
	return []corev1.IPFamily{corev1.IPv4Protocol}
}

func podIPs(pod *corev1.Pod) []string {
	var out []string
	for _, ip := range pod.Status.PodIPs {
		out = append(out, ip.IP)
	}
	if len(out) == 0 && pod.Status.PodIP != "" {
		out = append(out, pod.Status.PodIP)
	}
	return out
}

// podIP is pod's address of family, "" when it has none.
func podIP(pod *corev1.Pod, family corev1.IPFamily) string {
	for _, s := range podIPs(pod) {
		if ip := net.ParseIP(s); ip != nil && (ip.To4() != nil) == (family == corev1.IPv4Protocol) {
			return s
		}
	}
	return ""
}

// subsets computes the endpoint subsets of svc from its backends, by their
// address of the service's first family: one subset per distinct set of
// resolved ports, addresses sorted by IP. Terminating pods are left out;
// pods that are not ready are listed as not ready; a service publishing
// not-ready addresses lists them all as ready, terminating ones included.
func subsets(svc *corev1.Service, bs []backend) []corev1.EndpointSubset {
	type group struct {
		ports           []corev1.EndpointPort
		ready, notReady []corev1.EndpointAddress
	}
	family := serviceFamilies(svc)[0]
	publish := svc.Spec.PublishNotReadyAddresses
	groups := map[string]*group{}
	for _, b := range bs {
		ip := podIP(b.pod, family)
		if ip == "" || (b.terminating && !publish) {
			continue
		}
		key := fmt.Sprint(b.ports)
		g := groups[key]
		if g == nil {
			g = &group{ports: b.ports}
			groups[key] = g
		}
		addr := corev1.EndpointAddress{IP: ip, Hostname: hostname(svc, b.pod), NodeName: nodeName(b.pod), TargetRef: podRef(b.pod)}
		if publish || b.serving {
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

func podRef(pod *corev1.Pod) *corev1.ObjectReference {
	return &corev1.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID}
}

func nodeName(pod *corev1.Pod) *string {
	if pod.Spec.NodeName == "" {
		return nil
	}
	node := pod.Spec.NodeName
	return &node
}

// hostname is the DNS name of pod under svc: its hostname, when it has one
// and its subdomain is the service.
func hostname(svc *corev1.Service, pod *corev1.Pod) string {
	if pod.Spec.Hostname != "" && pod.Spec.Subdomain == svc.Name && pod.Namespace == svc.Namespace {
		return pod.Spec.Hostname
	}
	return ""
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
