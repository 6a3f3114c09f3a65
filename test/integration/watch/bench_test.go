package watch

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientfeatures "k8s.io/client-go/features"
	k8sinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	k8srest "k8s.io/client-go/rest"
	k8scache "k8s.io/client-go/tools/cache"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// setWatchList turns client-go's WatchListClient feature on or off.
func setWatchList(tb testing.TB, on bool) {
	tb.Helper()
	gates, ok := clientfeatures.FeatureGates().(interface {
		Set(clientfeatures.Feature, bool) error
	})
	if !ok {
		tb.Fatalf("client-go's feature gates (%T) cannot be set", clientfeatures.FeatureGates())
	}
	if err := gates.Set(clientfeatures.WatchListClient, on); err != nil {
		tb.Fatal(err)
	}
}

// heapPeak samples the process's heap in use every 5 ms until stop is
// called, which returns the peak.
func heapPeak() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak.Load()
	}
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// BenchmarkInitialSync50kPodsWatchListVsList: the stock client-go pod
// informer's initial sync of 50,000 pods from a kubecore API server in the
// same process, by a streaming list (WatchListClient on) and by LIST then
// WATCH (off), in protobuf. Figures: the time to HasSynced, the process's
// peak heap in use during the sync above what it held before (server and
// client together: they share the process), and the heap the synced
// informer keeps (the client's share).
func BenchmarkInitialSync50kPodsWatchListVsList(b *testing.B) {
	const pods = 50000
	s := startServer(b)
	cs := s.Clientset(b)
	start := time.Now()
	var wg sync.WaitGroup
	var failed atomic.Bool
	for w := range 16 {
		wg.Go(func() {
			for i := w; i < pods && !failed.Load(); i += 16 {
				p := &corev1.Pod{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pod-%05d", i), Labels: map[string]string{"app": fmt.Sprint(i % 100)}},
					Spec:       corev1.PodSpec{NodeName: fmt.Sprintf("node-%d", i%500), Containers: []corev1.Container{{Name: "main", Image: "registry.example/app:v1"}}},
				}
				if _, err := cs.CoreV1().Pods(s.ns).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
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
	fmt.Printf("figure: %-62s %9.0f /s   (setup)\n", "pod creates/s, 16 writers", pods/time.Since(start).Seconds())

	counter := newRequestCounter()
	cfg := k8srest.CopyConfig(stockConfig(b, s.Kubeconfig, counter))
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	path := "/api/v1/namespaces/" + s.ns + "/pods"
	for _, mode := range []struct {
		name      string
		watchList bool
	}{{"LIST+WATCH", false}, {"streaming list", true}} {
		setWatchList(b, mode.watchList)
		var secs, peakMiB, keptMiB float64
		for range b.N {
			lists, watchLists, _ := counter.counts(path)
			before := heapInUse()
			stop := heapPeak()
			ctx, cancel := context.WithCancel(context.Background())
			factory := k8sinformers.NewSharedInformerFactoryWithOptions(client, 0, k8sinformers.WithNamespace(s.ns))
			inf := factory.Core().V1().Pods().Informer()
			t0 := time.Now()
			factory.Start(ctx.Done())
			if !k8scache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
				b.Fatal("the informer did not sync")
			}
			secs = time.Since(t0).Seconds()
			peakMiB = float64(int64(stop())-int64(before)) / (1 << 20)
			if n := len(inf.GetStore().List()); n != pods {
				b.Fatalf("synced %d pods, want %d", n, pods)
			}
			keptMiB = float64(int64(heapInUse())-int64(before)) / (1 << 20)
			cancel()
			factory.Shutdown()
			l2, wl2, _ := counter.counts(path)
			if mode.watchList && (wl2 != watchLists+1 || l2 != lists) || !mode.watchList && l2 != lists+1 {
				b.Fatalf("%s: %d LISTs and %d streaming lists, want the mode's one", mode.name, l2-lists, wl2-watchLists)
			}
		}
		fmt.Printf("figure: %-62s %9.2f s    (target none set)\n", "client-go initial sync of 50,000 pods, "+mode.name, secs)
		fmt.Printf("figure: %-62s %9.0f MiB  (target none set)\n", "  peak heap growth during it (server+client)", peakMiB)
		fmt.Printf("figure: %-62s %9.0f MiB  (target none set)\n", "  heap the synced informer keeps (client)", keptMiB)
	}
	setWatchList(b, true)
}
