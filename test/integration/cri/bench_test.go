package cri

import (
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/pkg/kubelet"
	"kubecore.io/kubecore/test/integration/cri/containerd"
	"kubecore.io/kubecore/test/integration/framework"

	"kubecore.io/kubecore/test/figure"
)

// BenchmarkPodStartupLatency is the process runtime's benchmark of the
// same name (test/integration/kubelet) on the CRI runtime and a real
// containerd: 100 pods on one node, 16 created at a time, each timed from
// its create request to a watcher seeing it Ready.
func BenchmarkPodStartupLatency(b *testing.B) {
	for range b.N {
		e := newEnv(b)
		// The kubelet's own defaults: the benchmark measures what a user gets.
		e.configure = func(c *kubelet.Config) {
			c.NodeStatusUpdateFrequency, c.NodeStatusReportFrequency, c.LeaseRenewInterval = 0, 0, 0
			c.SyncFrequency, c.RelistPeriod = 0, 0
		}
		e.startKubelet()
		framework.WaitForNodeReady(e.ctx, b, e.cs, e.node, 20*time.Second)
		s, err := framework.MeasurePodStartup(e.ctx, e.cs, e.ns, 100, 16, 3*time.Minute, func(name string) *corev1.Pod {
			return &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.ns},
				Spec: corev1.PodSpec{NodeName: e.node, Containers: []corev1.Container{{
					Name: "main", Image: containerd.BusyboxImage, Command: []string{"sleep", "1000"},
				}}},
			}
		})
		if err != nil {
			b.Fatal(err)
		}
		p50, p99 := s.Percentile(50), s.Percentile(99)
		figure.Print("kubelet_pod_startup_latency_p50 (100 pods, CRI runtime)", figure.Milliseconds(p50), "ms", "none set", true)
		// Issue 7 sets the 1 s target for the process runtime only: here
		// containerd and runc take about a second per sandbox and start,
		// which bounds this figure.
		figure.Print("kubelet_pod_startup_latency_p99 (100 pods, CRI runtime)", figure.Milliseconds(p99), "ms", "none set", true)
		figure.Print("kubelet_pod_startup_all_ready (100 pods, CRI runtime)", figure.Milliseconds(s.AllReady), "ms", "none set", true)
	}
}
