package cache

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/watch"
)

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
	b.Logf("figure: initial sync of 50,000 pods %.3f s (target: < 2 s, proposed; issue 4 sets none), heap %.1f MiB including the list (target: < 200 MiB, proposed)", secs, heapMiB)
}

// BenchmarkEventThroughput sends MODIFIED events for 1,000 pods through an
// informer to one handler.
func BenchmarkEventThroughput(b *testing.B) {
	const objects = 1000
	w := watch.NewFakeWithChanSize(1024)
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}}
	lw := ListWatch{
		ListFunc:  func(context.Context, metav1.ListOptions) (k8sruntime.Object, error) { return list, nil },
		WatchFunc: func(context.Context, metav1.ListOptions) (watch.Interface, error) { return w, nil },
	}
	pods := make([]*corev1.Pod, b.N)
	for i := range pods {
		p := benchPod(i % objects)
		p.ResourceVersion = strconv.Itoa(i + 2)
		pods[i] = &p
	}
	inf := NewInformer[*corev1.Pod](lw, InformerOptions{})
	var seen atomic.Int64
	all := make(chan struct{})
	count := func() {
		if seen.Add(1) == int64(b.N) {
			close(all)
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
	b.ResetTimer()
	start := time.Now()
	for _, p := range pods {
		w.Modify(p)
	}
	<-all
	rate := float64(b.N) / time.Since(start).Seconds()
	b.ReportMetric(rate, "events/s")
	b.Logf("figure: %.0f events/s through an informer to a handler (target: > 50,000 events/s, proposed; issue 4 sets none)", rate)
}
