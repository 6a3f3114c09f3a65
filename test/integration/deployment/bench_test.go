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
// 2,000 replicas, the time until its 2,000 pods exist and until the
// scheduler has bound them all to 100 nodes. As the issue sets the targets,
// the nodes are hollow Node objects: nothing runs the pods. A second run
// adds the fake node agent, which runs them (three writes per pod instead
// of two, at the same time), and measures until all are Ready too.
func BenchmarkDeployment2000(b *testing.B) {
	for range b.N {
		hollow := deploy2000(b, options{nodes: benchNodes, scheduler: true, nodesOnly: true})
		figure.Print("controllers: Deployment of 2000 replicas, all pods created", hollow.created, "s", "<= 2", hollow.created <= 2)
		figure.Print("controllers: Deployment of 2000 replicas, all bound (scheduler, hollow nodes)", hollow.bound, "s", "<= 3", hollow.bound <= 3)
		agent := deploy2000(b, options{nodes: benchNodes, scheduler: true})
		figure.Print("controllers: with the fake node agent running the pods, all created", agent.created, "s", "none set", true)
		figure.Print("controllers: with the fake node agent running the pods, all bound", agent.bound, "s", "none set", true)
		figure.Print("controllers: with the fake node agent running the pods, all Ready", agent.ready, "s", "none set", true)
		b.ReportMetric(hollow.created, "s-to-created")
		b.ReportMetric(hollow.bound, "s-to-bound")
		b.ReportMetric(agent.ready, "s-to-ready")
	}
}

// deployTimes are the seconds from a Deployment's creation until all its
// pods were seen created, bound, and Ready (0 when no agent runs them).
type deployTimes struct{ created, bound, ready float64 }

// deploy2000 creates a Deployment of 2,000 replicas in a new environment
// set up with o, and times it until all pods are bound or, with the fake
// agent, Ready. Only that part is timed.
func deploy2000(b *testing.B, o options) deployTimes {
	const replicas = 2000
	b.StopTimer()
	defer b.StopTimer()
	e := setupWith(b, o)
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
	done := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if o.nodesOnly {
			return !boundAt.IsZero()
		}
		return !readyAt.IsZero()
	}
	b.StartTimer()
	start := time.Now()
	if _, err := e.client.AppsV1().Deployments(e.ns).Create(e.ctx, newDeployment(e.ns, "big", replicas, "v1"), metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	framework.WaitFor(b, 5*time.Minute, "2,000 pods bound (or Ready)", func() (bool, error) { return done(), nil })
	b.StopTimer()
	if !o.nodesOnly {
		e.waitComplete(b, "big", 2*time.Minute)
	}
	mu.Lock()
	defer mu.Unlock()
	t := deployTimes{created: createdAt.Sub(start).Seconds(), bound: boundAt.Sub(start).Seconds()}
	if !o.nodesOnly {
		t.ready = readyAt.Sub(start).Seconds()
	}
	return t
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
