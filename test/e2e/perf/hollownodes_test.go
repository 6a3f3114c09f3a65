package perf

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/typed"

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
		r := runHollowNodes(b, hollowSpec{nodes: nodes, perNode: perNode})
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
	runHollowNodes(t, hollowSpec{nodes: 3, perNode: 2})
}

// hollowSpec is what runHollowNodes runs.
type hollowSpec struct {
	nodes, perNode int
	// rootCA gives every pod the projected volume a service account's
	// pods have, reading the namespace's kube-root-ca.crt config map.
	rootCA bool
	// idle, when set, is a window after every pod runs over which the
	// API server's requests are counted (idle's counts).
	idle time.Duration
}

// hollowRun is what runHollowNodes measured.
type hollowRun struct {
	created, running     time.Duration
	hollowRSS, serverRSS float64
	// idle counts the API server's requests by "VERB resource" over the
	// spec's idle window.
	idle map[string]float64
}

// runHollowNodes starts an apiserver and `kubecore hollow-nodes --count
// nodes`, waits for the nodes, creates perNode pods bound to each (16 at
// a time) and waits until all are Running; then it reads both processes'
// resident memory and stops them.
func runHollowNodes(tb testing.TB, spec hollowSpec) hollowRun {
	tb.Helper()
	nodes, perNode := spec.nodes, spec.perNode
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
	if spec.rootCA {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kube-root-ca.crt"}, Data: map[string]string{"ca.crt": "hollow"}}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, cm, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			tb.Fatal(err)
		}
	}
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
				if spec.rootCA {
					p.Spec.Volumes = []corev1.Volume{{Name: "kube-api-access", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
						Sources: []corev1.VolumeProjection{{ConfigMap: &corev1.ConfigMapProjection{
							LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
							Items:                []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}}}}}}}
				}
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
	if spec.idle > 0 {
		// Let the start-up traffic (the last pods' status writes) pass.
		time.Sleep(15 * time.Second)
		before := requestCounts(tb, cs)
		time.Sleep(spec.idle)
		after := requestCounts(tb, cs)
		r.idle = map[string]float64{}
		for k, v := range after {
			if d := v - before[k]; d > 0 {
				r.idle[k] = d
			}
		}
		// The first scrape itself (non-resource requests have no resource).
		if r.idle["GET "]--; r.idle["GET "] <= 0 {
			delete(r.idle, "GET ")
		}
	}
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

// requestLine is one series of apiserver_request_total.
var requestLine = regexp.MustCompile(`^apiserver_request_total\{(.*)\} ([0-9.e+]+)$`)

// requestCounts reads the API server's apiserver_request_total summed by
// "VERB resource[/subresource]".
func requestCounts(tb testing.TB, cs *typed.Clientset) map[string]float64 {
	tb.Helper()
	raw, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(context.Background())
	if err != nil {
		tb.Fatalf("read /metrics: %v", err)
	}
	out := map[string]float64{}
	for line := range strings.SplitSeq(string(raw), "\n") {
		m := requestLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		labels := map[string]string{}
		for _, kv := range strings.Split(m[1], ",") {
			k, v, _ := strings.Cut(kv, "=")
			labels[k] = strings.Trim(v, `"`)
		}
		n, err := strconv.ParseFloat(m[2], 64)
		if err != nil {
			tb.Fatalf("metrics line %q: %v", line, err)
		}
		key := labels["verb"] + " " + labels["resource"]
		if labels["subresource"] != "" {
			key += "/" + labels["subresource"]
		}
		out[key] += n
	}
	if len(out) == 0 {
		tb.Fatal("no apiserver_request_total in /metrics")
	}
	return out
}

// BenchmarkHollowNodesIdle runs KUBECORE_IDLE_NODES (500) hollow nodes
// with KUBECORE_IDLE_PODS (2) pods each, every pod with the projected
// kube-root-ca.crt volume of a service account's pods; once all run it
// counts the API server's requests over KUBECORE_IDLE_SECONDS (60) of
// idleness and prints them per node and second, by verb and resource,
// and the hollow-nodes process's memory per node.
func BenchmarkHollowNodesIdle(b *testing.B) {
	nodes, perNode := envInt("KUBECORE_IDLE_NODES", 500), envInt("KUBECORE_IDLE_PODS", 2)
	window := time.Duration(envInt("KUBECORE_IDLE_SECONDS", 60)) * time.Second
	for range b.N {
		r := runHollowNodes(b, hollowSpec{nodes: nodes, perNode: perNode, rootCA: true, idle: window})
		total := 0.0
		for _, k := range slices.Sorted(maps.Keys(r.idle)) {
			total += r.idle[k]
			rate := r.idle[k] / window.Seconds()
			figure.Print(fmt.Sprintf("hollow nodes idle: %s requests/s (%d nodes)", k, nodes), rate, "req/s", "none set", true)
		}
		perNodeRate := total / window.Seconds() / float64(nodes)
		figure.Print(fmt.Sprintf("hollow nodes idle: background requests per node (%d nodes x %d pods, %s window)", nodes, perNode, window), perNodeRate, "req/s", "<= 0.12", perNodeRate <= 0.12)
		perNodeRSS := r.hollowRSS / float64(nodes)
		figure.Print(fmt.Sprintf("hollow nodes idle: RSS of the hollow-nodes process per node (%d pods each)", perNode), perNodeRSS, "MiB", "<= 0.5", perNodeRSS <= 0.5)
	}
}
