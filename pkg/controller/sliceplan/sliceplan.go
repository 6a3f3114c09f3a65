// Package sliceplan brings the EndpointSlices a controller manages for one
// Service in step with the endpoints it wants them to list: Compute diffs
// the wanted groups of endpoints against the stored slices into a Plan of
// creations, updates and deletions, and Writer carries a Plan out. The
// endpoints controller (slices of the pods a Service selects) and the
// EndpointSlice mirroring controller (slices of a hand-written Endpoints
// object) share it; each computes its groups and the metadata of its
// slices, and tells its slices apart from the other's by their managed-by
// label.
package sliceplan

import (
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	discoveryv1 "kubecore.io/api/discovery/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// Group is the endpoints of one address type and port set: what one slice
// lists, or several when there are more than a slice holds.
type Group struct {
	AddressType discoveryv1.AddressType
	Ports       []discoveryv1.EndpointPort
	Endpoints   []discoveryv1.Endpoint
}

// Key identifies the group by its address type and ports, in their order.
func (g *Group) Key() string { return groupKey(g.AddressType, g.Ports) }

// KeyOf is the Key of the group the stored slice s lists.
func KeyOf(s *discoveryv1.EndpointSlice) string { return groupKey(s.AddressType, s.Ports) }

func groupKey(t discoveryv1.AddressType, ports []discoveryv1.EndpointPort) string {
	var b strings.Builder
	b.WriteString(string(t))
	for _, p := range ports {
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

// Meta is the metadata every slice of the set carries.
type Meta struct {
	Namespace string
	// GenerateName is the name prefix of new slices.
	GenerateName string
	// Labels are exactly the labels of every slice.
	Labels map[string]string
	// Annotations, when not nil, are exactly the annotations of every
	// slice; nil leaves the annotations of stored slices as they are.
	Annotations map[string]string
	// Owner is the controller reference of every slice. A stored slice
	// controlled by another object (an older one of the same name) is
	// deleted rather than taken over.
	Owner metav1.OwnerReference
}

// DefaultMaxEndpoints is how many endpoints a slice holds at most unless
// Options say otherwise: Kubernetes' default for the EndpointSlice
// controller.
const DefaultMaxEndpoints = 100

// Options tune Compute.
type Options struct {
	// MaxEndpoints is how many endpoints a slice holds at most (at most
	// 1000, what the API accepts); 0 is DefaultMaxEndpoints.
	MaxEndpoints int
	// ID identifies an endpoint across syncs, so that it stays in the
	// slice that lists it; nil is EndpointID.
	ID func(discoveryv1.Endpoint) string
}

// EndpointID identifies an endpoint by the object it stands for (by its
// first address when it names none).
func EndpointID(ep discoveryv1.Endpoint) string {
	if ep.TargetRef != nil {
		return strings.ToLower(ep.TargetRef.Kind) + "/" + ep.TargetRef.Name
	}
	if len(ep.Addresses) > 0 {
		return "address/" + ep.Addresses[0]
	}
	return ""
}

// Plan is the writes that bring a set of slices in step.
type Plan struct {
	Creates, Updates, Deletes []*discoveryv1.EndpointSlice
}

// Empty reports whether the plan writes nothing.
func (p Plan) Empty() bool { return len(p.Creates)+len(p.Updates)+len(p.Deletes) == 0 }

// Compute matches the wanted groups with the existing slices. An endpoint
// already in a slice of its group stays there (updated in place); the
// others fill the group's slices that have room, in name order, then new
// slices. A group without endpoints keeps one empty slice, a placeholder
// (callers that want none leave the group out). Slices left empty, of
// groups no longer wanted, or controlled by another owner are deleted.
// The existing slices are not modified: updates are copies.
func Compute(meta Meta, groups []*Group, existing []*discoveryv1.EndpointSlice, opts Options) Plan {
	if opts.ID == nil {
		opts.ID = EndpointID
	}
	if opts.MaxEndpoints <= 0 {
		opts.MaxEndpoints = DefaultMaxEndpoints
	}
	var plan Plan
	byGroup := map[string][]*discoveryv1.EndpointSlice{}
	for _, s := range existing {
		if ref := metav1.GetControllerOf(s); ref == nil || ref.UID != meta.Owner.UID {
			plan.Deletes = append(plan.Deletes, s)
			continue
		}
		byGroup[KeyOf(s)] = append(byGroup[KeyOf(s)], s)
	}
	owners := []metav1.OwnerReference{meta.Owner}
	for _, g := range groups {
		have := byGroup[g.Key()]
		delete(byGroup, g.Key())
		slices.SortFunc(have, func(a, b *discoveryv1.EndpointSlice) int { return strings.Compare(a.Name, b.Name) })
		fill := fillSlices(g.Endpoints, have, opts)
		for i, s := range have {
			switch {
			case len(fill[i]) == 0 && (len(g.Endpoints) > 0 || i > 0):
				plan.Deletes = append(plan.Deletes, s)
			case !sameEndpoints(s.Endpoints, fill[i]) || !maps.Equal(s.Labels, meta.Labels) ||
				(meta.Annotations != nil && !maps.Equal(s.Annotations, meta.Annotations)) ||
				!reflect.DeepEqual(s.OwnerReferences, owners):
				u := s.DeepCopy()
				u.Endpoints, u.Labels, u.OwnerReferences = fill[i], maps.Clone(meta.Labels), slices.Clone(owners)
				if meta.Annotations != nil {
					u.Annotations = maps.Clone(meta.Annotations)
				}
				plan.Updates = append(plan.Updates, u)
			}
		}
		for _, eps := range fill[len(have):] {
			plan.Creates = append(plan.Creates, &discoveryv1.EndpointSlice{
				ObjectMeta: metav1.ObjectMeta{
					GenerateName:    meta.GenerateName,
					Namespace:       meta.Namespace,
					Labels:          maps.Clone(meta.Labels),
					Annotations:     maps.Clone(meta.Annotations),
					OwnerReferences: slices.Clone(owners),
				},
				AddressType: g.AddressType,
				Endpoints:   eps,
				Ports:       g.Ports,
			})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(byGroup)) {
		plan.Deletes = append(plan.Deletes, byGroup[k]...)
	}
	return plan
}

// fillSlices distributes want over the slices have (and new ones after
// them): fill[i] is the endpoints of have[i], fill[len(have):] those of
// new slices. An endpoint stays in the slice that lists it; the rest, by
// address, fill the slices with room. With no endpoint wanted, the first
// slice (or a new one) is the group's placeholder.
func fillSlices(want []discoveryv1.Endpoint, have []*discoveryv1.EndpointSlice, opts Options) [][]discoveryv1.Endpoint {
	max := opts.MaxEndpoints
	byID := map[string]discoveryv1.Endpoint{}
	for _, ep := range want {
		byID[opts.ID(ep)] = ep
	}
	fill := make([][]discoveryv1.Endpoint, len(have))
	for i, s := range have {
		for _, cur := range s.Endpoints {
			id := opts.ID(cur)
			if ep, ok := byID[id]; ok && len(fill[i]) < max {
				fill[i] = append(fill[i], ep)
				delete(byID, id)
			}
		}
	}
	rest := slices.SortedFunc(maps.Values(byID), func(a, b discoveryv1.Endpoint) int {
		return cmp.Or(strings.Compare(firstAddress(a), firstAddress(b)), strings.Compare(opts.ID(a), opts.ID(b)))
	})
	for i := range fill {
		n := min(max-len(fill[i]), len(rest))
		if n > 0 {
			fill[i] = append(fill[i], rest[:n]...)
			rest = rest[n:]
		}
	}
	for len(rest) > 0 {
		n := min(max, len(rest))
		fill = append(fill, rest[:n])
		rest = rest[n:]
	}
	if len(want) == 0 && len(have) == 0 {
		fill = append(fill, nil)
	}
	return fill
}

func firstAddress(ep discoveryv1.Endpoint) string {
	if len(ep.Addresses) == 0 {
		return ""
	}
	return ep.Addresses[0]
}

func sameEndpoints(a, b []discoveryv1.Endpoint) bool {
	return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b)
}
