package endpoints

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/controller/endpoints"
	"kubecore.io/kubecore/test/integration/framework"
)

// managedSelector selects the slices the controller manages for service.
func managedSelector(service string) string {
	return discoveryv1.LabelServiceName + "=" + service + "," + discoveryv1.LabelManagedBy + "=" + endpoints.ManagedBy
}

// describeSlices renders slices as "name: ip/ready/serving/terminating ...;"
// sorted, for comparing and for failure messages.
func describeSlices(items []discoveryv1.EndpointSlice) string {
	var out []string
	for _, s := range items {
		line := s.Name + ":"
		for _, ep := range s.Endpoints {
			c := ep.Conditions
			line += fmt.Sprintf(" %s/%t/%t/%t", ep.Addresses[0], c.Ready != nil && *c.Ready, c.Serving != nil && *c.Serving, c.Terminating != nil && *c.Terminating)
		}
		out = append(out, line)
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

// waitForSlices waits until the managed slices of service, described
// without their names, are want (e.g. ": 10.1.0.1/true/true/false"), and
// returns them.
func waitForSlices(ctx context.Context, t *testing.T, cs *typed.Clientset, ns, service, want string) []discoveryv1.EndpointSlice {
	t.Helper()
	var last []discoveryv1.EndpointSlice
	framework.WaitFor(t, timeout, "slices "+want, func() (bool, error) {
		list, err := cs.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: managedSelector(service)})
		if err != nil {
			return false, err
		}
		last = list.Items
		unnamed := make([]discoveryv1.EndpointSlice, len(last))
		for i, s := range last {
			unnamed[i] = s
			unnamed[i].Name = ""
		}
		if got := describeSlices(unnamed); got != want {
			return false, fmt.Errorf("slices are %q", got)
		}
		return true, nil
	})
	return last
}

