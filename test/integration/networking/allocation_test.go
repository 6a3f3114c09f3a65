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

	"kubecore.io/kubecore/test/integration/framework"
)

// TestConcurrentAllocation creates 2,000 NodePort services through two API
// servers sharing one etcd, 16 at a time, and checks that no cluster IP
// and no node port was handed out twice, and that each cluster IP has its
// IPAddress naming its service.
func TestConcurrentAllocation(t *testing.T) {
	const services, workers = 2000, 16
	servers := []*framework.APIServer{
		framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd}),
		framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd}),
	}
	ns := servers[0].CreateNamespace(t, "alloc")
	clients := []*http.Client{servers[0].HTTPClient(t), servers[1].HTTPClient(t)}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	jobs := make(chan int)
	var (
		mu       sync.Mutex
		ips      = map[string]string{}
		ports    = map[int32]string{}
		firstErr error
	)
	fail := func(err error) {
		mu.Lock()
		if firstErr == nil {
			firstErr = err
			cancel()
		}
		mu.Unlock()
	}
	start := time.Now()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				s, c := servers[(i+w)%2], clients[(i+w)%2]
				name := fmt.Sprintf("svc-%d", i)
				svc := corev1.Service{
					TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
					ObjectMeta: metav1.ObjectMeta{Name: name},
					Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}}},
				}
				var out corev1.Service
				code, body, err := call(ctx, c, s, "POST", "/api/v1/namespaces/"+ns+"/services", svc, &out)
				if err == nil && code != 201 {
					err = fmt.Errorf("create %s: code %d: %s", name, code, body)
				}
				if err != nil {
					fail(err)
					continue
				}
				mu.Lock()
				if other, dup := ips[out.Spec.ClusterIP]; dup {
					firstErr = fmt.Errorf("cluster IP %s handed to %s and %s", out.Spec.ClusterIP, other, name)
				}
				ips[out.Spec.ClusterIP] = name
				port := out.Spec.Ports[0].NodePort
				if other, dup := ports[port]; dup {
					firstErr = fmt.Errorf("node port %d handed to %s and %s", port, other, name)
				}
				ports[port] = name
				mu.Unlock()
			}
		}()
	}
	for i := range services {
		select {
		case jobs <- i:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
	if firstErr != nil {
		t.Fatal(firstErr)
	}
	elapsed := time.Since(start)
	t.Logf("%d services through 2 API servers in %s (%.0f/s)", services, elapsed.Round(time.Millisecond), float64(services)/elapsed.Seconds())
	if len(ips) != services || len(ports) != services {
		t.Fatalf("%d distinct cluster IPs and %d node ports for %d services", len(ips), len(ports), services)
	}

	// Every cluster IP is an IPAddress naming its service, whichever
	// server is asked.
	var list networkingv1.IPAddressList
	mustCall(t, clients[1], servers[1], "GET", "/apis/networking.k8s.io/v1/ipaddresses", nil, 200, &list)
	byIP := map[string]*networkingv1.ParentReference{}
	for _, a := range list.Items {
		byIP[a.Name] = a.Spec.ParentRef
	}
	for ip, name := range ips {
		ref := byIP[ip]
		if ref == nil || ref.Resource != "services" || ref.Namespace != ns || ref.Name != name {
			t.Fatalf("IPAddress %s: parent %+v, want services/%s/%s", ip, ref, ns, name)
		}
	}
}
