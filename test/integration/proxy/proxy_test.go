package proxy

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	discoveryv1 "kubecore.io/api/discovery/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/informers"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/proxy"
	"kubecore.io/kubecore/test/figure"
	"kubecore.io/kubecore/test/integration/framework"
)

const timeout = 30 * time.Second

// runProxy runs a proxy for node n1 in h until the returned stop is
// called; stop waits for it to delete its table.
func runProxy(t testing.TB, cs *typed.Clientset, h *host) (*proxy.Proxy, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	factory := informers.NewSharedInformerFactory(cs)
	p, err := proxy.New(proxy.Config{NodeName: "n1", NetNSFd: h.fd}, factory)
	if err != nil {
		t.Fatal(err)
	}
	factory.Start(ctx)
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("proxy: %v", err)
		}
		factory.Shutdown()
	}
	t.Cleanup(stop)
	return p, stop
}

func endpointSlice(name, svc string, port int32, ips ...string) *discoveryv1.EndpointSlice {
	tcp, pname, node := corev1.ProtocolTCP, "http", "n1"
	s := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Ports:       []discoveryv1.EndpointPort{{Name: &pname, Protocol: &tcp, Port: &port}}}
	for _, ip := range ips {
		s.Endpoints = append(s.Endpoints, discoveryv1.Endpoint{Addresses: []string{ip}, NodeName: &node, Conditions: discoveryv1.EndpointConditions{Ready: new(true)}})
	}
	return s
}

// waitReply polls addr until a connection returns want.
func waitReply(t testing.TB, h *host, addr, want string) time.Duration {
	t.Helper()
	start := time.Now()
	framework.WaitFor(t, timeout, addr+" answers "+want, func() (bool, error) {
		// Before the rules exist a SYN to a cluster IP goes unanswered: a
		// short timeout keeps the poll fine-grained (loopback-fast here).
		got, err := h.dial(addr, 200*time.Millisecond)
		if err != nil {
			return false, err
		}
		if got != want {
			return false, fmt.Errorf("answered %q", got)
		}
		return true, nil
	})
	return time.Since(start)
}

func TestServiceProxy(t *testing.T) { serviceProxyScenario(t, false) }

// BenchmarkServiceProxy prints the figures of the scenario: Service create
// to first connection, endpoint change to first connection to it, and the
// connection rate through a cluster IP against direct.
func BenchmarkServiceProxy(b *testing.B) {
	for range b.N {
		serviceProxyScenario(b, true)
	}
}

// serviceProxyScenario drives a proxy in a network namespace through
// Service and EndpointSlice changes and checks every connection.
func serviceProxyScenario(t testing.TB, printFigures bool) {
	ctx := context.Background()
	h := newHost(t, "10.0.0.1", "10.0.0.2")
	h.serve(t, "10.0.0.1:8080", "a")
	h.serve(t, "10.0.0.2:8080", "b")
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	cs := s.Clientset(t)
	ns := s.CreateNamespace(t, "proxy")
	p, stop := runProxy(t, cs, h)
	framework.WaitFor(t, timeout, "first sync", func() (bool, error) { n, _ := p.Synced(); return n > 0, nil })

	// A Service and its endpoints: the first connection through it.
	start := time.Now()
	web, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	slice, err := cs.DiscoveryV1().EndpointSlices(ns).Create(ctx, endpointSlice("web-1", "web", 8080, "10.0.0.1"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	clusterAddr := net.JoinHostPort(web.Spec.ClusterIP, "80")
	waitReply(t, h, clusterAddr, "a")
	createToConn := time.Since(start)

	// Node port on the node's address.
	nodeAddr := net.JoinHostPort("10.0.0.2", strconv.Itoa(int(web.Spec.Ports[0].NodePort)))
	waitReply(t, h, nodeAddr, "a")

	// Scaling: the second endpoint gets connections.
	slice.Endpoints = append(slice.Endpoints, endpointSlice("", "", 0, "10.0.0.2").Endpoints...)
	start = time.Now()
	if slice, err = cs.DiscoveryV1().EndpointSlices(ns).Update(ctx, slice, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitReply(t, h, clusterAddr, "b")
	scaleUp := time.Since(start)
	// Scaling down: only the second stays.
	slice.Endpoints = slice.Endpoints[1:]
	if _, err = cs.DiscoveryV1().EndpointSlices(ns).Update(ctx, slice, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, timeout, "only b answers", func() (bool, error) {
		for range 20 {
			if got, err := h.dial(clusterAddr, time.Second); err != nil || got != "b" {
				return false, fmt.Errorf("answered %q, %v", got, err)
			}
		}
		return true, nil
	})

	// A Service without endpoints refuses connections.
	empty, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "empty"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	framework.WaitFor(t, timeout, "empty service refuses", func() (bool, error) {
		_, err := h.dial(net.JoinHostPort(empty.Spec.ClusterIP, "80"), time.Second)
		if errors.Is(err, syscall.ECONNREFUSED) {
			return true, nil
		}
		return false, fmt.Errorf("dial: %v", err)
	})

	// Figures: connection rate through the cluster IP and direct.
	const n = 300
	direct, err := h.dialMany("10.0.0.2:8080", n)
	if err != nil {
		t.Fatal(err)
	}
	via, err := h.dialMany(clusterAddr, n)
	if err != nil {
		t.Fatal(err)
	}
	viaRate, directRate := float64(n)/via.Seconds(), float64(n)/direct.Seconds()
	if printFigures {
		figure.Print("service proxy: Service create to first connection through it", figure.Milliseconds(createToConn), "ms", "< 1000 ms", createToConn < time.Second)
		figure.Print("service proxy: endpoint added to first connection to it", figure.Milliseconds(scaleUp), "ms", "< 1000 ms", scaleUp < time.Second)
		figure.Print("service proxy: connections/s through a cluster IP", viaRate, "/s", "> 50% of direct", viaRate > directRate/2)
		figure.Print("service proxy: connections/s direct to the endpoint", directRate, "/s", "reference", true)
	}

	// A restart writes identical rules, and stopping leaves nothing.
	before := h.listing(t)
	if !strings.Contains(before, "svc-") {
		t.Fatalf("no service chains in the table:\n%s", before)
	}
	stop()
	if got := h.listing(t); got != "" {
		t.Fatalf("table left after the proxy stopped:\n%s", got)
	}
	p2, _ := runProxy(t, cs, h)
	framework.WaitFor(t, timeout, "restarted proxy synced", func() (bool, error) { n, _ := p2.Synced(); return n > 0, nil })
	if after := h.listing(t); after != before {
		t.Errorf("rules differ after a restart:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	waitReply(t, h, clusterAddr, "b")
}