func TestSlicesFollowPods(t *testing.T) {
	ctx, cs, ns := setup(t)
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: map[string]string{"app": "web"}},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": "web"},
			Ports:    []corev1.ServicePort{{Name: "web", Port: 80, TargetPort: intstr.FromString("http")}},
		},
	}
	created, err := cs.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// No pod yet: one placeholder slice.
	placeholder := waitForSlices(ctx, t, cs, ns, "web", ":")[0]
	if placeholder.Ports != nil || placeholder.AddressType != discoveryv1.AddressTypeIPv4 {
		t.Errorf("placeholder %+v", placeholder)
	}

	runPod(ctx, t, cs, ns, "a", "10.1.0.1", true)
	runPod(ctx, t, cs, ns, "b", "10.1.0.2", false)
	first := waitForSlices(ctx, t, cs, ns, "web", ": 10.1.0.1/true/true/false 10.1.0.2/false/false/false")[0]
	if !strings.HasPrefix(first.Name, "web-") || first.Labels["app"] != "web" || first.Generation < 1 {
		t.Errorf("slice meta %+v", first.ObjectMeta)
	}
	if ref := metav1.GetControllerOf(&first); ref == nil || ref.UID != created.UID || ref.Kind != "Service" {
		t.Errorf("slice owner %+v", first.OwnerReferences)
	}
	if p := first.Ports; len(p) != 1 || *p[0].Name != "web" || *p[0].Port != 8080 || *p[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("slice ports %+v", p)
	}
	if ep := first.Endpoints[0]; ep.NodeName == nil || *ep.NodeName != "n1" || ep.TargetRef == nil || ep.TargetRef.Name != "a" {
		t.Errorf("endpoint %+v", ep)
	}

	// b turns ready; a is relabelled out: the same slice is updated.
	b, err := cs.CoreV1().Pods(ns).Get(ctx, "b", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	setReady(ctx, t, cs, b, "10.1.0.2", true)
	a, err := cs.CoreV1().Pods(ns).Get(ctx, "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a.Labels = map[string]string{"app": "other"}
	if _, err := cs.CoreV1().Pods(ns).Update(ctx, a, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := waitForSlices(ctx, t, cs, ns, "web", ": 10.1.0.2/true/true/false")[0]; got.UID != first.UID {
		t.Errorf("slice %s replaced by %s; want an update in place", first.Name, got.Name)
	}

	// b is being deleted (its node has not confirmed): it stays in the
	// slice as terminating, and leaves the Endpoints.
	if err := cs.CoreV1().Pods(ns).Delete(ctx, "b", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForSlices(ctx, t, cs, ns, "web", ": 10.1.0.2/false/true/true")
	waitForEndpoints(ctx, t, cs, ns, "web", nil, nil)
	runPod(ctx, t, cs, ns, "c", "10.1.0.3", true)
	cur := waitForSlices(ctx, t, cs, ns, "web", ": 10.1.0.2/false/true/true 10.1.0.3/true/true/false")[0]

	// A hand edit is put back, a deleted slice comes back.
	edited := cur.DeepCopy()
	edited.Endpoints = edited.Endpoints[:1]
	edited.Labels["app"] = "changed"
	if _, err := cs.DiscoveryV1().EndpointSlices(ns).Update(ctx, edited, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	repaired := waitForSlices(ctx, t, cs, ns, "web", ": 10.1.0.2/false/true/true 10.1.0.3/true/true/false")[0]
	if repaired.Labels["app"] != "web" || repaired.UID != cur.UID {
		t.Errorf("repaired slice %+v", repaired.ObjectMeta)
	}
	if err := cs.DiscoveryV1().EndpointSlices(ns).Delete(ctx, cur.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if again := waitForSlices(ctx, t, cs, ns, "web", ": 10.1.0.2/false/true/true 10.1.0.3/true/true/false")[0]; again.UID == cur.UID {
		t.Error("the deleted slice is still there")
	}

	// A slice someone else manages for the service is left alone, even
	// when the service goes; ours go with it.
	foreign := &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "web-manual", Labels: map[string]string{
			discoveryv1.LabelServiceName: "web", discoveryv1.LabelManagedBy: "someone-else",
		}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"192.0.2.50"}}},
	}
	if _, err := cs.DiscoveryV1().EndpointSlices(ns).Create(ctx, foreign, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().Services(ns).Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForSlices(ctx, t, cs, ns, "web", "")
	kept, err := cs.DiscoveryV1().EndpointSlices(ns).Get(ctx, "web-manual", metav1.GetOptions{})
	if err != nil || len(kept.Endpoints) != 1 || kept.Endpoints[0].Addresses[0] != "192.0.2.50" {
		t.Errorf("foreign slice: %+v, %v", kept, err)
	}
}

// More than 100 backends are split over slices of at most 100, created
// once each.
func TestSlicesSplit(t *testing.T) {
	ctx, cs, ns := setup(t)
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": "web"},
			Ports:    []corev1.ServicePort{{Name: "web", Port: 80, TargetPort: intstr.FromString("http")}},
		},
	}
	if _, err := cs.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const n = 130
	var want []string
	for i := range n {
		ip := fmt.Sprintf("10.2.%d.%d", i/100, i%100+1)
		runPod(ctx, t, cs, ns, fmt.Sprintf("p%03d", i), ip, true)
		want = append(want, ip)
	}
	framework.WaitFor(t, timeout, "130 endpoints in two slices", func() (bool, error) {
		list, err := cs.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: managedSelector("web")})
		if err != nil {
			return false, err
		}
		var sizes []int
		var got []string
		for _, s := range list.Items {
			sizes = append(sizes, len(s.Endpoints))
			for _, ep := range s.Endpoints {
				got = append(got, ep.Addresses[0])
			}
		}
		slices.Sort(sizes)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(sizes, []int{30, 100}) || !slices.Equal(got, want) {
			return false, fmt.Errorf("slice sizes %v, %d addresses", sizes, len(got))
		}
		return true, nil
	})
	// Nothing more is created once the controller is idle.
	list, err := cs.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 2 {
		t.Errorf("%d slices, want 2: %s", len(list.Items), describeSlices(list.Items))
	}
}

