package servicenet

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	mdns "github.com/miekg/dns"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/test/figure"
)

// BenchmarkServiceNetwork prints the three figures on the real
// path of the two-host cluster, measured from node1 (a kubelet with its
// proxy) against a pod on node0 (the all-in-one): the time from a Service
// create to the first connection through its cluster IP, the cluster DNS's
// p99 over 1,000 queries to 10.96.0.10 (through node1's proxy to the DNS
// on node0), and the connection rate through the cluster IP beside the
// rate straight to the pod's IP, in one run.
func BenchmarkServiceNetwork(b *testing.B) {
	c := startCluster(b)
	cs, client := c.cs, c.names[1]
	ctx := context.Background()
	ns := "svcbench"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	labels := map[string]string{"app": "web"}
	// The server accepts and closes with a long listen queue: the rate is
	// the network's, not that of http.server's thread per connection
	// behind its queue of 5.
	d := webDeployment(labels)
	d.Spec.Template.Spec.Containers[0].Command = []string{"python3", "-c", acceptServer}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	var podIP string
	waitFor(b, 120*time.Second, "the web pod ready", func() error {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
		if err != nil {
			return err
		}
		for _, p := range pods.Items {
			for _, cond := range p.Status.Conditions {
				if cond.Type == corev1.PodReady && cond.Status == corev1.ConditionTrue && p.Status.PodIP != "" {
					podIP = p.Status.PodIP
					return nil
				}
			}
		}
		return fmt.Errorf("no ready pod among %d", len(pods.Items))
	})
	if _, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web-h"},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: labels, Ports: []corev1.ServicePort{{Name: "tcp", Port: 8080}}}},
		metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	headless := "web-h." + ns + ".svc.cluster.local"
	direct := net.JoinHostPort(podIP, "8080")
	waitFor(b, 60*time.Second, "the pod from node1", func() error { return dial(client, direct) })

	for i := range b.N {
		// Service create to first connection: the endpoint slice
		// controller and node1's proxy on the way; dials every 5 ms.
		name := fmt.Sprintf("web-%d", i)
		start := time.Now()
		svc, err := cs.CoreV1().Services(ns).Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intOrPort(8080)}}}},
			metav1.CreateOptions{})
		if err != nil {
			b.Fatal(err)
		}
		clusterAddr := net.JoinHostPort(svc.Spec.ClusterIP, "80")
		var firstConn time.Duration
		if err := inNetns(client, func() {
			for time.Since(start) < 60*time.Second {
				if c, err := net.DialTimeout("tcp", clusterAddr, 100*time.Millisecond); err == nil {
					_ = c.Close()
					firstConn = time.Since(start)
					return
				}
				time.Sleep(5 * time.Millisecond)
			}
		}); err != nil {
			b.Fatal(err)
		}
		if firstConn == 0 {
			b.Fatalf("no connection through %s within 60s", clusterAddr)
		}

		// DNS: the Service's A record, one query at a time.
		fqdn := name + "." + ns + ".svc.cluster.local"
		waitFor(b, 60*time.Second, "the Service's name", func() error {
			got, err := lookup(client, "10.96.0.10:53", fqdn)
			if err != nil || got != svc.Spec.ClusterIP {
				return fmt.Errorf("lookup %s: %q %v", fqdn, got, err)
			}
			return nil
		})
		lat, err := queries(client, "10.96.0.10:53", fqdn, 1000)
		if err != nil {
			b.Fatal(err)
		}
		slices.Sort(lat)
		p50, p99 := lat[len(lat)/2-1], lat[len(lat)*99/100-1]

		// Connection rate: connect and close, n times each way, in
		// alternating rounds so that both see the same load of the
		// machine.
		const rounds, n = 10, 1000
		var viaTime, directTime time.Duration
		for range rounds {
			d, err := dialMany(client, clusterAddr, n/rounds)
			if err != nil {
				b.Fatal(err)
			}
			viaTime += d
			if d, err = dialMany(client, direct, n/rounds); err != nil {
				b.Fatal(err)
			}
			directTime += d
		}
		via, straight := float64(n)/viaTime.Seconds(), float64(n)/directTime.Seconds()

		// Scaling: 2 ready pods, then 1; from the scale-down's update to
		// the headless name answering one address from node1 (the
		// Deployment and ReplicaSet controllers, the pod's deletion, the
		// endpoint slice and the DNS's cache on the way).
		scale(b, cs, ns, 2)
		waitFor(b, 120*time.Second, "two addresses", func() error {
			got, err := lookup(client, "10.96.0.10:53", headless)
			if err != nil || strings.Count(got, ",") != 1 {
				return fmt.Errorf("lookup %s: %q %v", headless, got, err)
			}
			return nil
		})
		start = time.Now()
		scale(b, cs, ns, 1)
		var answerChange time.Duration
		waitFor(b, 60*time.Second, "one address", func() error {
			got, err := lookup(client, "10.96.0.10:53", headless)
			if err != nil || got == "" || strings.Contains(got, ",") {
				return fmt.Errorf("lookup %s: %q %v", headless, got, err)
			}
			answerChange = time.Since(start)
			return nil
		})

		figure.Print("servicenet: Service create to first connection (other node)", figure.Milliseconds(firstConn), "ms", "< 1000 ms", firstConn < time.Second)
		figure.Print("servicenet: DNS p50 via 10.96.0.10, 1,000 queries", figure.Milliseconds(p50), "ms", "reference", true)
		figure.Print("servicenet: DNS p99 via 10.96.0.10, 1,000 queries", figure.Milliseconds(p99), "ms", "< 5 ms", p99 < 5*time.Millisecond)
		figure.Print("servicenet: connections/s through a cluster IP (other node)", via, "/s", "> 50% of direct", via > straight/2)
		figure.Print("servicenet: connections/s direct to the pod IP (same run)", straight, "/s", "reference", true)
		figure.Print("servicenet: Deployment scaled 2 to 1 to the DNS answer (other node)", figure.Milliseconds(answerChange), "ms", "< 1000 ms", answerChange < time.Second)
	}
}

