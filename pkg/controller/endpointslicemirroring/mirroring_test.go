package endpointslicemirroring

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/tools/cache"

	"kubecore.io/kubecore/pkg/controller/sliceplan"
)

func ptr[T any](v T) *T { return &v }

func TestRepack(t *testing.T) {
	p80 := corev1.EndpointPort{Name: "a", Port: 80, Protocol: corev1.ProtocolTCP}
	p81 := corev1.EndpointPort{Name: "b", Port: 81}
	p81tcp := corev1.EndpointPort{Name: "b", Port: 81, Protocol: corev1.ProtocolTCP}
	p90 := corev1.EndpointPort{Name: "c", Port: 90, Protocol: corev1.ProtocolUDP}
	pod := func(ip, uid string) corev1.EndpointAddress {
		return corev1.EndpointAddress{IP: ip, TargetRef: &corev1.ObjectReference{Kind: "Pod", Name: uid, UID: types.UID(uid)}}
	}
	got := repack([]corev1.EndpointSubset{
		// Two subsets with the same address on different ports make one
		// subset with both ports.
		{Addresses: []corev1.EndpointAddress{{IP: "10.0.0.1"}}, Ports: []corev1.EndpointPort{p80}},
		{Addresses: []corev1.EndpointAddress{{IP: "10.0.0.1"}}, Ports: []corev1.EndpointPort{p81}},
		// Not ready wins over ready for the same port; the same IP
		// naming two objects is two addresses; a duplicate is listed
		// once, the leading zeros read as decimal.
		{Addresses: []corev1.EndpointAddress{pod("10.0.0.3", "x"), pod("10.0.0.3", "y"), {IP: "10.0.0.2"}}, Ports: []corev1.EndpointPort{p90}},
		{NotReadyAddresses: []corev1.EndpointAddress{{IP: "010.000.000.002"}}, Ports: []corev1.EndpointPort{p90}},
		// No ports: kept, without ports.
		{Addresses: []corev1.EndpointAddress{{IP: "10.0.0.9"}}},
		// No addresses: a subset without addresses.
		{Ports: []corev1.EndpointPort{{Name: "d", Port: 100, Protocol: corev1.ProtocolTCP}}},
	})
	want := []corev1.EndpointSubset{
		{Ports: []corev1.EndpointPort{{Name: "d", Port: 100, Protocol: corev1.ProtocolTCP}}},
		{Addresses: []corev1.EndpointAddress{{IP: "10.0.0.1"}}, Ports: []corev1.EndpointPort{p80, p81tcp}},
		{Addresses: []corev1.EndpointAddress{pod("10.0.0.3", "x"), pod("10.0.0.3", "y")}, NotReadyAddresses: []corev1.EndpointAddress{{IP: "10.0.0.2"}}, Ports: []corev1.EndpointPort{p90}},
		{Addresses: []corev1.EndpointAddress{{IP: "10.0.0.9"}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("repack:\n got %+v\nwant %+v", got, want)
	}
	if got := repack(nil); len(got) != 0 {
		t.Errorf("repack(nil) = %+v", got)
	}
}

// summary is "type ports: ip/ready ..." per group, for comparing groups.
func summary(groups []*sliceplan.Group) []string {
	var out []string
	for _, g := range groups {
		var b strings.Builder
		b.WriteString(string(g.AddressType))
		for _, p := range g.Ports {
			fmt.Fprintf(&b, " %s:%d/%s", *p.Name, *p.Port, *p.Protocol)
		}
		b.WriteString(":")
		for _, ep := range g.Endpoints {
			fmt.Fprintf(&b, " %s/%t", ep.Addresses[0], *ep.Conditions.Ready)
		}
		out = append(out, b.String())
	}
	return out
}

func TestMirror(t *testing.T) {
	node := "n1"
	m := mirror([]corev1.EndpointSubset{{
		Addresses: []corev1.EndpointAddress{
			{IP: "10.0.0.2", Hostname: "db-0", NodeName: &node, TargetRef: &corev1.ObjectReference{Kind: "Pod", Name: "db-0", UID: "uid-db-0"}},
			{IP: "2001:DB8::1"},
			{IP: "not-an-ip"},
		},
		NotReadyAddresses: []corev1.EndpointAddress{{IP: "10.0.0.1"}},
		Ports:             []corev1.EndpointPort{{Name: "sql", Port: 5432, AppProtocol: ptr("postgresql")}},
	}}, 1000)
	want := []string{"IPv4 sql:5432/TCP: 10.0.0.2/true 10.0.0.1/false", "IPv6 sql:5432/TCP: 2001:db8::1/true"}
	if got := summary(m.groups); !reflect.DeepEqual(got, want) {
		t.Errorf("groups %q, want %q", got, want)
	}
	if m.invalid != 1 || m.skipped != 1 {
		t.Errorf("invalid %d skipped %d, want 1 1", m.invalid, m.skipped)
	}
	ep := m.groups[0].Endpoints[0]
	if *ep.Hostname != "db-0" || *ep.NodeName != "n1" || ep.TargetRef.UID != "uid-db-0" || ep.Conditions.Serving != nil || ep.Conditions.Terminating != nil {
		t.Errorf("endpoint %+v", ep)
	}
	if ap := m.groups[0].Ports[0].AppProtocol; ap == nil || *ap != "postgresql" {
		t.Errorf("appProtocol %v", ap)
	}

	// At most maxPerSubset addresses of each subset, ready ones first.
	var subsets []corev1.EndpointSubset
	for s := range 2 {
		sub := corev1.EndpointSubset{Ports: []corev1.EndpointPort{{Port: int32(80 + s)}}}
		for i := range 3 {
			sub.Addresses = append(sub.Addresses, corev1.EndpointAddress{IP: fmt.Sprintf("10.%d.0.%d", s, i)})
		}
		sub.NotReadyAddresses = []corev1.EndpointAddress{{IP: fmt.Sprintf("10.%d.1.0", s)}}
		subsets = append(subsets, sub)
	}
	m = mirror(subsets, 2)
	want = []string{"IPv4 :80/TCP: 10.0.0.0/true 10.0.0.1/true", "IPv4 :81/TCP: 10.1.0.0/true 10.1.0.1/true"}
	if got := summary(m.groups); !reflect.DeepEqual(got, want) || m.skipped != 4 || m.invalid != 0 {
		t.Errorf("capped: groups %q skipped %d invalid %d, want %q 4 0", got, m.skipped, m.invalid, want)
	}
}

// fakeCluster stands in for the API server and the informers' caches.
// Writes go to the caches only when deliver is on, as an informer that
// keeps up; otherwise the caches lag.
type fakeCluster struct {
	endpoints *cache.Indexer[*corev1.Endpoints]
	services  *cache.Indexer[*corev1.Service]
	slices    *cache.Indexer[*discoveryv1.EndpointSlice]
	c         *Controller
	deliver   bool
	calls     []string
	events    []string
	n         int
}

func (f *fakeCluster) Create(_ context.Context, s *discoveryv1.EndpointSlice, _ metav1.CreateOptions) (*discoveryv1.EndpointSlice, error) {
	s = s.DeepCopy()
	f.n++
	s.Name, s.UID, s.ResourceVersion = fmt.Sprintf("%s%d", s.GenerateName, f.n), types.UID(fmt.Sprintf("slice-%d", f.n)), "1"
	f.calls = append(f.calls, "create "+s.Name)
	if f.deliver {
		if err := f.slices.Add(s); err != nil {
			return nil, err
		}
		f.c.writer.Handler(ManagedBy).Add(s)
	}
	return s, nil
}

func (f *fakeCluster) Update(_ context.Context, s *discoveryv1.EndpointSlice, _ metav1.UpdateOptions) (*discoveryv1.EndpointSlice, error) {
	f.calls = append(f.calls, "update "+s.Name)
	if f.deliver {
		return s, f.slices.Update(s.DeepCopy())
	}
	return s, nil
}

func (f *fakeCluster) Delete(_ context.Context, name string, _ metav1.DeleteOptions) error {
	f.calls = append(f.calls, "delete "+name)
	if s, ok := f.slices.GetByKey("ns/" + name); ok && f.deliver {
		return f.slices.Delete(s)
	}
	return nil
}

func (f *fakeCluster) Event(obj runtime.Object, _, reason, message string) {
	f.events = append(f.events, reason+": "+message)
}

func (f *fakeCluster) Eventf(obj runtime.Object, eventType, reason, format string, args ...any) {
	f.Event(obj, eventType, reason, fmt.Sprintf(format, args...))
}

func (f *fakeCluster) AnnotatedEventf(obj runtime.Object, _ map[string]string, eventType, reason, format string, args ...any) {
	f.Eventf(obj, eventType, reason, format, args...)
}

func newFake(t *testing.T, opts Options) *fakeCluster {
	t.Helper()
	f := &fakeCluster{
		endpoints: cache.NewIndexer[*corev1.Endpoints](),
		services:  cache.NewIndexer[*corev1.Service](),
		slices:    cache.NewIndexer[*discoveryv1.EndpointSlice](),
		deliver:   true,
	}
	opts.Recorder = f
	f.c = newController(func(string) sliceplan.SliceClient { return f }, opts)
	f.c.endpoints = cache.NewLister(f.endpoints, corev1.Resource("endpoints"))
	f.c.services = cache.NewLister(f.services, corev1.Resource("services"))
	f.c.slices = cache.NewLister(f.slices, discoveryv1.Resource("endpointslices"))
	t.Cleanup(f.c.ShutDown)
	return f
}

func (f *fakeCluster) sync(t *testing.T) []string {
	t.Helper()
	f.calls = nil
	if err := f.c.sync(context.Background(), "ns/ext"); err != nil {
		t.Fatal(err)
	}
	return f.calls
}

func (f *fakeCluster) mustAdd(t *testing.T, objs ...any) {
	t.Helper()
	for _, o := range objs {
		var err error
		switch o := o.(type) {
		case *corev1.Endpoints:
			err = f.endpoints.Update(o)
		case *corev1.Service:
			err = f.services.Update(o)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func (f *fakeCluster) stored() []*discoveryv1.EndpointSlice {
	out := f.slices.List()
	slices.SortFunc(out, func(a, b *discoveryv1.EndpointSlice) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func extService() *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ext", UID: "svc-uid"},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}},
	}
}

func extEndpoints(ips ...string) *corev1.Endpoints {
	ep := &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: "ns", Name: "ext", UID: "ep-uid",
			Labels: map[string]string{"app": "ext"},
			Annotations: map[string]string{
				"team":                                "db",
				corev1.LastAppliedConfigAnnotation:    "{}",
				corev1.EndpointsLastChangeTriggerTime: "2026-11-28T00:00:00Z",
			},
		},
		Subsets: []corev1.EndpointSubset{{Ports: []corev1.EndpointPort{{Name: "http", Port: 8080, Protocol: corev1.ProtocolTCP}}}},
	}
	for _, ip := range ips {
		ep.Subsets[0].Addresses = append(ep.Subsets[0].Addresses, corev1.EndpointAddress{IP: ip})
	}
	return ep
}

func TestSyncMirrors(t *testing.T) {
	f := newFake(t, Options{})
	f.mustAdd(t, extService(), extEndpoints("10.0.0.1"))
	if got := f.sync(t); !reflect.DeepEqual(got, []string{"create ext-1"}) {
		t.Fatalf("first sync %q", got)
	}
	s := f.stored()[0]
	wantLabels := map[string]string{"app": "ext", discoveryv1.LabelServiceName: "ext", discoveryv1.LabelManagedBy: ManagedBy}
	if !reflect.DeepEqual(s.Labels, wantLabels) || !reflect.DeepEqual(s.Annotations, map[string]string{"team": "db"}) {
		t.Errorf("labels %v annotations %v", s.Labels, s.Annotations)
	}
	if refs := s.OwnerReferences; len(refs) != 1 || refs[0].Kind != "Endpoints" || refs[0].APIVersion != "v1" || refs[0].Name != "ext" || refs[0].UID != "ep-uid" || !*refs[0].Controller {
		t.Errorf("owner references %+v", refs)
	}
	if s.AddressType != discoveryv1.AddressTypeIPv4 || len(s.Ports) != 1 || *s.Ports[0].Port != 8080 || len(s.Endpoints) != 1 || s.Endpoints[0].Addresses[0] != "10.0.0.1" {
		t.Errorf("slice %+v", s)
	}
	if got := f.sync(t); len(got) != 0 {
		t.Errorf("resync wrote %q", got)
	}

	// An address changes: the slice is updated in place.
	f.mustAdd(t, extEndpoints("10.0.0.2"))
	if got := f.sync(t); !reflect.DeepEqual(got, []string{"update ext-1"}) {
		t.Errorf("update sync %q", got)
	}
	if s := f.stored(); len(s) != 1 || s[0].Endpoints[0].Addresses[0] != "10.0.0.2" {
		t.Errorf("after update: %+v", s)
	}
	// A label edit on the slice is put back.
	edited := f.stored()[0].DeepCopy()
	edited.Labels["app"] = "other"
	if err := f.slices.Update(edited); err != nil {
		t.Fatal(err)
	}
	if got := f.sync(t); !reflect.DeepEqual(got, []string{"update ext-1"}) || f.stored()[0].Labels["app"] != "ext" {
		t.Errorf("label repair: %q", got)
	}
	// No address left: no slice.
	f.mustAdd(t, extEndpoints())
	if got := f.sync(t); !reflect.DeepEqual(got, []string{"delete ext-1"}) {
		t.Errorf("emptied: %q", got)
	}
	// An IPv6 address too: one slice per address type.
	f.mustAdd(t, extEndpoints("10.0.0.3", "fd00::3"))
	if got := f.sync(t); !reflect.DeepEqual(got, []string{"create ext-2", "create ext-3"}) {
		t.Errorf("dual stack: %q", got)
	}
	if s := f.stored(); s[0].AddressType != discoveryv1.AddressTypeIPv4 || s[1].AddressType != discoveryv1.AddressTypeIPv6 {
		t.Errorf("address types %s %s", s[0].AddressType, s[1].AddressType)
	}
}

func TestSyncDeletes(t *testing.T) {
	cases := []struct {
		name   string
		change func(f *fakeCluster)
	}{
		{"endpoints deleted", func(f *fakeCluster) { _ = f.endpoints.Delete(extEndpoints()) }},
		{"service deleted", func(f *fakeCluster) { _ = f.services.Delete(extService()) }},
		{"service gains a selector", func(f *fakeCluster) {
			svc := extService()
			svc.Spec.Selector = map[string]string{"app": "ext"}
			_ = f.services.Update(svc)
		}},
		{"skip-mirror label", func(f *fakeCluster) {
			ep := extEndpoints("10.0.0.1")
			ep.Labels[discoveryv1.LabelSkipMirror] = "true"
			_ = f.endpoints.Update(ep)
		}},
		{"leader election lock", func(f *fakeCluster) {
			ep := extEndpoints("10.0.0.1")
			ep.Annotations[LeaderAnnotation] = "{}"
			_ = f.endpoints.Update(ep)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, Options{})
			f.mustAdd(t, extService(), extEndpoints("10.0.0.1"))
			f.sync(t)
			// A slice another controller manages for the same name stays.
			foreign := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "ext-foreign", Labels: map[string]string{
				discoveryv1.LabelServiceName: "ext", discoveryv1.LabelManagedBy: "endpointslice-controller.k8s.io"}}}
			if err := f.slices.Add(foreign); err != nil {
				t.Fatal(err)
			}
			tc.change(f)
			if got := f.sync(t); !reflect.DeepEqual(got, []string{"delete ext-1"}) {
				t.Errorf("calls %q, want the mirrored slice deleted", got)
			}
			if got := f.sync(t); len(got) != 0 {
				t.Errorf("second sync %q", got)
			}
		})
	}
}

