package endpoints

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
)

const (
	// ManagedBy is the managed-by label of the slices this controller
	// writes: Kubernetes' EndpointSlice controller's, so that consumers
	// treat them alike. Slices managed by others are left alone.
	ManagedBy = "endpointslice-controller.k8s.io"
	// MaxEndpointsPerSlice is how many endpoints a slice holds at most,
	// Kubernetes' default.
	MaxEndpointsPerSlice = 100
)

// managedSliceKey is the key of the service whose slice s is, when this
// controller manages it.
func managedSliceKey(s *discoveryv1.EndpointSlice) (string, bool) {
	name := s.Labels[discoveryv1.LabelServiceName]
	if name == "" || s.Labels[discoveryv1.LabelManagedBy] != ManagedBy {
		return "", false
	}
	return s.Namespace + "/" + name, true
}

// managedSlices lists the slices this controller manages for the service
// namespace/name.
func (c *Controller) managedSlices(namespace, name string) ([]*discoveryv1.EndpointSlice, error) {
	return c.slices.Namespaced(namespace).List(labels.SelectorFromSet(labels.Set{
		discoveryv1.LabelServiceName: name,
		discoveryv1.LabelManagedBy:   ManagedBy,
	}))
}

// deleteSlices deletes the slices of the deleted service namespace/name
// (the garbage collector would too: the service owns them).
func (c *Controller) deleteSlices(ctx context.Context, namespace, name string) error {
	existing, err := c.managedSlices(namespace, name)
	if err != nil {
		return err
	}
	return c.writeSlices(ctx, namespace, slicePlan{deletes: existing})
}

// syncSlices makes the slices of svc list its backends: per address
// family and set of resolved ports, slices of at most MaxEndpointsPerSlice
// endpoints, each endpoint staying in the slice that holds it. A service
// without any gets one empty placeholder slice per family, as in
// Kubernetes.
func (c *Controller) syncSlices(ctx context.Context, key string, svc *corev1.Service, bs []backend) error {
	if !c.sliceCreations.SatisfiedExpectations(key) {
		// The informer has not seen our last creations yet; their add
		// events queue key again.
		return nil
	}
	existing, err := c.managedSlices(svc.Namespace, svc.Name)
	if err != nil {
		return err
	}
	plan := planSlices(svc, sliceGroups(svc, bs), existing)
	c.sliceCreations.ExpectCreations(key, len(plan.creates))
	return c.writeSlices(ctx, svc.Namespace, plan)
}

// writeSlices carries out plan: creations and updates first, so that no
// endpoint is missing meanwhile, then deletions.
func (c *Controller) writeSlices(ctx context.Context, namespace string, plan slicePlan) error {
	client := c.client.DiscoveryV1().EndpointSlices(namespace)
	var errs []error
	for _, s := range plan.creates {
		_, err := client.Create(ctx, s, metav1.CreateOptions{})
		if err != nil {
			c.sliceCreations.CreationObserved(namespace + "/" + s.Labels[discoveryv1.LabelServiceName])
			if !apierrors.IsForbidden(err) { // Forbidden: the namespace is terminating.
				errs = append(errs, fmt.Errorf("create an endpoint slice of %s/%s: %w", namespace, s.Labels[discoveryv1.LabelServiceName], err))
			}
		}
	}
	for _, s := range plan.updates {
		if _, err := client.Update(ctx, s, metav1.UpdateOptions{}); err != nil {
			errs = append(errs, fmt.Errorf("update endpoint slice %s/%s: %w", namespace, s.Name, err))
		}
	}
	for _, s := range plan.deletes {
		err := client.Delete(ctx, s.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &s.UID}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			errs = append(errs, fmt.Errorf("delete endpoint slice %s/%s: %w", namespace, s.Name, err))
		}
	}
	return errors.Join(errs...)
}

// sliceGroup is the endpoints of one address type and port set.
type sliceGroup struct {
	addressType discoveryv1.AddressType
	ports       []discoveryv1.EndpointPort
	endpoints   []discoveryv1.Endpoint
}

