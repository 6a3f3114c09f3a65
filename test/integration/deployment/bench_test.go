package deployment

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"

	"kubecore.io/kubecore/test/integration/framework"

	"kubecore.io/kubecore/test/figure"
)

// benchNodes is the number of hollow nodes of the fake agent.
const benchNodes = 100

// BenchmarkDeployment2000 measures, from the creation of a Deployment of
// 2,000 replicas, the time until its 2,000 pods exist, until the scheduler
// has bound them all to 100 hollow nodes, and until the fake node agent has
// made them all Ready.
func BenchmarkDeployment2000(b *testing.B) {
	const replicas = 2000
	for range b.N {
		b.StopTimer()
		e := setupWith(b, options{nodes: benchNodes, scheduler: true})
		var mu sync.Mutex
		var createdAt, boundAt, readyAt time.Time
		created, bound, ready := map[string]bool{}, map[string]bool{}, map[string]bool{}
		// Each event looks at its own pod: the observer must keep up with
		// 6,000 events without delaying the timestamps it takes.
		e.podEvents(b, func(p *corev1.Pod) {
			mu.Lock()
			defer mu.Unlock()
			now := time.Now()
			created[p.Name] = true
			if p.Spec.NodeName != "" {
				bound[p.Name] = true
			}
			if isReady(p) {
				ready[p.Name] = true
			}
			for _, m := range []struct {
				seen map[string]bool
				at   *time.Time
			}{{created, &createdAt}, {bound, &boundAt}, {ready, &readyAt}} {
				if m.at.IsZero() && len(m.seen) >= replicas {
					*m.at = now
				}
			}
		})
		b.StartTimer()
		start := time.Now()
		if _, err := e.client.AppsV1().Deployments(e.ns).Create(e.ctx, newDeployment(e.ns, "big", replicas, "v1"), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		framework.WaitFor(b, 5*time.Minute, "2,000 ready pods", func() (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			return !readyAt.IsZero(), nil
		})
		e.waitComplete(b, "big", 2*time.Minute)
		b.StopTimer()
		mu.Lock()
		createdSecs, boundSecs, readySecs := createdAt.Sub(start).Seconds(), boundAt.Sub(start).Seconds(), readyAt.Sub(start).Seconds()
		mu.Unlock()
		b.ReportMetric(createdSecs, "s-to-created")
		b.ReportMetric(boundSecs, "s-to-bound")
		b.ReportMetric(readySecs, "s-to-ready")
		figure.Print("controllers: Deployment of 2000 replicas, all pods created", createdSecs, "s", "<= 2", createdSecs <= 2)
		figure.Print("controllers: Deployment of 2000 replicas, all bound (scheduler)", boundSecs, "s", "<= 3", boundSecs <= 3)
		figure.Print("controllers: Deployment of 2000 replicas, all Ready (fake agent)", readySecs, "s", "none set", true)
	}
}

// BenchmarkRollingUpdate1000 rolls a Deployment of 1,000 Ready replicas to
// a new image (default maxSurge and maxUnavailable, 25% each), scheduler
// and fake node agent included, and measures the time from the template
// change until the rollout is complete.
func BenchmarkRollingUpdate1000(b *testing.B) {
	const replicas = 1000
	for range b.N {
		b.StopTimer()
		e := setupWith(b, options{nodes: benchNodes, scheduler: true})
		if _, err := e.client.AppsV1().Deployments(e.ns).Create(e.ctx, newDeployment(e.ns, "roll", replicas, "v1"), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		e.waitComplete(b, "roll", 5*time.Minute)
		b.StartTimer()
		start := time.Now()
		e.setImage(b, "roll", "v2")
		var d = e.waitComplete(b, "roll", 10*time.Minute)
		took := time.Since(start).Seconds()
		b.StopTimer()
		if rss := e.replicaSets(b, d); len(rss) != 2 {
			b.Fatalf("%d ReplicaSets after one rollout, want 2", len(rss))
		}
		b.ReportMetric(took, "s-to-rolled")
		figure.Print("controllers: rolling update of 1000 replicas, end to end", took, "s", "none set", true)
	}
}

// podEvents calls observe with each pod of the namespace as it is after
// each added or updated event, until the benchmark ends.
func (e *env) podEvents(b *testing.B, observe func(*corev1.Pod)) {
	b.Helper()
	factory := informers.NewSharedInformerFactory(e.client, informers.WithNamespace(e.ns))
	inf, err := informers.Pods(factory)
	if err != nil {
		b.Fatal(err)
	}
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs[*corev1.Pod]{
		AddFunc:    func(p *corev1.Pod, _ bool) { observe(p) },
		UpdateFunc: func(_, p *corev1.Pod) { observe(p) },
	})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(e.ctx)
	b.Cleanup(func() { cancel(); factory.Shutdown() })
	factory.Start(ctx)
	framework.WaitFor(b, 10*time.Second, "the pod watch to sync", func() (bool, error) { return reg.HasSynced(), nil })
}