func TestSyncWaitsForItsCreations(t *testing.T) {
	f := newFake(t, Options{})
	f.deliver = false
	f.mustAdd(t, extService(), extEndpoints("10.0.0.1"))
	if got := f.sync(t); len(got) != 1 {
		t.Fatalf("first sync %q", got)
	}
	// The informer has not brought the slice: no second creation.
	if got := f.sync(t); len(got) != 0 {
		t.Errorf("sync on a stale cache wrote %q", got)
	}
}

func TestSyncDeletingEndpointsCreatesNothing(t *testing.T) {
	f := newFake(t, Options{})
	ep := extEndpoints("10.0.0.1")
	now := metav1.Now()
	ep.DeletionTimestamp = &now
	f.mustAdd(t, extService(), ep)
	if got := f.sync(t); len(got) != 0 {
		t.Errorf("calls %q, want none", got)
	}
}

func TestSyncEvents(t *testing.T) {
	// Addresses are taken in repacked (IP) order: "1.2.3" is read first
	// and counted invalid; of the four valid ones two are mirrored. An
	// invalid address past the cap would only count as skipped.
	f := newFake(t, Options{MaxEndpointsPerSubset: 2})
	f.mustAdd(t, extService(), extEndpoints("10.0.0.1", "1.2.3", "10.0.0.2", "10.0.0.3", "10.0.0.4"))
	f.sync(t)
	want := []string{
		"InvalidIPAddress: Skipped 1 invalid IP addresses when mirroring to EndpointSlices",
		"TooManyAddressesToMirror: A max of 2 addresses can be mirrored to EndpointSlices per Endpoints subset. 3 addresses were skipped",
	}
	if !reflect.DeepEqual(f.events, want) {
		t.Errorf("events %q, want %q", f.events, want)
	}
	if s := f.stored(); len(s) != 1 || len(s[0].Endpoints) != 2 {
		t.Errorf("slices %+v", s)
	}
}

