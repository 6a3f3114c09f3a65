package framework

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
	"kubecore.io/client/typed"
)

// PodStartup is what MeasurePodStartup saw.
type PodStartup struct {
	// Latencies are, sorted, each pod's time from its create request to a
	// watcher seeing it Ready: Kubernetes' pod startup latency.
	Latencies []time.Duration
	// AllReady is the time from the first create to the last pod Ready.
	AllReady time.Duration
}

// Percentile is the p-th percentile of the latencies (nearest rank).
func (s PodStartup) Percentile(p int) time.Duration {
	i := (len(s.Latencies)*p + 99) / 100
	return s.Latencies[max(i-1, 0)]
}

// MeasurePodStartup creates n pods in ns made by newPod (given a name),
// clients at a time, and watches them become Ready; it fails unless every
// one does within timeout.
func MeasurePodStartup(ctx context.Context, cs *typed.Clientset, ns string, n, clients int, timeout time.Duration, newPod func(name string) *corev1.Pod) (PodStartup, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	w, err := cs.CoreV1().Pods(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		return PodStartup{}, fmt.Errorf("watch pods: %w", err)
	}
	defer w.Stop()
	var mu sync.Mutex
	created := map[string]time.Time{}
	ready := map[string]time.Time{}
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok || ev.Type == watch.Deleted || !podReady(p) {
				continue
			}
			mu.Lock()
			if _, seen := ready[p.Name]; !seen {
				ready[p.Name] = time.Now()
			}
			all := len(ready) == n
			mu.Unlock()
			if all {
				return
			}
		}
	}()

	start := time.Now()
	work := make(chan int)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for i := range work {
				name := "startup-" + strconv.Itoa(i)
				at := time.Now()
				if _, err := cs.CoreV1().Pods(ns).Create(ctx, newPod(name), metav1.CreateOptions{}); err != nil {
					errs <- fmt.Errorf("create pod %s: %w", name, err)
					continue
				}
				mu.Lock()
				created[name] = at
				mu.Unlock()
			}
		})
	}
	for i := range n {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return PodStartup{}, err
	}
	select {
	case <-watched:
	case <-ctx.Done():
	}
	s := PodStartup{AllReady: time.Since(start)}
	mu.Lock()
	defer mu.Unlock()
	for name, at := range created {
		if r, ok := ready[name]; ok {
			s.Latencies = append(s.Latencies, r.Sub(at))
		}
	}
	if len(s.Latencies) != n {
		return PodStartup{}, fmt.Errorf("%d of %d pods were seen Ready within %s", len(s.Latencies), n, timeout)
	}
	slices.Sort(s.Latencies)
	return s, nil
}

// WaitForNodeReady polls node until its Ready condition is True, failing
// tb past timeout.
func WaitForNodeReady(ctx context.Context, tb testing.TB, cs *typed.Clientset, node string, timeout time.Duration) {
	tb.Helper()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		n, err := cs.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			continue
		}
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				return
			}
		}
	}
	tb.Fatalf("node %s not Ready after %s", node, timeout)
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
