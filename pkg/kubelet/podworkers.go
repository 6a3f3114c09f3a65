package kubelet

import (
	"context"
	"sync"
	"time"

	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
)

// syncFunc syncs one pod towards its spec: removed means the API no longer
// has it. It returns when to sync again (0: only on the next change) and
// done once the pod is gone for good.
type syncFunc func(ctx context.Context, st *podState, pod *corev1.Pod, removed bool) (requeue time.Duration, done bool, err error)

// podWorkers runs one goroutine per pod: syncs of a pod are serialised,
// syncs of different pods run in parallel.
type podWorkers struct {
	sync   syncFunc
	resync time.Duration
	clock  Clock
	// track, when set, is told of each version of a pod with a worker
	// before its sync, and untrack once the worker is done: the kubelet
	// keeps watching the objects of exactly the pods it runs.
	track   func(*corev1.Pod)
	untrack func(uid string)

	mu       sync.Mutex
	workers  map[string]*podWorker // by pod UID
	finished map[string]time.Time  // UIDs whose worker is done
	wg       sync.WaitGroup
}

type podWorker struct {
	mu      sync.Mutex
	pod     *corev1.Pod
	removed bool
	wakeC   chan struct{}
}

func newPodWorkers(sync syncFunc, resync time.Duration, clock Clock) *podWorkers {
	return &podWorkers{sync: sync, resync: resync, clock: clock, workers: map[string]*podWorker{}, finished: map[string]time.Time{}}
}

// update hands the newest version of a pod to its worker, starting one
// for a new pod.
func (p *podWorkers) update(ctx context.Context, pod *corev1.Pod, removed bool) {
	uid := string(pod.UID)
	p.mu.Lock()
	w, ok := p.workers[uid]
	if !ok {
		if _, done := p.finished[uid]; done || ctx.Err() != nil {
			p.mu.Unlock()
			return
		}
		w = &podWorker{wakeC: make(chan struct{}, 1)}
		p.workers[uid] = w
		p.wg.Add(1)
		go p.run(ctx, uid, w)
	}
	if p.track != nil && !removed {
		// Under p.mu: the worker cannot be done and untracked meanwhile.
		p.track(pod)
	}
	p.mu.Unlock()
	w.mu.Lock()
	w.pod, w.removed = pod, w.removed || removed
	w.mu.Unlock()
	w.wake()
}

func (w *podWorker) wake() {
	select {
	case w.wakeC <- struct{}{}:
	default:
	}
}

// wake asks the worker of a pod to sync now.
func (p *podWorkers) wake(uid string) {
	p.mu.Lock()
	w := p.workers[uid]
	p.mu.Unlock()
	if w != nil {
		w.wake()
	}
}

// has says whether a pod has a worker, or had one that finished lately.
func (p *podWorkers) has(uid string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	_, ok := p.workers[uid]
	_, done := p.finished[uid]
	return ok || done
}

// count is the number of pods with a worker.
func (p *podWorkers) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.workers)
}

func (p *podWorkers) run(ctx context.Context, uid string, w *podWorker) {
	defer p.wg.Done()
	logger := klog.FromContext(ctx)
	st := newPodState()
	timer := p.clock.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	failures := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.wakeC:
		case <-timer.C():
		}
		w.mu.Lock()
		pod, removed := w.pod, w.removed
		w.mu.Unlock()
		requeue, done, err := p.sync(ctx, st, pod, removed)
		if done {
			p.mu.Lock()
			delete(p.workers, uid)
			p.finished[uid] = p.clock.Now()
			p.pruneFinished()
			if p.untrack != nil {
				p.untrack(uid)
			}
			p.mu.Unlock()
			return
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			failures++
			requeue = min(time.Duration(1<<min(failures, 6))*250*time.Millisecond, 30*time.Second)
			logger.Error(err, "Failed to sync pod; retrying", "pod", klog.KObj(pod), "podUID", uid, "after", requeue)
		} else {
			failures = 0
		}
		if requeue <= 0 || requeue > p.resync {
			requeue = p.resync
		}
		timer.Reset(requeue)
	}
}

// pruneFinished forgets finished UIDs after ten minutes; p.mu is held.
func (p *podWorkers) pruneFinished() {
	for uid, at := range p.finished {
		if p.clock.Now().Sub(at) > 10*time.Minute {
			delete(p.finished, uid)
		}
	}
}

// wait waits for every worker to return after the context of update ends.
func (p *podWorkers) wait() { p.wg.Wait() }

// pods returns the newest version of each pod with a worker, except those
// removed from their source.
func (p *podWorkers) pods() []*corev1.Pod {
	p.mu.Lock()
	workers := make([]*podWorker, 0, len(p.workers))
	for _, w := range p.workers {
		workers = append(workers, w)
	}
	p.mu.Unlock()
	out := make([]*corev1.Pod, 0, len(workers))
	for _, w := range workers {
		w.mu.Lock()
		if w.pod != nil && !w.removed {
			out = append(out, w.pod)
		}
		w.mu.Unlock()
	}
	return out
}
