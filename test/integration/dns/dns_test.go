package dns

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	mdns "github.com/miekg/dns"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/informers"

	"kubecore.io/kubecore/pkg/dns"
	"kubecore.io/kubecore/test/figure"
	"kubecore.io/kubecore/test/integration/framework"
)

const timeout = 30 * time.Second

// answers queries name over transport and renders the answer section's
// data, sorted ("NXDOMAIN" for a missing name).
func answers(addr, transport, name string, qtype uint16) (string, error) {
	m := new(mdns.Msg)
	m.SetQuestion(name, qtype)
	r, _, err := (&mdns.Client{Net: transport, Timeout: 2 * time.Second}).Exchange(m, addr)
	if err != nil {
		return "", err
	}
	if r.Rcode != mdns.RcodeSuccess {
		return mdns.RcodeToString[r.Rcode], nil
	}
	var out []string
	for _, rr := range r.Answer {
		out = append(out, strings.TrimPrefix(rr.String(), rr.Header().String()))
	}
	sort.Strings(out)
	return strings.Join(out, ","), nil
}

func waitAnswer(t *testing.T, addr, name string, qtype uint16, want string) {
	t.Helper()
	for _, transport := range []string{"udp", "tcp"} {
		framework.WaitFor(t, timeout, name+" over "+transport, func() (bool, error) {
			got, err := answers(addr, transport, name, qtype)
			if err != nil {
				return false, err
			}
			if got != want {
				return false, fmt.Errorf("got %q, want %q", got, want)
			}
			return true, nil
		})
	}
}

func TestClusterDNS(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	cs := s.Clientset(t)
	ns := s.CreateNamespace(t, "dns")

	factory := informers.NewSharedInformerFactory(cs)
	store, err := dns.NewInformerStore(factory)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := dns.Listen(dns.Config{Store: store, Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx)
	defer factory.Shutdown()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	addr := srv.Addr()

	// The server publishes itself: the Service with the standard IP and
	// its own endpoint slice.
	pub := dns.Publisher{Client: cs, ServiceIP: dns.DefaultServiceIP, NodeName: "node-a", NodeIP: "127.0.0.1", Port: 1053}
	if err := pub.Publish(ctx); err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(ctx); err != nil {
		t.Fatalf("publishing again: %v", err)
	}
	svc, err := cs.CoreV1().Services(dns.ServiceNamespace).Get(ctx, dns.ServiceName, metav1.GetOptions{})
	if err != nil || svc.Spec.ClusterIP != dns.DefaultServiceIP || len(svc.Spec.Ports) != 3 {
		t.Fatalf("kube-dns service: %+v, %v", svc, err)
	}
	waitAnswer(t, addr, "kube-dns.kube-system.svc.cluster.local.", mdns.TypeA, dns.DefaultServiceIP)
	waitAnswer(t, addr, "_dns._udp.kube-dns.kube-system.svc.cluster.local.", mdns.TypeSRV, "0 100 53 kube-dns.kube-system.svc.cluster.local.")

	web, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitAnswer(t, addr, "web."+ns+".svc.cluster.local.", mdns.TypeA, web.Spec.ClusterIP)
	// The reverse lookup of its cluster IP names it.
	webPTR, err := mdns.ReverseAddr(web.Spec.ClusterIP)
	if err != nil {
		t.Fatal(err)
	}
	waitAnswer(t, addr, webPTR, mdns.TypePTR, "web."+ns+".svc.cluster.local.")

	// A headless service as a StatefulSet makes it: records per ready
	// endpoint and per hostname.
	if _, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "db"},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Ports: []corev1.ServicePort{{Name: "pg", Port: 5432}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ready, tcp, port, pname := true, corev1.ProtocolTCP, int32(5432), "pg"
	slice := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "db-1", Labels: map[string]string{discoveryv1.LabelServiceName: "db"}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: &pname, Protocol: &tcp, Port: &port}},
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"10.1.0.1"}, Hostname: new("db-0"), Conditions: discoveryv1.EndpointConditions{Ready: &ready}}}}
	slice, err = cs.DiscoveryV1().EndpointSlices(ns).Create(ctx, slice, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitAnswer(t, addr, "db."+ns+".svc.cluster.local.", mdns.TypeA, "10.1.0.1")
	waitAnswer(t, addr, "db-0.db."+ns+".svc.cluster.local.", mdns.TypeA, "10.1.0.1")
	waitAnswer(t, addr, "db-1.db."+ns+".svc.cluster.local.", mdns.TypeA, "NXDOMAIN")
	waitAnswer(t, addr, "1.0.1.10.in-addr.arpa.", mdns.TypePTR, "db-0.db."+ns+".svc.cluster.local.")

	// Scaling: a second endpoint appears in the answers.
	slice.Endpoints = append(slice.Endpoints, discoveryv1.Endpoint{Addresses: []string{"10.1.0.2"}, Hostname: new("db-1"), Conditions: discoveryv1.EndpointConditions{Ready: &ready}})
	start := time.Now()
	if _, err := cs.DiscoveryV1().EndpointSlices(ns).Update(ctx, slice, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitAnswer(t, addr, "db."+ns+".svc.cluster.local.", mdns.TypeA, "10.1.0.1,10.1.0.2")
	t.Logf("Endpoint change visible in DNS after %s", time.Since(start))
	waitAnswer(t, addr, "_pg._tcp.db."+ns+".svc.cluster.local.", mdns.TypeSRV,
		fmt.Sprintf("0 100 5432 db-0.db.%s.svc.cluster.local.,0 100 5432 db-1.db.%s.svc.cluster.local.", ns, ns))

	// Deleting the service removes its name.
	if err := cs.CoreV1().Services(ns).Delete(ctx, "web", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitAnswer(t, addr, "web."+ns+".svc.cluster.local.", mdns.TypeA, "NXDOMAIN")
	waitAnswer(t, addr, webPTR, mdns.TypePTR, "SERVFAIL") // forwarded: no upstreams here

	// Unpublishing removes the endpoint slice.
	if err := pub.Unpublish(ctx); err != nil {
		t.Fatal(err)
	}
	list, err := cs.DiscoveryV1().EndpointSlices(dns.ServiceNamespace).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelManagedBy + "=" + dns.ManagedBy})
	if err != nil || len(list.Items) != 0 {
		t.Errorf("slices after unpublish: %d, %v", len(list.Items), err)
	}

}

