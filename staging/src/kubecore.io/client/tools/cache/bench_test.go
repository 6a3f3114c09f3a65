package cache

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/watch"
)

// figure prints one figure on stdout, where `make bench` shows it, beside
// its target; issue 4 sets none for these ("" prints "target none set").
func figure(name string, value float64, unit, target string) {
	if target == "" {
		target = "none set"
	}
	fmt.Printf("figure: %-62s %12s %-4s (target %s)\n", name, formatValue(value), unit, target)
}

func benchPod(i int) corev1.Pod {
	return corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: fmt.Sprintf("ns-%d", i%50), Name: fmt.Sprintf("pod-%d", i),
			ResourceVersion: strconv.Itoa(i + 1), UID: types.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", i)),
			Labels: map[string]string{"app": fmt.Sprintf("app-%d", i%100), "tier": "web"},
		},
		Spec: corev1.PodSpec{
			NodeName:   fmt.Sprintf("node-%d", i%500),
			Containers: []corev1.Container{{Name: "main", Image: "registry.example/app:v1"}},
		},
	}
}

// BenchmarkInitialSync50kPods lists 50,000 pods through a fake
// ListerWatcher into an informer with a handler and a node index.
func BenchmarkInitialSync50kPods(b *testing.B) {
	const n = 50000
	var heapMiB float64
	for b.Loop() {
		b.StopTimer()
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(n)}, Items: make([]corev1.Pod, n)}
		for i := range list.Items {
			list.Items[i] = benchPod(i)
		}
		lw := ListWatch{
			ListFunc: func(context.Context, metav1.ListOptions) (k8sruntime.Object, error) { return list, nil },
			WatchFunc: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
				return watch.NewFake(), nil
			},
		}
		b.StartTimer()

		inf := NewInformer[*corev1.Pod](lw, InformerOptions{})
		if err := inf.AddIndexers(map[string]IndexFunc[*corev1.Pod]{"nodeName": func(p *corev1.Pod) ([]string, error) {
			return []string{p.Spec.NodeName}, nil
		}}); err != nil {
			b.Fatal(err)
		}
		var adds atomic.Int64
		reg, err := inf.AddEventHandler(ResourceEventHandlerFuncs[*corev1.Pod]{
			AddFunc: func(*corev1.Pod, bool) { adds.Add(1) },
		})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { inf.Run(ctx); close(done) }()
		if !WaitForCacheSync(ctx, reg.HasSynced) || adds.Load() != n {
			b.Fatalf("synced with %d adds, want %d", adds.Load(), n)
		}

		b.StopTimer()
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		heapMiB = float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / (1 << 20)
		runtime.KeepAlive(list)
		cancel()
		<-done
		b.StartTimer()
	}
	secs := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(secs, "s/sync")
	b.ReportMetric(heapMiB, "MiB")
	figure("informer initial sync of 50,000 pods, in-process list", secs, "s", "")
	figure("  heap held, the list included", heapMiB, "MiB", "")
}

// BenchmarkEventThroughput sends MODIFIED events for 1,000 pods through an
// informer to one handler. Each op is a batch of 100,000 events, so that the
// figure holds at -benchtime=1x, which `make bench` runs.
func BenchmarkEventThroughput(b *testing.B) {
	const objects, batch = 1000, 100000
	w := watch.NewFakeWithChanSize(1024)
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
	lw := ListWatch{
		ListFunc:  func(context.Context, metav1.ListOptions) (k8sruntime.Object, error) { return list, nil },
		WatchFunc: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return w, nil },
	}
	inf := NewInformer[*corev1.Pod](lw, InformerOptions{})
	var seen, want atomic.Int64
	all := make(chan struct{}, 1)
	count := func() {
		if seen.Add(1) == want.Load() {
			all <- struct{}{}
		}
	}
	if _, err := inf.AddEventHandler(ResourceEventHandlerFuncs[*corev1.Pod]{
		AddFunc:    func(*corev1.Pod, bool) { count() },
		UpdateFunc: func(_, _ *corev1.Pod) { count() },
	}); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { inf.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	if !WaitForCacheSync(ctx, inf.HasSynced) {
		b.Fatal("no sync")
	}
	rv := 1
	events := 0
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		// New objects each round: the informer keeps those it was sent.
		pods := make([]*corev1.Pod, batch)
		for i := range pods {
			p := benchPod(i % objects)
			rv++
			p.ResourceVersion = strconv.Itoa(rv)
			pods[i] = &p
		}
		want.Add(batch)
		b.StartTimer()
		for _, p := range pods {
			w.Modify(p)
		}
		<-all
		events += batch
	}
	rate := float64(events) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "events/s")
	figure("events through an informer to a handler, in-process watch", rate, "/s", "")
}

// formatValue prints figures below 100 with three decimals, larger ones
// whole.
func formatValue(v float64) string {
	if v < 100 {
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}
