package endpoints

import (
	"context"
	"maps"
	"slices"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/controller/sliceplan"
)

const (
	// ManagedBy is the managed-by label of the slices this controller
	// writes: Kubernetes' EndpointSlice controller's, so that consumers
	// treat them alike. Slices managed by others are left alone.
	ManagedBy = "endpointslice-controller.k8s.io"
	// MaxEndpointsPerSlice is how many endpoints a slice holds at most,
	// Kubernetes' default.
	MaxEndpointsPerSlice = sliceplan.DefaultMaxEndpoints
)

// deleteSlices deletes the slices of the deleted service namespace/name
// (the garbage collector would too: the service owns them).
func (c *Controller) deleteSlices(ctx context.Context, namespace, name string) error {
	existing, err := sliceplan.List(c.slices, namespace, name, ManagedBy)
	if err != nil {
		return err
	}
	return c.writer.Apply(ctx, namespace, name, sliceplan.Plan{Deletes: existing})
}

// syncSlices makes the slices of svc list its backends: per address
// family and set of resolved ports, slices of at most MaxEndpointsPerSlice
// endpoints, each endpoint staying in the slice that holds it. A service
// without any gets one empty placeholder slice per family, as in
// Kubernetes.
func (c *Controller) syncSlices(ctx context.Context, key string, svc *corev1.Service, bs []backend) error {
	if !c.writer.Synced(key) {
		// The informer has not seen our last creations yet; their add
		// events queue key again.
		return nil
	}
	existing, err := sliceplan.List(c.slices, svc.Namespace, svc.Name, ManagedBy)
	if err != nil {
		return err
	}
	return c.writer.Apply(ctx, svc.Namespace, svc.Name, planSlices(svc, sliceGroups(svc, bs), existing))
}

// sliceGroups computes the groups of slice endpoints of svc, one per
// address family and resolved port set, in a stable order; with no
// endpoint at all, one empty group per family.
func sliceGroups(svc *corev1.Service, bs []backend) []*sliceplan.Group {
	byKey := map[string]*sliceplan.Group{}
	for _, family := range serviceFamilies(svc) {
		for _, b := range bs {
			ip := podIP(b.pod, family)
			if ip == "" {
				continue
			}
			g := &sliceplan.Group{AddressType: discoveryv1.AddressType(family), Ports: slicePorts(b.ports)}
			if have, ok := byKey[g.Key()]; ok {
				g = have
			} else {
				byKey[g.Key()] = g
			}
			g.Endpoints = append(g.Endpoints, sliceEndpoint(svc, b, ip))
		}
	}
	if len(byKey) == 0 {
		for _, family := range serviceFamilies(svc) {
			g := &sliceplan.Group{AddressType: discoveryv1.AddressType(family)}
			byKey[g.Key()] = g
		}
	}
	out := make([]*sliceplan.Group, 0, len(byKey))
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		out = append(out, byKey[k])
	}
	return out
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

// planSlices is the writes that make the slices existing of svc list
// groups: slices owned by svc and named after it (see sliceplan.Compute).
func planSlices(svc *corev1.Service, groups []*sliceplan.Group, existing []*discoveryv1.EndpointSlice) sliceplan.Plan {
	meta := sliceplan.Meta{
		Namespace:    svc.Namespace,
		GenerateName: svc.Name + "-",
		Labels:       sliceLabels(svc),
		Owner:        *metav1.NewControllerRef(svc, corev1.SchemeGroupVersion.WithKind("Service")),
	}
	return sliceplan.Compute(meta, groups, existing, sliceplan.Options{MaxEndpoints: MaxEndpointsPerSlice})
}