// The API validates slices as Kubernetes does.
func TestSliceValidation(t *testing.T) {
	ctx, cs, ns := setup(t)
	client := cs.DiscoveryV1().EndpointSlices(ns)
	tcp, udp, bad := corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.Protocol("HTTP")
	name, dup, badName := "http", "http", "Bad_Name"
	valid := func() *discoveryv1.EndpointSlice {
		return &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{GenerateName: "db-"},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.3.0.1"}}},
			Ports:       []discoveryv1.EndpointPort{{Name: &name, Protocol: &tcp}},
		}
	}
	many := make([]string, 101)
	for i := range many {
		many[i] = fmt.Sprintf("10.3.1.%d", i+1)
	}
	for _, tc := range []struct {
		what, field string
		change      func(*discoveryv1.EndpointSlice)
	}{
		{"no address type", "addressType: Required value", func(s *discoveryv1.EndpointSlice) { s.AddressType = "" }},
		{"unknown address type", `addressType: Unsupported value: "IP"`, func(s *discoveryv1.EndpointSlice) { s.AddressType = "IP" }},
		{"no address", "endpoints[0].addresses: Required value", func(s *discoveryv1.EndpointSlice) { s.Endpoints[0].Addresses = nil }},
		{"101 addresses", "endpoints[0].addresses: Too many: 101: must have at most 100 items", func(s *discoveryv1.EndpointSlice) { s.Endpoints[0].Addresses = many }},
		{"IPv6 in IPv4", `endpoints[0].addresses[0]: Invalid value: "fd00::1"`, func(s *discoveryv1.EndpointSlice) { s.Endpoints[0].Addresses = []string{"fd00::1"} }},
		{"link-local", "link-local range", func(s *discoveryv1.EndpointSlice) { s.Endpoints[0].Addresses = []string{"169.254.1.1"} }},
		{"short FQDN", "at least two segments", func(s *discoveryv1.EndpointSlice) {
			s.AddressType, s.Endpoints[0].Addresses = discoveryv1.AddressTypeFQDN, []string{"db"}
		}},
		{"1001 endpoints", "endpoints: Too many: 1001", func(s *discoveryv1.EndpointSlice) {
			s.Endpoints = make([]discoveryv1.Endpoint, 1001)
		}},
		{"bad port name", `ports[0].name: Invalid value: "Bad_Name"`, func(s *discoveryv1.EndpointSlice) { s.Ports[0].Name = &badName }},
		{"duplicate port name", `ports[1].name: Duplicate value: "http"`, func(s *discoveryv1.EndpointSlice) {
			s.Ports = append(s.Ports, discoveryv1.EndpointPort{Name: &dup, Protocol: &udp})
		}},
		{"bad protocol", `ports[0].protocol: Unsupported value: "HTTP"`, func(s *discoveryv1.EndpointSlice) { s.Ports[0].Protocol = &bad }},
		{"bad name", "metadata.name: Invalid value", func(s *discoveryv1.EndpointSlice) { s.GenerateName, s.Name = "", "Web" }},
	} {
		s := valid()
		tc.change(s)
		_, err := client.Create(ctx, s, metav1.CreateOptions{})
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: got %v, want 422 about %q", tc.what, err, tc.field)
		}
	}

	// generateName, and defaults: a port without a protocol is TCP.
	s := valid()
	s.Ports[0].Protocol = nil
	out, err := client.Create(ctx, s, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.Name, "db-") || len(out.Name) != len("db-")+5 || *out.Ports[0].Protocol != corev1.ProtocolTCP || out.Generation != 1 {
		t.Errorf("created %s, protocol %v, generation %d", out.Name, out.Ports[0].Protocol, out.Generation)
	}
	// The address type is immutable; a change of endpoints bumps the generation.
	out.AddressType = discoveryv1.AddressTypeFQDN
	out.Endpoints[0].Addresses = []string{"db.example.com"}
	if _, err := client.Update(ctx, out, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "addressType: Invalid value: \"FQDN\": field is immutable") {
		t.Errorf("address type change: %v", err)
	}
	out.AddressType = discoveryv1.AddressTypeIPv4
	out.Endpoints[0].Addresses = []string{"10.3.0.2"}
	updated, err := client.Update(ctx, out, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if updated.Generation != 2 {
		t.Errorf("generation %d after an endpoint change, want 2", updated.Generation)
	}
}
