package informer

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/tools/cache"

	"kubecore.io/kubecore/test/integration/client/testserver"
)

// figure prints one figure on stdout, where `make bench` shows it, beside
// its target; issue 4 sets none for these.
func figure(name string, value float64, unit string) {
	fmt.Printf("figure: %-62s %12s %-4s (target none set)\n", name, formatValue(value), unit)
}

// createPods creates n pods in namespace with writers goroutines and
// returns how long it took.
func createPods(ctx context.Context, b *testing.B, s *testserver.Server, namespace string, n, writers int) time.Duration {
	b.Helper()
	client := s.Clientset.CoreV1().Pods(namespace)
	start := time.Now()
	var wg sync.WaitGroup
	var failed atomic.Bool
	for w := range writers {
		wg.Go(func() {
			for i := w; i < n && !failed.Load(); i += writers {
				pod := &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{
						Name:   fmt.Sprintf("pod-%05d", i),
						Labels: map[string]string{"app": "app-" + strconv.Itoa(i%100), "tier": "web"},
					},
					Spec: corev1.PodSpec{
						NodeName:   "node-" + strconv.Itoa(i%500),
						Containers: []corev1.Container{{Name: "main", Image: "registry.example/app:v1"}},
					},
				}
				if _, err := client.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
					failed.Store(true)
					b.Errorf("create pod %d: %v", i, err)
				}
			}
		})
	}
	wg.Wait()
	if b.Failed() {
		b.FailNow()
	}
	return time.Since(start)
}

func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkInformerInitialSync50kPods: an informer with a handler and a
// node index lists 50,000 pods from a kubecore API server through the REST
// client. The heap figure is the growth of this process's heap once the
// informer holds the pods; the API server runs in the same process, and
// already holds them in its watch cache before the informer starts.
func BenchmarkInformerInitialSync50kPods(b *testing.B) {
	const pods = 50000
	ctx := context.Background()
	s := testserver.Start(b)
	createNamespace(b, s.Clientset, "sync")
	took := createPods(ctx, b, s, "sync", pods, 16)
	figure("kubecore apiserver: pod creates/s (16 writers, setup)", float64(pods)/took.Seconds(), "/s")
	lw, err := s.Clientset.ListWatch(corev1.SchemeGroupVersion.WithResource("pods"), "sync")
	if err != nil {
		b.Fatal(err)
	}

	var secs, mib float64
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		before := heapAlloc()
		b.StartTimer()
		start := time.Now()
		inf := cache.NewInformer[*corev1.Pod](lw, cache.InformerOptions{Resource: corev1.SchemeGroupVersion.WithResource("pods").GroupResource()})
		if err := inf.AddIndexers(map[string]cache.IndexFunc[*corev1.Pod]{"nodeName": func(p *corev1.Pod) ([]string, error) {
			return []string{p.Spec.NodeName}, nil
		}}); err != nil {
			b.Fatal(err)
		}
		var adds atomic.Int64
		reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.Pod]{
			AddFunc: func(*corev1.Pod, bool) { adds.Add(1) },
		})
		if err != nil {
			b.Fatal(err)
		}
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { inf.Run(runCtx); close(done) }()
		if !cache.WaitForCacheSync(ctx, reg.HasSynced) || adds.Load() != pods {
			b.Fatalf("synced with %d adds, want %d", adds.Load(), pods)
		}
		secs = time.Since(start).Seconds()
		b.StopTimer()
		mib = float64(int64(heapAlloc())-int64(before)) / (1 << 20)
		if got, _ := inf.GetIndexer().ByIndex("nodeName", "node-7"); len(got) != pods/500 {
			b.Fatalf("node index holds %d pods of node-7, want %d", len(got), pods/500)
		}
		cancel()
		<-done
		b.StartTimer()
	}
	b.ReportMetric(secs, "s/sync")
	b.ReportMetric(mib, "MiB")
	figure("informer initial sync of 50,000 pods from the API server", secs, "s")
	figure("informer initial sync of 50,000 pods: heap held", mib, "MiB")
}

// BenchmarkInformerEventThroughput: 16 writers update 1,000 config maps
// 20,480 times in all while an informer delivers the changes to one
// handler; the figure is events handled per second from the first write to
// the last event, so it is bounded by the API server's write rate, which
// is printed beside it.
func BenchmarkInformerEventThroughput(b *testing.B) {
	const (
		objects = 1024 // a multiple of writers: each object has one writer
		updates = 20480
		writers = 16
	)
	ctx := context.Background()
	s := testserver.Start(b)
	createNamespace(b, s.Clientset, "events")
	client := s.Clientset.CoreV1().ConfigMaps("events")
	cms := make([]*corev1.ConfigMap, objects)
	for i := range cms {
		cm, err := client.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%04d", i)}, Data: map[string]string{"n": "0"}}, metav1.CreateOptions{})
		if err != nil {
			b.Fatal(err)
		}
		cms[i] = cm
	}
	lw, err := s.Clientset.ListWatch(configMaps, "events")
	if err != nil {
		b.Fatal(err)
	}
	inf := cache.NewInformer[*corev1.ConfigMap](lw, cache.InformerOptions{Resource: configMaps.GroupResource()})
	var seen atomic.Int64
	var target atomic.Int64
	all := make(chan struct{}, 1)
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.ConfigMap]{
		UpdateFunc: func(_, _ *corev1.ConfigMap) {
			if seen.Add(1) == target.Load() {
				all <- struct{}{}
			}
		},
	}); err != nil {
		b.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { inf.Run(runCtx); close(done) }()
	defer func() { cancel(); <-done }()
	if !cache.WaitForCacheSync(ctx, inf.HasSynced) {
		b.Fatal("no sync")
	}

	var rate, writeRate float64
	var lag time.Duration
	round := 0
	b.ResetTimer()
	for b.Loop() {
		round++
		target.Add(updates)
		start := time.Now()
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				for i := w; i < updates; i += writers {
					cm := cms[i%objects].DeepCopy() // writer w alone owns the objects ≡ w mod writers
					cm.Data = map[string]string{"n": strconv.Itoa(round*updates + i)}
					updated, err := client.Update(ctx, cm, metav1.UpdateOptions{})
					if err != nil {
						b.Errorf("update %s: %v", cm.Name, err)
						return
					}
					cms[i%objects] = updated
				}
			})
		}
		wg.Wait()
		if b.Failed() {
			b.FailNow()
		}
		written := time.Now()
		select {
		case <-all:
		case <-time.After(time.Minute):
			b.Fatalf("handler saw %d of %d updates after a minute", seen.Load(), target.Load())
		}
		elapsed := time.Since(start)
		rate = updates / elapsed.Seconds()
		writeRate = updates / written.Sub(start).Seconds()
		lag = time.Since(written)
	}
	b.ReportMetric(rate, "events/s")
	figure("API server -> informer -> handler, 16 writers (events/s)", rate, "/s")
	figure("  of which the API server's update rate", writeRate, "/s")
	figure("  last event handled after the last write", float64(lag.Microseconds())/1000, "ms")
}

// formatValue prints figures below 100 with three decimals, larger ones
// whole.
func formatValue(v float64) string {
	if v < 100 {
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}
