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
	schedulingv1 "kubecore.io/api/scheduling/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/scheduler"

	"kubecore.io/kubecore/test/figure"
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
	// target is the floor in pods/s; 0 means none is set.
	target float64
}

// benchNamespace makes a namespace and a scheduler name for one benchmark.
func benchNamespace(b *testing.B, cs *typed.Clientset) (ns, schedName string) {
	n := seq.Add(1)
	ns, schedName = fmt.Sprintf("bench-%d", n), fmt.Sprintf("bench-sched-%d", n)
	if _, err := cs.CoreV1().Namespaces().Create(b.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	return ns, schedName
}

// benchNodes creates count nodes of cpu CPUs labelled for ns, deleted when
// the benchmark ends.
func benchNodes(b *testing.B, cs *typed.Clientset, ns string, count int, cpu string) time.Duration {
	start := time.Now()
	err := parallel(count, 16, func(i int) error {
		name := fmt.Sprintf("%s-node-%d", ns, i)
		node := &corev1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"env": ns, corev1.LabelHostname: name, corev1.LabelTopologyZone: fmt.Sprint("zone-", i%10)}},
			Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("128Gi"), corev1.ResourcePods: resource.MustParse("110"),
			}},
		}
		_, err := cs.CoreV1().Nodes().Create(b.Context(), node, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		_ = parallel(count, 16, func(i int) error {
			return cs.CoreV1().Nodes().Delete(ctx, fmt.Sprintf("%s-node-%d", ns, i), metav1.DeleteOptions{})
		})
	})
	return time.Since(start)
}

// benchPod is a pending pod of the benchmark's scheduler asking for cpu.
func benchPod(ns, schedName, name, cpu string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": "bench"}},
		Spec: corev1.PodSpec{
			SchedulerName: schedName,
			NodeSelector:  map[string]string{"env": ns},
			Containers: []corev1.Container{{Name: "c", Image: "pause", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("128Mi"),
			}}}},
		},
	}
}

// waitScheduledCount waits until the scheduler's metrics count n bound pods and
// returns how long that took from start.
func waitScheduledCount(b *testing.B, reg *prometheus.Registry, n int, start time.Time) time.Duration {
	for scheduled(b, reg) < n {
		if time.Since(start) > 10*time.Minute {
			b.Fatalf("only %d of %d pods scheduled after 10 minutes", scheduled(b, reg), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(start)
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
	ns, schedName := benchNamespace(b, cs)
	nodesTook := benchNodes(b, cs, ns, bc.nodes, "32")
	start := time.Now()
	err = parallel(bc.pods, 16, func(i int) error {
		p := benchPod(ns, schedName, fmt.Sprint("pod-", i), "100m")
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
	took := waitScheduledCount(b, reg, bc.pods, start)
	b.StopTimer()
	rate := float64(bc.pods) / took.Seconds()
	b.ReportMetric(rate, "pods/s")
	target, met := "none set", true
	if bc.target > 0 {
		target, met = fmt.Sprintf(">= %.0f", bc.target), rate >= bc.target
	}
	figure.Print("scheduler: "+bc.name, rate, "pods/s", target, met)
	b.Logf("%s: %d pods bound in %s; setup: %d nodes in %s, %d pod creates in %s (%.0f/s)",
		bc.name, bc.pods, took.Round(time.Millisecond), bc.nodes, nodesTook.Round(time.Millisecond), bc.pods, podsTook.Round(time.Millisecond), float64(bc.pods)/podsTook.Seconds())
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

func BenchmarkScheduling10000Pods5000NodesPreferredAntiAffinity(b *testing.B) {
	benchScheduling(b, benchCase{name: "10000 pods on 5000 nodes, preferred anti-affinity", nodes: 5000, pods: 10000, antiAffinity: true})
}

// BenchmarkPreemption1000Pods fills 100 nodes of 10 CPUs with 1,000 running
// low-priority pods of 1 CPU, then measures how fast the scheduler places
// 1,000 high-priority pods of 1 CPU, each of which must evict one.
func BenchmarkPreemption1000Pods(b *testing.B) {
	const nodes, pods = 100, 1000
	cs, err := typed.NewForConfig(restConfig)
	if err != nil {
		b.Fatal(err)
	}
	ctx := b.Context()
	ns, schedName := benchNamespace(b, cs)
	for name, value := range map[string]int32{"low": 10, "high": 1000} {
		pc := &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: ns + "-" + name}, Value: value}
		if _, err := cs.SchedulingV1().PriorityClasses().Create(ctx, pc, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() {
			_ = cs.SchedulingV1().PriorityClasses().Delete(context.Background(), pc.Name, metav1.DeleteOptions{})
		})
	}
	benchNodes(b, cs, ns, nodes, "10")
	zero := int64(0)
	err = parallel(pods, 16, func(i int) error {
		p := benchPod(ns, schedName, fmt.Sprint("low-", i), "1")
		p.Spec.NodeName = fmt.Sprintf("%s-node-%d", ns, i%nodes)
		p.Spec.PriorityClassName = ns + "-low"
		p.Spec.TerminationGracePeriodSeconds = &zero
		_, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	stop := runScheduler(b, cs, scheduler.Config{Metrics: reg, SchedulerName: schedName})
	defer stop()
	b.ResetTimer()
	start := time.Now()
	err = parallel(pods, 16, func(i int) error {
		p := benchPod(ns, schedName, fmt.Sprint("high-", i), "1")
		p.Spec.PriorityClassName = ns + "-high"
		_, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	took := waitScheduledCount(b, reg, pods, start)
	b.StopTimer()
	rate := float64(pods) / took.Seconds()
	b.ReportMetric(rate, "pods/s")
	figure.Print("scheduler: preemption, 1000 pods each evicting one", rate, "pods/s", "none set", true)
	list, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range list.Items {
		if p.Spec.PriorityClassName == ns+"-low" && p.DeletionTimestamp == nil {
			b.Fatalf("low-priority pod %s survived: 1,000 preemptors need all 1,000 places", p.Name)
		}
	}
}