func TestHandlers(t *testing.T) {
	eh := endpointsHandler()
	plain, skipped := extEndpoints(), extEndpoints()
	skipped.Labels[discoveryv1.LabelSkipMirror] = "true"
	if got := eh.Add(plain); !reflect.DeepEqual(got, []string{"ns/ext"}) {
		t.Errorf("add %q", got)
	}
	if got := eh.Add(skipped); got != nil {
		t.Errorf("add skipped %q", got)
	}
	// Turning skip-mirror on still syncs, to delete the slices.
	if got := eh.Update(plain, skipped); !reflect.DeepEqual(got, []string{"ns/ext"}) {
		t.Errorf("update to skipped %q", got)
	}
	if got := eh.Update(skipped, skipped); got != nil {
		t.Errorf("update of skipped %q", got)
	}

	sh := servicesHandler()
	selectorless, selected := extService(), extService()
	selected.Spec.Selector = map[string]string{"app": "x"}
	if got := sh.Add(selectorless); !reflect.DeepEqual(got, []string{"ns/ext"}) {
		t.Errorf("add %q", got)
	}
	if got := sh.Add(selected); got != nil {
		t.Errorf("add with selector %q", got)
	}
	if got := sh.Update(selectorless, selected); !reflect.DeepEqual(got, []string{"ns/ext"}) {
		t.Errorf("selector added %q", got)
	}
	if got := sh.Update(selected, selected); got != nil {
		t.Errorf("update with selector %q", got)
	}
}
