package endpointslicemirroring

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/util/intstr"
	"kubecore.io/client/informers"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/controller/endpoints"
	"kubecore.io/kubecore/pkg/controller/endpointslicemirroring"
	"kubecore.io/kubecore/test/integration/framework"
)

const timeout = 20 * time.Second

// setup runs an apiserver, the endpoints controller and the mirroring
// controller until the test ends, and returns a client and a fresh
// namespace.
func setup(t *testing.T) (context.Context, *typed.Clientset, string) {
	t.Helper()
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	cs := s.Clientset(t)
	factory := informers.NewSharedInformerFactory(cs)
	ec, err := endpoints.New(cs, factory)
	if err != nil {
		t.Fatal(err)
	}
	mc, err := endpointslicemirroring.New(cs, factory, endpointslicemirroring.Options{})
	if err != nil {
		t.Fatal(err)
	}
	framework.RunControllers(t, factory,
		func(ctx context.Context) error { return ec.Run(ctx, 2) },
		func(ctx context.Context) error { return mc.Run(ctx, 2) })
	return context.Background(), cs, s.CreateNamespace(t, "mirror")
}

// mirrored lists the slices the mirroring controller manages for name.
func mirrored(ctx context.Context, cs *typed.Clientset, ns, name string) ([]discoveryv1.EndpointSlice, error) {
	list, err := cs.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{
		LabelSelector: discoveryv1.LabelServiceName + "=" + name + "," + discoveryv1.LabelManagedBy + "=" + endpointslicemirroring.ManagedBy,
	})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// describe renders slices as "type ports: ip/ready ...", sorted, for