// sliceGroups computes the groups of slice endpoints of svc, one per
// address family and resolved port set, in a stable order; with no
// endpoint at all, one empty group per family.
func sliceGroups(svc *corev1.Service, bs []backend) []*sliceGroup {
	byKey := map[string]*sliceGroup{}
	for _, family := range serviceFamilies(svc) {
		for _, b := range bs {
			ip := podIP(b.pod, family)
			if ip == "" {
				continue
			}
			g := &sliceGroup{addressType: discoveryv1.AddressType(family), ports: slicePorts(b.ports)}
			if have, ok := byKey[g.key()]; ok {
				g = have
			} else {
				byKey[g.key()] = g
			}
			g.endpoints = append(g.endpoints, sliceEndpoint(svc, b, ip))
		}
	}
	if len(byKey) == 0 {
		for _, family := range serviceFamilies(svc) {
			g := &sliceGroup{addressType: discoveryv1.AddressType(family)}
			byKey[g.key()] = g
		}
	}
	out := make([]*sliceGroup, 0, len(byKey))
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		out = append(out, byKey[k])
	}
	return out
}

// key identifies the group of a slice by its address type and ports.
func (g *sliceGroup) key() string {
	var b strings.Builder
	b.WriteString(string(g.addressType))
	for _, p := range g.ports {
		fmt.Fprintf(&b, "|%s/%s/%s/%s", deref(p.Name), deref(p.Protocol), derefPort(p.Port), deref(p.AppProtocol))
	}
	return b.String()
}

func deref[T ~string](p *T) string {
	if p == nil {
		return "<nil>"
	}
	return string(*p)
}

func derefPort(p *int32) string {
	if p == nil {
		return "<nil>"
	}
	return fmt.Sprint(*p)
}

// slicePorts converts resolved ports to a slice's, every field set as
// Kubernetes sets it.
func slicePorts(ports []corev1.EndpointPort) []discoveryv1.EndpointPort {
	var out []discoveryv1.EndpointPort
	for _, p := range ports {
		name, proto, port := p.Name, protocolOf(p.Protocol), p.Port
		out = append(out, discoveryv1.EndpointPort{Name: &name, Protocol: &proto, Port: &port, AppProtocol: p.AppProtocol})
	}
	return out
}

// sliceEndpoint is b's endpoint at ip. It is ready when serving and not
// terminating, or always when the service publishes not-ready addresses.
func sliceEndpoint(svc *corev1.Service, b backend, ip string) discoveryv1.Endpoint {
	ready := svc.Spec.PublishNotReadyAddresses || (b.serving && !b.terminating)
	serving, terminating := b.serving, b.terminating
	ep := discoveryv1.Endpoint{
		Addresses:  []string{ip},
		Conditions: discoveryv1.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating},
		TargetRef:  podRef(b.pod),
		NodeName:   nodeName(b.pod),
	}
	if h := hostname(svc, b.pod); h != "" {
		ep.Hostname = &h
	}
	return ep
}

// sliceLabels are the labels of svc's slices: the Endpoints' labels, the
// service's name and the manager's.
func sliceLabels(svc *corev1.Service) map[string]string {
	out := endpointsLabels(svc)
	if out == nil {
		out = map[string]string{}
	}
	out[discoveryv1.LabelServiceName] = svc.Name
	out[discoveryv1.LabelManagedBy] = ManagedBy
	return out
}

// slicePlan is the writes that bring a service's slices in step.
type slicePlan struct {
	creates, updates, deletes []*discoveryv1.EndpointSlice
}

