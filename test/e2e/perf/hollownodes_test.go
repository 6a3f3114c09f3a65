package perf

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"

	"kubecore.io/kubecore/test/e2e/framework"
	"kubecore.io/kubecore/test/figure"
)

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// BenchmarkHollowNodes runs `kubecore hollow-nodes` with
// KUBECORE_HOLLOW_NODES (1,000) fake kubelets as a process of its own
// against `kubecore apiserver`, binds KUBECORE_HOLLOW_PODS (30) pods to
// each node, and prints the time until every pod is Running and the
// resident memory of both processes.
func BenchmarkHollowNodes(b *testing.B) {
	nodes, perNode := envInt("KUBECORE_HOLLOW_NODES", 1000), envInt("KUBECORE_HOLLOW_PODS", 30)
	for range b.N {
		r := runHollowNodes(b, nodes, perNode)
		total := nodes * perNode
		figure.Print(fmt.Sprintf("hollow nodes: %d pods created (%d nodes x %d)", total, nodes, perNode), r.created.Seconds(), "s", "none set", true)
		figure.Print(fmt.Sprintf("hollow nodes: all %d pods Running", total), r.running.Seconds(), "s", "none set", true)
		perNodeRSS := r.hollowRSS / float64(nodes)
		figure.Print("hollow nodes: RSS of the hollow-nodes process per node", perNodeRSS, "MiB", "<= 2", perNodeRSS <= 2)
		figure.Print(fmt.Sprintf("hollow nodes: RSS of the apiserver (+ etcd) with %d nodes and %d pods", nodes, total), r.serverRSS, "MiB", "none set", true)
	}
}

// TestHollowNodes: a few hollow nodes register and run the pods bound to
// them, and the process stops on SIGTERM.
func TestHollowNodes(t *testing.T) {
	runHollowNodes(t, 3, 2)
}

// hollowRun is what runHollowNodes measured.
type hollowRun struct {
	created, running     time.Duration
	hollowRSS, serverRSS float64
}

// runHollowNodes starts an apiserver and `kubecore hollow-nodes --count
// nodes`, waits for the nodes, creates perNode pods bound to each (16 at
// a time) and waits until all are Running; then it reads both processes'
// resident memory and stops them.
func runHollowNodes(tb testing.TB, nodes, perNode int) hollowRun {
	tb.Helper()
	bin, err := framework.Binary()
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	work := tb.TempDir()
	s, err := framework.NewAPIServer(filepath.Join(work, "data"), work)
	if err != nil {
		tb.Fatal(err)
	}
	s.LogLevel = 0
	if err := s.Start(); err != nil {
		tb.Fatal(err)
	}
	defer func() {
		if err := s.Stop(); err != nil {
			tb.Error(err)
		}
	}()
	log, err := os.Create(filepath.Join(work, "hollow-nodes.log"))
	if err != nil {
		tb.Fatal(err)
	}
	defer log.Close()
	hollow := exec.Command(bin, "hollow-nodes", "--kubeconfig", s.Kubeconfig, "--count", strconv.Itoa(nodes),
		"--name-prefix", "hollow-", "--root-dir", filepath.Join(work, "nodes"))
	hollow.Stdout, hollow.Stderr = log, log
	if err := hollow.Start(); err != nil {
		tb.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- hollow.Wait() }()
	defer func() {
		_ = hollow.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				tb.Errorf("hollow-nodes after SIGTERM: %v", err)
			}
		case <-time.After(30 * time.Second):
			_ = hollow.Process.Kill()
			tb.Errorf("hollow-nodes did not stop within 30 s of SIGTERM")
		}
	}()
	cs := clientset(tb, s)
	ns := s.CreateNamespace(tb, "hollow")
	registered := func() bool {
		list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{ResourceVersion: "0"})
		return err == nil && len(list.Items) >= nodes
	}
	if !pollEverySecond(5*time.Minute, registered) {
		tb.Fatalf("%d hollow nodes did not register", nodes)
	}

	start := time.Now()
	next := make(chan int)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			for i := range next {
				p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%d", i), Namespace: ns},
					Spec: corev1.PodSpec{NodeName: fmt.Sprintf("hollow-%d", i%nodes),
						Containers: []corev1.Container{{Name: "c", Image: "pause", Command: []string{"sleep", "inf"}}}}}
				if _, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
					tb.Error(err)
				}
			}
		})
	}
	for i := range nodes * perNode {
		next <- i
	}
	close(next)
	wg.Wait()
	r := hollowRun{created: time.Since(start)}
	allRunning := func() bool {
		list, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{ResourceVersion: "0", FieldSelector: "status.phase!=Running"})
		return err == nil && len(list.Items) == 0
	}
	if !pollEverySecond(30*time.Minute, allRunning) {
		tb.Fatalf("not all %d pods Running after 30m", nodes*perNode)
	}
	r.running = time.Since(start)
	time.Sleep(3 * time.Second) // a GC cycle of each process
	if r.hollowRSS, err = rssMiB(hollow.Process.Pid); err != nil {
		tb.Fatal(err)
	}
	if r.serverRSS, err = rssMiB(s.PID()); err != nil {
		tb.Fatal(err)
	}
	return r
}

// pollEverySecond reports whether cond holds within timeout, asking once a
// second: the benchmark's own lists must not load the server it measures.
func pollEverySecond(timeout time.Duration, cond func() bool) bool {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(time.Second) {
		if cond() {
			return true
		}
	}
	return cond()
}
