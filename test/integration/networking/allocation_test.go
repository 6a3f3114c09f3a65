package networking

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	networkingv1 "kubecore.io/api/networking/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/test/figure"
	"kubecore.io/kubecore/test/integration/framework"
)

// allocations are the cluster IPs and node ports handed out, each to the
// service that got it.
type allocations struct {
	ips   map[string]string
	ports map[int32]string
}

// createServices creates n NodePort services in ns, workers at a time,
// alternating between servers, and records what each got; it fails on
// the first error or on an address or port handed out twice.
func createServices(ctx context.Context, servers []*framework.APIServer, clients []*http.Client, ns string, n, workers int) (allocations, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	got := allocations{ips: map[string]string{}, ports: map[int32]string{}}
	var (
		mu       sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if firstErr == nil {
			firstErr = err
			cancel()
		}
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				k := (i + w) % len(servers)
				name := fmt.Sprintf("svc-%d", i)
				svc := corev1.Service{
					TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
					ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}}},
				}
				var out corev1.Service
				code, body, err := call(ctx, clients[k], servers[k], "POST", "/api/v1/namespaces/"+ns+"/services", svc, &out)
				if err == nil && code != http.StatusCreated {
					err = fmt.Errorf("create %s: code %d: %s", name, code, body)
				}
				if err != nil {
					fail(err)
					continue
				}
				mu.Lock()
				ip, port := out.Spec.ClusterIP, out.Spec.Ports[0].NodePort
				if other, dup := got.ips[ip]; dup {
					firstErr = fmt.Errorf("cluster IP %s handed to %s and %s", ip, other, name)
				}
				if other, dup := got.ports[port]; dup {
					firstErr = fmt.Errorf("node port %d handed to %s and %s", port, other, name)
				}
				got.ips[ip], got.ports[port] = name, name
				mu.Unlock()
			}
		}()
	}
	for i := range n {
		select {
		case jobs <- i:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
	return got, firstErr
}

// deleteServices deletes the services got names, workers at a time, one
// request each.
func deleteServices(ctx context.Context, s *framework.APIServer, c *http.Client, ns string, got allocations, workers int) error {
	names := make(chan string)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range names {
				code, body, err := call(ctx, c, s, "DELETE", "/api/v1/namespaces/"+ns+"/services/"+name, nil, nil)
				if err == nil && code != http.StatusOK {
					err = fmt.Errorf("delete %s: code %d: %s", name, code, body)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	go func() {
		defer close(names)
		for _, name := range got.ips {
			select {
			case names <- name:
			case <-ctx.Done():
				return
			}
		}
	}()
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// startPair starts two API servers on the package's etcd.
func startPair(tb testing.TB) ([]*framework.APIServer, []*http.Client) {
	servers := []*framework.APIServer{
		framework.StartAPIServer(tb, framework.APIServerOptions{Etcd: testEtcd}),
		framework.StartAPIServer(tb, framework.APIServerOptions{Etcd: testEtcd}),
	}
	return servers, []*http.Client{servers[0].HTTPClient(tb), servers[1].HTTPClient(tb)}
}

// TestConcurrentAllocation creates 2,000 NodePort services through two API
// servers sharing one etcd, 16 at a time, and checks that no cluster IP
// and no node port was handed out twice, and that each cluster IP has its
// IPAddress naming its service.
func TestConcurrentAllocation(t *testing.T) {
	const services, workers = 2000, 16
	servers, clients := startPair(t)
	ns := servers[0].CreateNamespace(t, "alloc")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	got, err := createServices(ctx, servers, clients, ns, services, workers)
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	t.Logf("%d services through 2 API servers in %s (%.0f/s)", services, elapsed.Round(time.Millisecond), float64(services)/elapsed.Seconds())
	if len(got.ips) != services || len(got.ports) != services {
		t.Fatalf("%d distinct cluster IPs and %d node ports for %d services", len(got.ips), len(got.ports), services)
	}

	// Every cluster IP is an IPAddress naming its service, whichever
	// server is asked.
	var list networkingv1.IPAddressList
	mustCall(t, clients[1], servers[1], "GET", "/apis/networking.k8s.io/v1/ipaddresses", nil, http.StatusOK, &list)
	byIP := map[string]*networkingv1.ParentReference{}
	for _, a := range list.Items {
		byIP[a.Name] = a.Spec.ParentRef
	}
	for ip, name := range got.ips {
		ref := byIP[ip]
		if ref == nil || ref.Resource != "services" || ref.Namespace != ns || ref.Name != name {
			t.Fatalf("IPAddress %s: parent %+v, want services/%s/%s", ip, ref, ns, name)
		}
	}

	// Deleting the services frees every address.
	if err := deleteServices(ctx, servers[0], clients[0], ns, got, workers); err != nil {
		t.Fatal(err)
	}
	mustCall(t, clients[0], servers[0], "GET", "/apis/networking.k8s.io/v1/ipaddresses", nil, http.StatusOK, &list)
	for _, a := range list.Items {
		if a.Spec.ParentRef != nil && a.Spec.ParentRef.Namespace == ns {
			t.Fatalf("IPAddress %s outlived its service %s", a.Name, a.Spec.ParentRef.Name)
		}
	}
}

// BenchmarkServiceAllocation measures NodePort service creates through
// two API servers sharing one etcd, 16 clients: each create takes a
// cluster IP (an IPAddress) and a node port (a compare-and-swap on the
// range bitmap).
func BenchmarkServiceAllocation(b *testing.B) {
	const services, workers = 500, 16
	servers, clients := startPair(b)
	for b.Loop() {
		ns := servers[0].CreateNamespace(b, "bench")
		start := time.Now()
		got, err := createServices(context.Background(), servers, clients, ns, services, workers)
		if err != nil {
			b.Fatal(err)
		}
		rate := float64(services) / time.Since(start).Seconds()
		b.ReportMetric(rate, "services/s")
		figure.Print("service_create_rate (NodePort, 2 API servers, 16 clients)", rate, "/s", "none set", true)
		b.StopTimer()
		if err := deleteServices(context.Background(), servers[0], clients[0], ns, got, workers); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}
