package sliceplan

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
)

func endpoint(ip string) discoveryv1.Endpoint {
	ready := true
	return discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}}
}

func testMeta(annotations map[string]string) Meta {
	yes := true
	return Meta{
		Namespace:    "ns",
		GenerateName: "web-",
		Labels:       map[string]string{discoveryv1.LabelServiceName: "web", discoveryv1.LabelManagedBy: "test"},
		Annotations:  annotations,
		Owner:        metav1.OwnerReference{APIVersion: "v1", Kind: "Endpoints", Name: "web", UID: "owner-uid", Controller: &yes, BlockOwnerDeletion: &yes},
	}
}

func group(ips ...string) *Group {
	port, name, proto := int32(80), "http", corev1.ProtocolTCP
	g := &Group{AddressType: discoveryv1.AddressTypeIPv4, Ports: []discoveryv1.EndpointPort{{Name: &name, Port: &port, Protocol: &proto}}}
	for _, ip := range ips {
		g.Endpoints = append(g.Endpoints, endpoint(ip))
	}
	return g
}

// stored turns the creations of plan into stored slices named web-0, ...
func stored(plan Plan) []*discoveryv1.EndpointSlice {
	var out []*discoveryv1.EndpointSlice
	for i, s := range plan.Creates {
		s = s.DeepCopy()
		s.Name, s.UID, s.ResourceVersion = fmt.Sprintf("web-%d", i), types.UID(fmt.Sprintf("uid-%d", i)), "3"
		out = append(out, s)
	}
	return out
}

func TestComputeMeta(t *testing.T) {
	meta := testMeta(map[string]string{"note": "a"})
	p := Compute(meta, []*Group{group("10.0.0.1")}, nil, Options{})
	if len(p.Creates) != 1 || len(p.Updates)+len(p.Deletes) != 0 {
		t.Fatalf("plan %+v, want one creation", p)
	}
	s := p.Creates[0]
	if s.GenerateName != "web-" || s.Namespace != "ns" || !reflect.DeepEqual(s.Labels, meta.Labels) || !reflect.DeepEqual(s.Annotations, meta.Annotations) ||
		!reflect.DeepEqual(s.OwnerReferences, []metav1.OwnerReference{meta.Owner}) {
		t.Errorf("meta %+v", s.ObjectMeta)
	}
	// The slice does not share the caller's maps.
	meta.Labels["x"] = "y"
	if _, ok := s.Labels["x"]; ok {
		t.Errorf("labels shared with the caller")
	}

	existing := stored(p)
	if p := Compute(testMeta(map[string]string{"note": "a"}), []*Group{group("10.0.0.1")}, existing, Options{}); !p.Empty() {
		t.Errorf("up to date: %+v", p)
	}
	// Managed annotations are put back; unmanaged ones (nil) are left.
	existing[0].Annotations = map[string]string{"note": "b", "extra": "1"}
	p = Compute(testMeta(map[string]string{"note": "a"}), []*Group{group("10.0.0.1")}, existing, Options{})
	if len(p.Updates) != 1 || !reflect.DeepEqual(p.Updates[0].Annotations, map[string]string{"note": "a"}) || p.Updates[0].ResourceVersion != "3" {
		t.Errorf("annotations not put back: %+v", p)
	}
	if p := Compute(testMeta(nil), []*Group{group("10.0.0.1")}, existing, Options{}); !p.Empty() {
		t.Errorf("unmanaged annotations rewritten: %+v", p)
	}
	if existing[0].Annotations["note"] != "b" {
		t.Errorf("the stored slice was changed")
	}
	// A slice controlled by another owner goes, and one of its own comes.
	other := existing[0].DeepCopy()
	other.OwnerReferences[0].UID = "older-uid"
	p = Compute(testMeta(nil), []*Group{group("10.0.0.1")}, []*discoveryv1.EndpointSlice{other}, Options{})
	if len(p.Creates) != 1 || len(p.Deletes) != 1 || p.Deletes[0] != other {
		t.Errorf("foreign owner: %+v", p)
	}
}

func TestComputeMaxEndpointsAndIDs(t *testing.T) {
	var ips []string
	for i := range 5 {
		ips = append(ips, fmt.Sprintf("10.0.0.%d", i+1))
	}
	p := Compute(testMeta(nil), []*Group{group(ips...)}, nil, Options{MaxEndpoints: 2})
	var sizes []int
	for _, s := range p.Creates {
		sizes = append(sizes, len(s.Endpoints))
	}
	if !reflect.DeepEqual(sizes, []int{2, 2, 1}) {
		t.Fatalf("sizes %v, want [2 2 1]", sizes)
	}
	if p := Compute(testMeta(nil), []*Group{group(ips...)}, nil, Options{}); len(p.Creates) != 1 {
		t.Errorf("default max: %d slices", len(p.Creates))
	}

	// With an ID by address, a changed endpoint stays where it is; the
	// default ID is the same here (no target), so force a custom one that
	// ignores the last octet's readiness.
	existing := stored(p)
	g := group(ips...)
	notReady := false
	g.Endpoints[4].Conditions.Ready = &notReady
	p = Compute(testMeta(nil), []*Group{g}, existing, Options{MaxEndpoints: 2, ID: func(ep discoveryv1.Endpoint) string { return ep.Addresses[0] }})
	if len(p.Creates)+len(p.Deletes) != 0 || len(p.Updates) != 1 || p.Updates[0].Name != "web-2" || *p.Updates[0].Endpoints[0].Conditions.Ready {
		t.Errorf("in place: %+v", p)
	}
}