// BenchmarkDNSQuery prints the p99 latency of 1,000 A queries of a
// service name over UDP, against a server fed by a real API server.
func BenchmarkDNSQuery(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := framework.StartAPIServer(b, framework.APIServerOptions{Etcd: testEtcd})
	cs := s.Clientset(b)
	ns := s.CreateNamespace(b, "dnsbench")
	factory := informers.NewSharedInformerFactory(cs)
	store, err := dns.NewInformerStore(factory)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := dns.Listen(dns.Config{Store: store, Addr: "127.0.0.1:0"})
	if err != nil {
		b.Fatal(err)
	}
	factory.Start(ctx)
	defer factory.Shutdown()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	defer func() { cancel(); <-done }()
	addr := srv.Addr()
	svc, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "db"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "pg", Port: 5432}}}}, metav1.CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	name := "db." + ns + ".svc.cluster.local."
	framework.WaitFor(b, timeout, name, func() (bool, error) {
		got, err := answers(addr, "udp", name, mdns.TypeA)
		return err == nil && got == svc.Spec.ClusterIP, err
	})
	for range b.N {
		var lat []time.Duration
		for range 1000 {
			t0 := time.Now()
			if _, err := answers(addr, "udp", name, mdns.TypeA); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
		slices.Sort(lat)
		p99 := lat[len(lat)*99/100-1]
		figure.Print("cluster DNS: service A query p99 over 1,000 queries (UDP)", figure.Milliseconds(p99), "ms", "< 5 ms", p99 < 5*time.Millisecond)
	}
}