// planSlices matches the wanted groups with the existing slices. An
// endpoint already in a slice of its group stays there (updated in
// place); the others fill the group's slices that have room, in name
// order, then new slices. Slices left empty, of groups no longer wanted,
// or owned by another service (an older one of the same name) are deleted.
func planSlices(svc *corev1.Service, groups []*sliceGroup, existing []*discoveryv1.EndpointSlice) slicePlan {
	var plan slicePlan
	owner := metav1.NewControllerRef(svc, corev1.SchemeGroupVersion.WithKind("Service"))
	lbls := sliceLabels(svc)
	byGroup := map[string][]*discoveryv1.EndpointSlice{}
	for _, s := range existing {
		if !metav1.IsControlledBy(s, svc) {
			plan.deletes = append(plan.deletes, s)
			continue
		}
		k := (&sliceGroup{addressType: s.AddressType, ports: s.Ports}).key()
		byGroup[k] = append(byGroup[k], s)
	}
	for _, g := range groups {
		have := byGroup[g.key()]
		delete(byGroup, g.key())
		slices.SortFunc(have, func(a, b *discoveryv1.EndpointSlice) int { return strings.Compare(a.Name, b.Name) })
		fill := fillSlices(g.endpoints, have)
		for i, s := range have {
			switch {
			case len(fill[i]) == 0 && (len(g.endpoints) > 0 || i > 0):
				plan.deletes = append(plan.deletes, s)
			case !sameEndpoints(s.Endpoints, fill[i]) || !maps.Equal(s.Labels, lbls) || !reflect.DeepEqual(s.OwnerReferences, []metav1.OwnerReference{*owner}):
				u := s.DeepCopy()
				u.Endpoints, u.Labels, u.OwnerReferences = fill[i], maps.Clone(lbls), []metav1.OwnerReference{*owner}
				plan.updates = append(plan.updates, u)
			}
		}
		for _, eps := range fill[len(have):] {
			plan.creates = append(plan.creates, &discoveryv1.EndpointSlice{
				ObjectMeta: metav1.ObjectMeta{
					GenerateName:    svc.Name + "-",
					Namespace:       svc.Namespace,
					Labels:          maps.Clone(lbls),
					OwnerReferences: []metav1.OwnerReference{*owner},
				},
				AddressType: g.addressType,
				Endpoints:   eps,
				Ports:       g.ports,
			})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(byGroup)) {
		plan.deletes = append(plan.deletes, byGroup[k]...)
	}
	return plan
}

// fillSlices distributes want over the slices have (and new ones after
// them): fill[i] is the endpoints of have[i], fill[len(have):] those of
// new slices. An endpoint stays in the slice that lists its pod; the rest,
// by address, fill the slices with room. With no endpoint wanted, the
// first slice (or a new one) is the group's placeholder.
func fillSlices(want []discoveryv1.Endpoint, have []*discoveryv1.EndpointSlice) [][]discoveryv1.Endpoint {
	byPod := map[string]discoveryv1.Endpoint{}
	for _, ep := range want {
		byPod[endpointID(ep)] = ep
	}
	fill := make([][]discoveryv1.Endpoint, len(have))
	for i, s := range have {
		for _, cur := range s.Endpoints {
			id := endpointID(cur)
			if ep, ok := byPod[id]; ok && len(fill[i]) < MaxEndpointsPerSlice {
				fill[i] = append(fill[i], ep)
				delete(byPod, id)
			}
		}
	}
	rest := slices.SortedFunc(maps.Values(byPod), func(a, b discoveryv1.Endpoint) int {
		return cmp.Or(strings.Compare(a.Addresses[0], b.Addresses[0]), strings.Compare(endpointID(a), endpointID(b)))
	})
	for i := range fill {
		n := min(MaxEndpointsPerSlice-len(fill[i]), len(rest))
		if n > 0 {
			fill[i] = append(fill[i], rest[:n]...)
			rest = rest[n:]
		}
	}
	for len(rest) > 0 {
		n := min(MaxEndpointsPerSlice, len(rest))
		fill = append(fill, rest[:n])
		rest = rest[n:]
	}
	if len(want) == 0 && len(have) == 0 {
		fill = append(fill, nil)
	}
	return fill
}

// endpointID identifies an endpoint by the pod it stands for (by its
// address when it names none).
func endpointID(ep discoveryv1.Endpoint) string {
	if ep.TargetRef != nil {
		return "pod/" + ep.TargetRef.Name
	}
	if len(ep.Addresses) > 0 {
		return "address/" + ep.Addresses[0]
	}
	return ""
}

func sameEndpoints(a, b []discoveryv1.Endpoint) bool {
	return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b)
}