func TestComputeGroups(t *testing.T) {
	// A group without endpoints is a placeholder; a group no longer
	// wanted goes.
	p := Compute(testMeta(nil), []*Group{{AddressType: discoveryv1.AddressTypeIPv4}}, nil, Options{})
	if len(p.Creates) != 1 || p.Creates[0].Endpoints != nil {
		t.Fatalf("placeholder: %+v", p)
	}
	existing := stored(Compute(testMeta(nil), []*Group{group("10.0.0.1")}, nil, Options{}))
	if p := Compute(testMeta(nil), nil, existing, Options{}); len(p.Deletes) != 1 || len(p.Creates)+len(p.Updates) != 0 {
		t.Errorf("no groups: %+v", p)
	}
}

// fakeSlices records the writes of a Writer and fails those it is told to.
type fakeSlices struct {
	calls []string
	fail  map[string]error
}

func (f *fakeSlices) Create(_ context.Context, s *discoveryv1.EndpointSlice, _ metav1.CreateOptions) (*discoveryv1.EndpointSlice, error) {
	f.calls = append(f.calls, "create "+s.Namespace)
	return s, f.fail["create"]
}

func (f *fakeSlices) Update(_ context.Context, s *discoveryv1.EndpointSlice, _ metav1.UpdateOptions) (*discoveryv1.EndpointSlice, error) {
	f.calls = append(f.calls, "update "+s.Name)
	return s, f.fail["update"]
}

func (f *fakeSlices) Delete(_ context.Context, name string, opts metav1.DeleteOptions) error {
	if opts.Preconditions == nil || opts.Preconditions.UID == nil {
		return errors.New("delete without a UID precondition")
	}
	f.calls = append(f.calls, "delete "+name)
	return f.fail["delete"]
}

func TestWriterApply(t *testing.T) {
	ctx := context.Background()
	f := &fakeSlices{}
	w := NewWriter(func(string) SliceClient { return f })
	res := discoveryv1.Resource("endpointslices")
	create := Compute(testMeta(nil), []*Group{group("10.0.0.1")}, nil, Options{MaxEndpoints: 1})
	old := stored(create)[0]
	plan := Plan{Creates: create.Creates, Updates: []*discoveryv1.EndpointSlice{old}, Deletes: []*discoveryv1.EndpointSlice{old}}
	if err := w.Apply(ctx, "ns", "web", plan); err != nil {
		t.Fatal(err)
	}
	if want := []string{"create ns", "update web-0", "delete web-0"}; !reflect.DeepEqual(f.calls, want) {
		t.Errorf("calls %q, want %q", f.calls, want)
	}
	// Until the informer brings the creation, the key is not synced.
	if w.Synced("ns/web") {
		t.Errorf("synced before the creation was observed")
	}
	h := w.Handler("test")
	if keys := h.Add(create.Creates[0]); !reflect.DeepEqual(keys, []string{"ns/web"}) {
		t.Errorf("handler keys %q", keys)
	}
	if !w.Synced("ns/web") {
		t.Errorf("not synced after the creation was observed")
	}
	if keys := h.Add(&discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{discoveryv1.LabelServiceName: "web", discoveryv1.LabelManagedBy: "other"}}}); keys != nil {
		t.Errorf("a slice managed by another controller mapped to %q", keys)
	}

	// A failed creation is not waited for; Forbidden (terminating
	// namespace), NotFound and Conflict on deletion are not errors.
	f.fail = map[string]error{"create": apierrors.NewForbidden(res, "", errors.New("terminating")), "delete": apierrors.NewNotFound(res, "web-0")}
	if err := w.Apply(ctx, "ns", "web", plan); err != nil || !w.Synced("ns/web") {
		t.Errorf("forbidden/not found: err %v, synced %t", err, w.Synced("ns/web"))
	}
	f.fail = map[string]error{"create": apierrors.NewInternalError(errors.New("boom")), "update": apierrors.NewConflict(res, "web-0", errors.New("stale"))}
	err := w.Apply(ctx, "ns", "web", plan)
	if err == nil || !strings.Contains(err.Error(), "boom") || !strings.Contains(err.Error(), "stale") || !w.Synced("ns/web") {
		t.Errorf("errors: %v, synced %t", err, w.Synced("ns/web"))
	}
}
