package scheduler

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/scheduler"
)

// parallel runs fn(i) for i in [0, n) on workers goroutines and returns
// the first error.
func parallel(n, workers int, fn func(i int) error) error {
	var next atomic.Int64
	var first atomic.Value
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n || first.Load() != nil {
					return
				}
				if err := fn(i); err != nil {
					first.CompareAndSwap(nil, err)
				}
			}
		})
	}
	wg.Wait()
	if err, ok := first.Load().(error); ok {
		return err
	}
	return nil
}

type benchCase struct {
	name         string
	nodes, pods  int
	antiAffinity bool
	target       float64
}

// benchScheduling creates the nodes and the pending pods, then starts the
// scheduler and measures how fast it binds them all, API server and
// embedded etcd included.
func benchScheduling(b *testing.B, bc benchCase) {
	cs, err := typed.NewForConfig(restConfig)
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	n := seq.Add(1)
	ns, schedName := fmt.Sprintf("bench-%d", n), fmt.Sprintf("bench-sched-%d", n)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	err = parallel(bc.nodes, 16, func(i int) error {
		name := fmt.Sprintf("%s-node-%d", ns, i)
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"env": ns, corev1.LabelHostname: name, corev1.LabelTopologyZone: fmt.Sprint("zone-", i%10)}},
			Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse("32"), corev1.ResourceMemory: resource.MustParse("128Gi"), corev1.ResourcePods: resource.MustParse("110"),
			}},
		}
		_, err := cs.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		_ = parallel(bc.nodes, 16, func(i int) error {
			return cs.CoreV1().Nodes().Delete(ctx, fmt.Sprintf("%s-node-%d", ns, i), metav1.DeleteOptions{})
		})
	})
	nodesTook := time.Since(start)
	start = time.Now()
	err = parallel(bc.pods, 16, func(i int) error {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("pod-", i), Namespace: ns, Labels: map[string]string{"app": "bench"}},
			Spec: corev1.PodSpec{
				SchedulerName: schedName,
				NodeSelector:  map[string]string{"env": ns},
				Containers: []corev1.Container{{Name: "c", Image: "pause", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi"),
				}}}},
			},
		}
		if bc.antiAffinity {
			p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
				Weight:          100,
				PodAffinityTerm: corev1.PodAffinityTerm{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "bench"}}, TopologyKey: corev1.LabelHostname},
			}}}}
		}
		_, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	podsTook := time.Since(start)

	reg := prometheus.NewRegistry()
	b.ResetTimer()
	start = time.Now()
	stop := runScheduler(b, cs, scheduler.Config{Metrics: reg, SchedulerName: schedName})
	defer stop()
	for scheduled(b, reg) < bc.pods {
		if time.Since(start) > 10*time.Minute {
			b.Fatalf("only %d of %d pods scheduled after 10 minutes", scheduled(b, reg), bc.pods)
		}
		time.Sleep(5 * time.Millisecond)
	}
	took := time.Since(start)
	b.StopTimer()
	rate := float64(bc.pods) / took.Seconds()
	b.ReportMetric(rate, "pods/s")
	fmt.Printf("scheduler: %-45s %7.0f pods/s (target >= %.0f) in %s; setup: %d nodes in %s, %d pod creates in %s (%.0f/s)\n",
		bc.name, rate, bc.target, took.Round(time.Millisecond), bc.nodes, nodesTook.Round(time.Millisecond), bc.pods, podsTook.Round(time.Millisecond), float64(bc.pods)/podsTook.Seconds())
}

// scheduled reads the scheduler's count of bound pods.
func scheduled(b *testing.B, reg *prometheus.Registry) int {
	mfs, err := reg.Gather()
	if err != nil {
		b.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "scheduler_schedule_attempts_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "result" && l.GetValue() == "scheduled" {
					return int(m.GetCounter().GetValue())
				}
			}
		}
	}
	return 0
}

func BenchmarkScheduling5000Pods500Nodes(b *testing.B) {
	benchScheduling(b, benchCase{name: "5000 pods on 500 nodes", nodes: 500, pods: 5000, target: 1000})
}

func BenchmarkScheduling10000Pods5000Nodes(b *testing.B) {
	benchScheduling(b, benchCase{name: "10000 pods on 5000 nodes", nodes: 5000, pods: 10000, target: 600})
}

func BenchmarkScheduling5000Pods500NodesPreferredAntiAffinity(b *testing.B) {
	benchScheduling(b, benchCase{name: "5000 pods on 500 nodes, preferred anti-affinity", nodes: 500, pods: 5000, antiAffinity: true})
}
