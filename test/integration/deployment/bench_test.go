package deployment

import (
	"sync"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkDeployment2000 measures, from the creation of a Deployment of
// 2,000 replicas, the time until its 2,000 pods exist and until all are
// Ready (the fake node agent binds and runs them; no scheduler).
func BenchmarkDeployment2000(b *testing.B) {
	const replicas = 2000
	for range b.N {
		b.StopTimer()
		e := setup(b, 0)
		var mu sync.Mutex
		var start, createdAt, readyAt time.Time
		created, ready := map[string]bool{}, map[string]bool{}
		e.podWatch(b, func(pods map[string]*corev1.Pod) {
			mu.Lock()
			defer mu.Unlock()
			now := time.Now()
			for name, p := range pods {
				created[name] = true
				if isReady(p) {
					ready[name] = true
				}
			}
			if createdAt.IsZero() && len(created) >= replicas {
				createdAt = now
			}
			if readyAt.IsZero() && len(ready) >= replicas {
				readyAt = now
			}
		})
		b.StartTimer()
		mu.Lock()
		start = time.Now()
		mu.Unlock()
		if _, err := e.client.AppsV1().Deployments(e.ns).Create(e.ctx, newDeployment(e.ns, "big", replicas, "v1"), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		waitFor(b, 5*time.Minute, "2,000 ready pods", func() (bool, error) {
			mu.Lock()
			defer mu.Unlock()
			return !readyAt.IsZero(), nil
		})
		e.waitComplete(b, "big", 2*time.Minute)
		b.StopTimer()
		mu.Lock()
		createdSecs, readySecs := createdAt.Sub(start).Seconds(), readyAt.Sub(start).Seconds()
		mu.Unlock()
		b.ReportMetric(createdSecs, "s-to-created")
		b.ReportMetric(readySecs, "s-to-ready")
		b.Logf("figure: Deployment of 2,000 replicas: all pods created in %.2f s (target: ≤ 2 s), all Ready in %.2f s with the fake node agent (target: none set; bound in ≤ 3 s with the scheduler)", createdSecs, readySecs)
	}
}
