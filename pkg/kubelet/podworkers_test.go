package kubelet

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
)

func testPod(uid string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: uid, Namespace: "ns", UID: types.UID(uid)}}
}

func TestPodWorkersSerializePerPodAndRunPodsInParallel(t *testing.T) {
	var mu sync.Mutex
	active := map[string]int{}
	maxPerPod, concurrent, maxConcurrent := 0, 0, 0
	release := make(chan struct{})
	var syncs atomic.Int32
	sync := func(ctx context.Context, _ *podState, pod *corev1.Pod, _ bool) (time.Duration, bool, error) {
		uid := string(pod.UID)
		mu.Lock()
		active[uid]++
		concurrent++
		maxPerPod, maxConcurrent = max(maxPerPod, active[uid]), max(maxConcurrent, concurrent)
		mu.Unlock()
		syncs.Add(1)
		select {
		case <-release:
		case <-ctx.Done():
		}
		mu.Lock()
		active[uid]--
		concurrent--
		mu.Unlock()
		return 0, false, nil
	}
	ctx, cancel := context.WithCancel(t.Context())
	w := newPodWorkers(sync, time.Hour, newFakeClock())
	for range 3 {
		w.update(ctx, testPod("a"), false)
		w.update(ctx, testPod("b"), false)
	}
	eventually(t, "both pods syncing", func() bool { return syncs.Load() == 2 })
	// More updates while the first syncs run fold into one more sync each.
	w.update(ctx, testPod("a"), false)
	close(release)
	eventually(t, "the queued syncs", func() bool { return syncs.Load() >= 3 })
	cancel()
	w.wait()
	if maxPerPod != 1 {
		t.Errorf("a pod synced %d times at once, want 1", maxPerPod)
	}
	if maxConcurrent != 2 {
		t.Errorf("%d pods synced at once, want 2", maxConcurrent)
	}
	if w.count() != 2 {
		t.Errorf("workers = %d, want 2", w.count())
	}
}

func TestPodWorkersFinishAndRetry(t *testing.T) {
	clock := newFakeClock()
	var calls atomic.Int32
	var sawRemoved atomic.Bool
	sync := func(_ context.Context, st *podState, pod *corev1.Pod, removed bool) (time.Duration, bool, error) {
		n := calls.Add(1)
		switch {
		case removed:
			sawRemoved.Store(true)
			return 0, true, nil
		case n == 1:
			return 0, false, errors.New("apiserver unreachable")
		}
		return 0, false, nil
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	w := newPodWorkers(sync, time.Hour, clock)
	w.update(ctx, testPod("a"), false)
	eventually(t, "the failed sync", func() bool { return calls.Load() == 1 && clock.waiters() == 1 })
	// A failed sync is retried with back-off (500 ms for the first).
	clock.Step(time.Second)
	eventually(t, "the retry", func() bool { return calls.Load() == 2 })
	w.update(ctx, testPod("a"), true)
	eventually(t, "the pod's worker to finish", func() bool { return sawRemoved.Load() && w.count() == 0 })
	// A finished pod's UID does not get a new worker.
	w.update(ctx, testPod("a"), false)
	if w.count() != 0 {
		t.Errorf("a finished pod got a new worker")
	}
	cancel()
	w.wait()
}
