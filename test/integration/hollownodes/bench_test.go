// Package hollownodes benchmarks `kubecore hollow-nodes` against an
// in-process API server: N fake kubelets with 30 pods each.
package hollownodes

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/cmd/kubecore/app/hollownodes"
	"kubecore.io/kubecore/test/figure"
	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}

// BenchmarkHollowNodes runs KUBECORE_HOLLOW_NODES (1,000) hollow nodes with
// KUBECORE_HOLLOW_PODS (30) pods each, bound directly to the nodes, and
// prints the time until every pod is Running and the memory the hollow
// nodes take per node (Go heap and stacks, after GC, apiserver excluded by
// measuring before they start).
func BenchmarkHollowNodes(b *testing.B) {
	nodes, perNode := envInt("KUBECORE_HOLLOW_NODES", 1000), envInt("KUBECORE_HOLLOW_PODS", 30)
	s := framework.StartAPIServer(b, framework.APIServerOptions{Etcd: testEtcd})
	cs := s.Clientset(b)
	ns := s.CreateNamespace(b, "hollow")
	for range b.N {
		before := heapInUse()
		o := hollownodes.NewOptions()
		o.RESTConfig, o.Count, o.RootDir, o.NamePrefix = s.Config, nodes, b.TempDir(), fmt.Sprintf("hollow-%d-", time.Now().UnixNano()%100000)
		c, err := o.Complete()
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- c.Run(ctx) }()
		start := time.Now()
		// Create the pods with 16 clients.
		work := make(chan int)
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				for i := range work {
					p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%sp%d", o.NamePrefix, i), Namespace: ns},
						Spec: corev1.PodSpec{NodeName: fmt.Sprintf("%s%d", o.NamePrefix, i%nodes),
							Containers: []corev1.Container{{Name: "c", Image: "pause", Command: []string{"sleep", "inf"}}}}}
					if _, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
						b.Error(err)
					}
				}
			})
		}
		for i := range nodes * perNode {
			work <- i
		}
		close(work)
		wg.Wait()
		created := time.Since(start)
		for {
			list, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				b.Fatal(err)
			}
			running := 0
			for _, p := range list.Items {
				if p.Status.Phase == corev1.PodRunning {
					running++
				}
			}
			if running == nodes*perNode {
				break
			}
			if time.Since(start) > 30*time.Minute {
				b.Fatalf("%d of %d pods Running after 30m", running, nodes*perNode)
			}
			time.Sleep(time.Second)
		}
		allRunning := time.Since(start)
		perNodeMem := float64(heapInUse()-before) / float64(nodes) / (1 << 20)
		figure.Print(fmt.Sprintf("hollow nodes: %d pods created (%d nodes x %d)", nodes*perNode, nodes, perNode), created.Seconds(), "s", "none set", true)
		figure.Print(fmt.Sprintf("hollow nodes: all %d pods Running", nodes*perNode), allRunning.Seconds(), "s", "none set", true)
		figure.Print("hollow nodes: memory per node (heap and stacks)", perNodeMem, "MiB", "<= 2", perNodeMem <= 2)
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
	}
}