// scale sets the web Deployment's replicas.
func scale(b *testing.B, cs *typed.Clientset, ns string, replicas int32) {
	b.Helper()
	d, err := cs.AppsV1().Deployments(ns).Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		b.Fatal(err)
	}
	d.Spec.Replicas = &replicas
	if _, err := cs.AppsV1().Deployments(ns).Update(context.Background(), d, metav1.UpdateOptions{}); err != nil {
		b.Fatal(err)
	}
}

// acceptServer is a python3 program accepting connections on 8080 and
// closing each at once.
const acceptServer = `import socket
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("", 8080))
s.listen(4096)
while True:
    c, _ = s.accept()
    c.close()
`

// queries sends n A queries for name to server from namespace ns, one
// after the other over UDP, and returns each one's latency.
func queries(ns, server, name string, n int) ([]time.Duration, error) {
	lat := make([]time.Duration, 0, n)
	var qerr error
	if err := inNetns(ns, func() {
		cl := &mdns.Client{Timeout: 2 * time.Second}
		m := new(mdns.Msg)
		m.SetQuestion(mdns.Fqdn(name), mdns.TypeA)
		for range n {
			r, rtt, err := cl.Exchange(m, server)
			if err == nil && len(r.Answer) == 0 {
				err = fmt.Errorf("no answer: %s", r)
			}
			if err != nil {
				qerr = fmt.Errorf("query %s: %w", name, err)
				return
			}
			lat = append(lat, rtt)
		}
	}); err != nil {
		return nil, err
	}
	return lat, qerr
}

// dialMany connects to addr and closes, n times in a row from namespace
// ns, and returns the time it took.
func dialMany(ns, addr string, n int) (time.Duration, error) {
	var d time.Duration
	var derr error
	if err := inNetns(ns, func() {
		start := time.Now()
		for i := range n {
			c, err := net.DialTimeout("tcp", addr, 2*time.Second)
			if err != nil {
				derr = fmt.Errorf("connection %d to %s: %w", i, addr, err)
				return
			}
			_ = c.Close()
		}
		d = time.Since(start)
	}); err != nil {
		return 0, err
	}
	return d, derr
}
