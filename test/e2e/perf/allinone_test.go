package perf

import (
	"context"
	"os"
	"regexp"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/test/e2e/framework"

	"kubecore.io/kubecore/test/figure"
)

// readyIn matches all-in-one's own start-up figure on stdout.
var readyIn = regexp.MustCompile(`kubecore is ready in ([0-9.]+[µm]?s) at `)

// lastReadyIn returns the last start-up time all-in-one printed.
func lastReadyIn(b *testing.B, s *framework.APIServer) time.Duration {
	b.Helper()
	data, err := os.ReadFile(s.LogPath)
	if err != nil {
		b.Fatal(err)
	}
	m := readyIn.FindAllStringSubmatch(string(data), -1)
	if len(m) == 0 {
		b.Fatal("all-in-one printed no ready line")
	}
	d, err := time.ParseDuration(m[len(m)-1][1])
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// BenchmarkAllInOne measures `kubecore all-in-one` (process runtime) as a
// user starts it: start to ready on an empty and on a populated data dir,
// idle RSS, and RSS with 100 running pods.
func BenchmarkAllInOne(b *testing.B) {
	ctx := context.Background()
	work := b.TempDir()
	s, err := framework.NewAPIServer(work+"/data", work)
	if err != nil {
		b.Fatal(err)
	}
	s.Subcommand = framework.SubcommandAllInOne
	s.LogLevel = 0
	t0 := time.Now()
	if err := s.Start(); err != nil {
		b.Fatal(err)
	}
	wall := time.Since(t0)
	own := lastReadyIn(b, s)
	figure.Print("all-in-one start to ready, empty data dir", figure.Milliseconds(own), "ms", "<= 500", own <= 500*time.Millisecond)
	figure.Print("all-in-one start to /readyz seen by a client, empty", figure.Milliseconds(wall), "ms", "none set", true)
	defer func() {
		if err := s.Stop(); err != nil {
			b.Error(err)
		}
	}()
	cs := clientset(b, s)
	waitFor(b, 30*time.Second, "the node to register", func() bool {
		l, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		return err == nil && len(l.Items) == 1
	})
	idle := waitRSS(b, s)
	figure.Print("all-in-one idle RSS (etcd, apiserver, controllers, scheduler, kubelet)", idle, "MiB", "<= 100", idle <= 100)

	replicas := int32(100)
	grace := int64(1)
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "sleepers", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "sleepers"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "sleepers"}},
				Spec: corev1.PodSpec{TerminationGracePeriodSeconds: &grace, Containers: []corev1.Container{
					{Name: "c", Image: "busybox", Command: []string{"sh", "-c", "while true; do sleep 5; done"}},
				}},
			},
		},
	}
	if _, err := cs.AppsV1().Deployments("default").Create(ctx, d, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	defer func() {
		// The pods' processes end with the Deployment, before the server.
		_ = cs.AppsV1().Deployments("default").Delete(ctx, "sleepers", metav1.DeleteOptions{})
		waitFor(b, 2*time.Minute, "the pods to go", func() bool {
			l, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
			return err == nil && len(l.Items) == 0
		})
	}()
	t0 = time.Now()
	running := func() int {
		l, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=sleepers"})
		if err != nil {
			return 0
		}
		n := 0
		for _, p := range l.Items {
			if p.Status.Phase == corev1.PodRunning {
				n++
			}
		}
		return n
	}
	waitFor(b, 2*time.Minute, "100 pods to run", func() bool { return running() == 100 })
	figure.Print("Deployment of 100 process pods, create to all Running", time.Since(t0).Seconds(), "s", "none set", true)
	busy := waitRSS(b, s)
	figure.Print("all-in-one RSS with 100 running pods", busy, "MiB", "none set", true)

	if err := s.Stop(); err != nil {
		b.Fatal(err)
	}
	t0 = time.Now()
	if err := s.Start(); err != nil {
		b.Fatal(err)
	}
	wall = time.Since(t0)
	own = lastReadyIn(b, s)
	figure.Print("all-in-one start to ready, populated (100 pods to run again)", figure.Milliseconds(own), "ms", "<= 500", own <= 500*time.Millisecond)
	figure.Print("all-in-one start to /readyz seen by a client, populated", figure.Milliseconds(wall), "ms", "none set", true)
	cs = clientset(b, s)
	waitFor(b, time.Minute, "the 100 pods to run again", func() bool { return running() == 100 })
}

// waitFor polls cond every 100 ms until it holds or timeout passes.
func waitFor(b *testing.B, timeout time.Duration, what string, cond func() bool) {
	b.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			b.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
