package kubelet

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/kubelet"
)

// report prints one figure beside its target, in the format of every
// kubecore benchmark, on stdout so that `make bench` shows it.
func report(name string, value float64, unit, target string, met bool) {
	verdict := "ok"
	if !met {
		verdict = "MISSED"
	}
	fmt.Printf("figure: %-62s %12s %-4s (target %s: %s)\n", name, strconv.FormatFloat(value, 'f', 1, 64), unit, target, verdict)
}

// BenchmarkPodStartupLatency creates 100 pods on one node with the process
// runtime, 16 at a time, and measures for each the time from its create
// request to a watcher seeing it Ready: Kubernetes' pod startup latency
// (its SLO is p99 ≤ 5 s for stateless pods; ours is 1 s).
func BenchmarkPodStartupLatency(b *testing.B) {
	const pods, clients = 100, 16
	for range b.N {
		e := newAPIEnv(b)
		// The kubelet's own defaults: the benchmark measures what a user gets.
		e.configure = func(c *kubelet.Config) {
			c.NodeStatusUpdateFrequency, c.NodeStatusReportFrequency, c.LeaseRenewInterval = 0, 0, 0
			c.SyncFrequency, c.RelistPeriod = 0, 0
		}
		e.startKubelet("process", true)
		waitNodeReady(b, e)

		ctx, cancel := context.WithTimeout(e.ctx, 2*time.Minute)
		w, err := e.cs.CoreV1().Pods(e.ns).Watch(ctx, metav1.ListOptions{})
		if err != nil {
			b.Fatal(err)
		}
		var mu sync.Mutex
		created := map[string]time.Time{}
		ready := map[string]time.Time{}
		watched := make(chan struct{})
		go func() {
			defer close(watched)
			for ev := range w.ResultChan() {
				p, ok := ev.Object.(*corev1.Pod)
				if !ok || ev.Type == watch.Deleted || !isReady(p) {
					continue
				}
				mu.Lock()
				if _, seen := ready[p.Name]; !seen {
					ready[p.Name] = time.Now()
				}
				n := len(ready)
				mu.Unlock()
				if n == pods {
					return
				}
			}
		}()

		start := time.Now()
		work := make(chan int)
		var wg sync.WaitGroup
		for range clients {
			wg.Go(func() {
				for i := range work {
					name := fmt.Sprintf("startup-%d", i)
					p := &corev1.Pod{
						ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.ns},
						Spec: corev1.PodSpec{NodeName: e.node, Containers: []corev1.Container{{
							Name: "main", Image: "busybox", Command: []string{"sleep", "1000"},
						}}},
					}
					at := time.Now()
					if _, err := e.cs.CoreV1().Pods(e.ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
						b.Errorf("create pod %s: %v", name, err)
						continue
					}
					mu.Lock()
					created[name] = at
					mu.Unlock()
				}
			})
		}
		for i := range pods {
			work <- i
		}
		close(work)
		wg.Wait()
		select {
		case <-watched:
		case <-ctx.Done():
		}
		all := time.Since(start)
		w.Stop()
		cancel()

		mu.Lock()
		var lat []time.Duration
		for name, at := range created {
			if r, ok := ready[name]; ok {
				lat = append(lat, r.Sub(at))
			}
		}
		mu.Unlock()
		if len(lat) != pods {
			b.Fatalf("%d of %d pods were seen Ready within 2m", len(lat), pods)
		}
		slices.Sort(lat)
		p50, p99 := percentile(lat, 50), percentile(lat, 99)
		report("kubelet_pod_startup_latency_p50 (100 pods, process runtime)", ms(p50), "ms", "≤ 1000 ms", p50 <= time.Second)
		report("kubelet_pod_startup_latency_p99 (100 pods, process runtime)", ms(p99), "ms", "≤ 1000 ms", p99 <= time.Second)
		report("kubelet_pod_startup_all_ready (100 pods, process runtime)", ms(all), "ms", "none set", true)
	}
}

// percentile is the p-th percentile of sorted durations (nearest rank).
func percentile(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i-1, 0)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// waitNodeReady waits for the env's kubelet to register a Ready node.
func waitNodeReady(tb testing.TB, e *env) {
	tb.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		n, err := e.cs.CoreV1().Nodes().Get(e.ctx, e.node, metav1.GetOptions{})
		if err == nil {
			for _, c := range n.Status.Conditions {
				if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
					return
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	tb.Fatalf("node %s not Ready after 20s", e.node)
}
