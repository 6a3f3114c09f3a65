package cacher

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"

	"kubecore.io/kubecore/pkg/storage"
)

// percentile returns the p-th percentile of sorted durations.
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	slices.Sort(d)
	return d[min(len(d)-1, int(float64(len(d))*p))]
}

func report(b *testing.B, name string, d []time.Duration, target time.Duration) {
	p50, p99 := percentile(d, 0.50), percentile(d, 0.99)
	b.ReportMetric(float64(p50.Microseconds())/1000, name+"-p50-ms")
	b.ReportMetric(float64(p99.Microseconds())/1000, name+"-p99-ms")
	b.Logf("figure: %s p50 %v p99 %v (target: p99 <= %v)", name, p50, p99, target)
}

func benchPod(i int) *corev1.Pod {
	p := newPod(fmt.Sprintf("ns-%d", i%10), fmt.Sprintf("pod-%05d", i), fmt.Sprintf("node-%d", i%100), map[string]string{"app": fmt.Sprintf("app-%d", i%20), "tier": "web"})
	p.Spec.Containers[0].Env = []corev1.EnvVar{{Name: "A", Value: "1"}, {Name: "B", Value: "2"}}
	p.Status.Phase = corev1.PodRunning
	return p
}

// BenchmarkList5000Pods lists 5,000 pods from the cache, alone and with
// the JSON encoding of the PodList the apiserver writes.
func BenchmarkList5000Pods(b *testing.B) {
	under := newEtcdStorage(b)
	ctx := ctxT(b)
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := g; i < 5000; i += 16 {
				if _, err := under.Create(ctx, podKey(benchPod(i).Namespace, benchPod(i).Name), benchPod(i)); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	c := newTestCacher(b, under)
	encode := testEncoder(b)
	for _, tc := range []struct {
		name, rv string
		encode   bool
		target   time.Duration
	}{
		{"rv0-storage", "0", false, 50 * time.Millisecond},
		{"rv0-with-encode", "0", true, 50 * time.Millisecond},
		{"consistent-storage", "", false, 80 * time.Millisecond},
		{"consistent-with-encode", "", true, 80 * time.Millisecond},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var d []time.Duration
			for b.Loop() {
				start := time.Now()
				l, err := c.GetList(ctx, "/pods", storage.ListOptions{ResourceVersion: tc.rv, Recursive: true})
				if err != nil {
					b.Fatal(err)
				}
				if len(l.Items) != 5000 {
					b.Fatalf("listed %d pods", len(l.Items))
				}
				if tc.encode {
					list := &corev1.PodList{Items: make([]corev1.Pod, len(l.Items))}
					for i, it := range l.Items {
						list.Items[i] = *it.(*corev1.Pod)
					}
					list.ResourceVersion = strconv.FormatUint(l.ResourceVersion, 10)
					if _, err := encode(list); err != nil {
						b.Fatal(err)
					}
				}
				d = append(d, time.Since(start))
			}
			report(b, "list-5000-"+tc.name, d, tc.target)
		})
	}
}

// feedStorage is an underlying storage whose only watch the benchmark
// feeds directly, so that latencies are the cache's own.
type feedStorage struct {
	storage.Interface
	events chan watch.Event
}

func (f *feedStorage) GetList(context.Context, string, storage.ListOptions) (*storage.List, error) {
	return &storage.List{ResourceVersion: 1}, nil
}

func (f *feedStorage) Watch(context.Context, string, storage.ListOptions) (watch.Interface, error) {
	return &chanWatch{ch: f.events, done: make(chan struct{})}, nil
}

func (f *feedStorage) CurrentResourceVersion(context.Context) (uint64, error) { return 1, nil }

func feedPod(rv int) *corev1.Pod {
	p := benchPod(rv % 5000)
	p.ResourceVersion = strconv.Itoa(rv)
	return p
}

// BenchmarkWatchDelivery measures the time from an event reaching the cache
// to its arrival at each of 50 or 100 watchers.
func BenchmarkWatchDelivery(b *testing.B) {
	for _, n := range []int{50, 100} {
		b.Run(fmt.Sprintf("watchers-%d", n), func(b *testing.B) {
			feed := &feedStorage{events: make(chan watch.Event)}
			c := newTestCacher(b, feed)
			ctx := ctxT(b)
			var mu sync.Mutex
			sent := map[uint64]time.Time{}
			var lat []time.Duration
			arrived := make(chan struct{}, n)
			for range n {
				w, err := c.Watch(ctx, "/pods", storage.ListOptions{ResourceVersion: "1", Recursive: true})
				if err != nil {
					b.Fatal(err)
				}
				defer w.Stop()
				go func() {
					for ev := range w.ResultChan() {
						now := time.Now()
						rv, _ := objectRV(storage.Unwrap(ev.Object))
						mu.Lock()
						lat = append(lat, now.Sub(sent[rv]))
						mu.Unlock()
						arrived <- struct{}{}
					}
				}()
			}
			rv := 1
			for b.Loop() {
				rv++
				mu.Lock()
				sent[uint64(rv)] = time.Now()
				mu.Unlock()
				feed.events <- watch.Event{Type: watch.Added, Object: feedPod(rv)}
				for range n {
					<-arrived
				}
			}
			mu.Lock()
			defer mu.Unlock()
			report(b, fmt.Sprintf("watch-delivery-%d-watchers", n), lat, 2*time.Millisecond)
		})
	}
}

// BenchmarkDispatch counts the allocations of applying one event and
// handing it to 50 watchers; the per-watcher path allocates nothing.
func BenchmarkDispatch(b *testing.B) {
	feed := &feedStorage{events: make(chan watch.Event)}
	c := newTestCacher(b, feed, func(cfg *Config) { cfg.WatcherBuffer = 1 << 16 })
	ctx := ctxT(b)
	for range 50 {
		w, err := c.Watch(ctx, "/pods", storage.ListOptions{ResourceVersion: "1", Recursive: true})
		if err != nil {
			b.Fatal(err)
		}
		defer w.Stop()
		go func() {
			for range w.ResultChan() {
			}
		}()
	}
	objs := make([]runtime.Object, 0, 4096)
	for i := range cap(objs) {
		objs = append(objs, feedPod(i+2))
	}
	c.mu.Lock()
	base := c.rv
	c.mu.Unlock()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p := objs[i%len(objs)].(*corev1.Pod)
		i++
		p.ResourceVersion = strconv.FormatUint(base+uint64(i), 10)
		if err := c.processEvent(watch.Event{Type: watch.Modified, Object: p}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.Logf("figure: dispatch allocations per event with 50 watchers: see allocs/op (target: O(1) per event, none per watcher)")
}