// comparing and for failure messages ("" for none).
func describe(items []discoveryv1.EndpointSlice) string {
	var out []string
	for _, s := range items {
		var b strings.Builder
		b.WriteString(string(s.AddressType))
		for _, p := range s.Ports {
			fmt.Fprintf(&b, " %s:%d/%s", *p.Name, *p.Port, *p.Protocol)
		}
		b.WriteString(":")
		for _, ep := range s.Endpoints {
			fmt.Fprintf(&b, " %s/%t", ep.Addresses[0], ep.Conditions.Ready != nil && *ep.Conditions.Ready)
		}
		out = append(out, b.String())
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}

// waitForMirror waits until the mirrored slices of name read want, and
// returns them.
func waitForMirror(ctx context.Context, t *testing.T, cs *typed.Clientset, ns, name, want string) []discoveryv1.EndpointSlice {
	t.Helper()
	var last []discoveryv1.EndpointSlice
	framework.WaitFor(t, timeout, "mirrored slices "+want, func() (bool, error) {
		items, err := mirrored(ctx, cs, ns, name)
		if err != nil {
			return false, err
		}
		last = items
		if got := describe(items); got != want {
			return false, fmt.Errorf("slices are %q", got)
		}
		return true, nil
	})
	return last
}

func createSelectorless(ctx context.Context, t *testing.T, cs *typed.Clientset, ns, name string) *corev1.Service {
	t.Helper()
	svc, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "sql", Port: 5432}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func TestMirrorFollowsEndpoints(t *testing.T) {
	ctx, cs, ns := setup(t)
	createSelectorless(ctx, t, cs, ns, "db")
	ep := &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{
			Name:        "db",
			Labels:      map[string]string{"tier": "data"},
			Annotations: map[string]string{"owner": "dba", corev1.LastAppliedConfigAnnotation: "{}"},
		},
		Subsets: []corev1.EndpointSubset{{
			Addresses:         []corev1.EndpointAddress{{IP: "192.0.2.2", Hostname: "db-b"}, {IP: "192.0.2.1"}},
			NotReadyAddresses: []corev1.EndpointAddress{{IP: "192.0.2.3"}},
			Ports:             []corev1.EndpointPort{{Name: "sql", Port: 5432}},
		}},
	}
	ep, err := cs.CoreV1().Endpoints(ns).Create(ctx, ep, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := waitForMirror(ctx, t, cs, ns, "db", "IPv4 sql:5432/TCP: 192.0.2.1/true 192.0.2.2/true 192.0.2.3/false")
	s := got[0]
	if want := map[string]string{"tier": "data", discoveryv1.LabelServiceName: "db", discoveryv1.LabelManagedBy: endpointslicemirroring.ManagedBy}; !maps.Equal(s.Labels, want) {
		t.Errorf("labels %v, want %v", s.Labels, want)
	}
	if want := map[string]string{"owner": "dba"}; !maps.Equal(s.Annotations, want) {
		t.Errorf("annotations %v, want %v", s.Annotations, want)
	}
	if refs := s.OwnerReferences; len(refs) != 1 || refs[0].Kind != "Endpoints" || refs[0].UID != ep.UID || refs[0].Controller == nil || !*refs[0].Controller {
		t.Errorf("owner references %+v, want the Endpoints", refs)
	}
	if !strings.HasPrefix(s.Name, "db-") {
		t.Errorf("name %q, want the db- prefix", s.Name)
	}
	for _, e := range s.Endpoints {
		if e.Addresses[0] == "192.0.2.2" && (e.Hostname == nil || *e.Hostname != "db-b") {
			t.Errorf("hostname of 192.0.2.2: %v", e.Hostname)
		}
	}

	// The Endpoints change: an address goes, an IPv6 one and a second
	// port set come.
	ep.Subsets = []corev1.EndpointSubset{
		{
			Addresses: []corev1.EndpointAddress{{IP: "192.0.2.1"}, {IP: "2001:db8::1"}},
			Ports:     []corev1.EndpointPort{{Name: "sql", Port: 5432}},
		},
		{
			Addresses: []corev1.EndpointAddress{{IP: "192.0.2.9"}},
			Ports:     []corev1.EndpointPort{{Name: "sql", Port: 6432}},
		},
	}
	if _, err = cs.CoreV1().Endpoints(ns).Update(ctx, ep, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	updated := waitForMirror(ctx, t, cs, ns, "db",
		"IPv4 sql:5432/TCP: 192.0.2.1/true; IPv4 sql:6432/TCP: 192.0.2.9/true; IPv6 sql:5432/TCP: 2001:db8::1/true")
	// The first slice was updated in place.
	if !slices.ContainsFunc(updated, func(u discoveryv1.EndpointSlice) bool { return u.Name == s.Name }) {
		t.Errorf("slice %s was replaced rather than updated", s.Name)
	}

	// A hand edit of a mirrored slice is put back.
	edited := updated[0]
	edited.Endpoints = nil
	if _, err := cs.DiscoveryV1().EndpointSlices(ns).Update(ctx, &edited, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForMirror(ctx, t, cs, ns, "db",
		"IPv4 sql:5432/TCP: 192.0.2.1/true; IPv4 sql:6432/TCP: 192.0.2.9/true; IPv6 sql:5432/TCP: 2001:db8::1/true")

	// The Endpoints go: so do the slices.
	if err := cs.CoreV1().Endpoints(ns).Delete(ctx, "db", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForMirror(ctx, t, cs, ns, "db", "")
}

func TestMirrorStops(t *testing.T) {
	ctx, cs, ns := setup(t)
	custom := func(name string) *corev1.Endpoints {
		return &corev1.Endpoints{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Subsets: []corev1.EndpointSubset{{
				Addresses: []corev1.EndpointAddress{{IP: "192.0.2.1"}},
				Ports:     []corev1.EndpointPort{{Name: "sql", Port: 5432}},
			}},
		}
	}
	const want = "IPv4 sql:5432/TCP: 192.0.2.1/true"

	// The Service goes.
	createSelectorless(ctx, t, cs, ns, "a")
	if _, err := cs.CoreV1().Endpoints(ns).Create(ctx, custom("a"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForMirror(ctx, t, cs, ns, "a", want)
	if err := cs.CoreV1().Services(ns).Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForMirror(ctx, t, cs, ns, "a", "")

	// The Endpoints opt out with the skip-mirror label, then back in.
	createSelectorless(ctx, t, cs, ns, "b")
	ep, err := cs.CoreV1().Endpoints(ns).Create(ctx, custom("b"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitForMirror(ctx, t, cs, ns, "b", want)
	ep.Labels = map[string]string{discoveryv1.LabelSkipMirror: "true"}
	if ep, err = cs.CoreV1().Endpoints(ns).Update(ctx, ep, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForMirror(ctx, t, cs, ns, "b", "")
	ep.Labels = nil
	if _, err = cs.CoreV1().Endpoints(ns).Update(ctx, ep, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForMirror(ctx, t, cs, ns, "b", want)

	// The Service gains a selector: the endpoints controller takes over
	// (and rewrites the Endpoints, there being no pod), the mirror goes.
	svc, err := cs.CoreV1().Services(ns).Get(ctx, "b", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Spec.Selector = map[string]string{"app": "b"}
	if _, err := cs.CoreV1().Services(ns).Update(ctx, svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForMirror(ctx, t, cs, ns, "b", "")
}

// The Endpoints the endpoints controller writes for a Service with a
// selector are not mirrored: that controller writes their slices itself.
func TestSelectorServiceNotMirrored(t *testing.T) {
	ctx, cs, ns := setup(t)
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{
			Selector: map[string]string{"app": "web"},
			Ports:    []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080)}},
		},
	}
	if _, err := cs.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod, err := cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-0", Labels: map[string]string{"app": "web"}},
		Spec:       corev1.PodSpec{NodeName: "n1", Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod.Status = corev1.PodStatus{
		Phase: corev1.PodRunning, PodIP: "10.1.0.1", PodIPs: []corev1.PodIP{{IP: "10.1.0.1"}},
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
	}
	if _, err := cs.CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, timeout, "the endpoints of web", func() (bool, error) {
		ep, err := cs.CoreV1().Endpoints(ns).Get(ctx, "web", metav1.GetOptions{})
		return err == nil && len(ep.Subsets) == 1 && len(ep.Subsets[0].Addresses) == 1, err
	})
	// A custom Endpoints written after them is mirrored; by then the
	// controller has seen web's too, and mirrored nothing of them.
	createSelectorless(ctx, t, cs, ns, "ext")
	if _, err := cs.CoreV1().Endpoints(ns).Create(ctx, &corev1.Endpoints{
		ObjectMeta: metav1.ObjectMeta{Name: "ext"},
		Subsets: []corev1.EndpointSubset{{
			Addresses: []corev1.EndpointAddress{{IP: "192.0.2.7"}},
			Ports:     []corev1.EndpointPort{{Name: "sql", Port: 5432}},
		}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForMirror(ctx, t, cs, ns, "ext", "IPv4 sql:5432/TCP: 192.0.2.7/true")
	items, err := mirrored(ctx, cs, ns, "web")
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 0 {
		t.Errorf("the endpoints of a selector service were mirrored: %s", describe(items))
	}
	// web's slices are the endpoints controller's.
	list, err := cs.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=web"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range list.Items {
		if s.Labels[discoveryv1.LabelManagedBy] != endpoints.ManagedBy {
			t.Errorf("slice %s of web managed by %q", s.Name, s.Labels[discoveryv1.LabelManagedBy])
		}
	}
}
