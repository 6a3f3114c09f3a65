// Command soak drives a running kubecore all-in-one for a while under a
// steady load — a Deployment rolling every 30 s, 20 Jobs a minute,
// ConfigMap churn of 50 writes/s, 10 watchers, a `kubectl get pods -A`
// every 5 s — samples the server's /metrics every 10 s, prints the table
// and fails when the database size, RSS or goroutines grow without bound
// over the last half of the run, or an acknowledged write is lost.
// hack/soak.sh starts the server and the hollow nodes and runs it.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/rest"
	"kubecore.io/client/tools/clientcmd"
	"kubecore.io/client/typed"
)

const (
	namespace      = "soak"
	configMaps     = 100
	sampleInterval = 10 * time.Second
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "admin kubeconfig of the server under test")
	duration := flag.Duration("duration", 30*time.Minute, "how long to run")
	kubectl := flag.String("kubectl", "kubectl", "kubectl binary for the periodic get pods -A")
	flag.Parse()
	if err := run(*kubeconfig, *kubectl, *duration); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

type sample struct {
	at                     time.Duration
	dbSize, dbInUse, rss   float64
	goroutines, fds        float64
	errors5xx, compactions float64
	mutatingP99            float64 // seconds, over the sample interval
	writes, watchEvents    int64
}

type loadCounters struct {
	writes, writeErrors, watchEvents, gets, getErrors, rollouts, jobs atomic.Int64
}

func run(kubeconfig, kubectl string, duration time.Duration) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = -1, 0
	cs, err := typed.NewForConfig(cfg)
	if err != nil {
		return err
	}
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create namespace: %w", err)
	}
	var c loadCounters
	acked := make([]atomic.Int64, configMaps) // last acknowledged value of each ConfigMap
	var wg sync.WaitGroup
	wg.Go(func() { churnConfigMaps(ctx, cs, acked, &c) })
	for i := range 10 {
		wg.Go(func() { watchLoop(ctx, cs, i, &c) })
	}
	wg.Go(func() { rollDeployment(ctx, cs, &c) })
	wg.Go(func() { runJobs(ctx, cs, &c) })
	wg.Go(func() { getPods(ctx, kubectl, kubeconfig, &c) })

	var samples []sample
	start := time.Now()
	prevBuckets := map[float64]float64{}
	ticker := time.NewTicker(sampleInterval)
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-ticker.C:
		}
		m, err := scrape(httpClient, cfg.Host)
		if err != nil {
			fmt.Fprintln(os.Stderr, "scrape:", err)
			continue
		}
		buckets := m.mutatingBuckets()
		samples = append(samples, sample{
			at: time.Since(start), dbSize: m.first("etcd_mvcc_db_total_size_in_bytes"), dbInUse: m.first("etcd_mvcc_db_total_size_in_use_in_bytes"),
			rss: m.first("process_resident_memory_bytes"), goroutines: m.first("go_goroutines"), fds: m.first("process_open_fds"),
			errors5xx: m.errors5xx(), compactions: m.first(`apiserver_storage_compactions_total{result="compacted"}`),
			mutatingP99: p99(prevBuckets, buckets), writes: c.writes.Load(), watchEvents: c.watchEvents.Load(),
		})
		prevBuckets = buckets
	}
	ticker.Stop()
	wg.Wait()
	printTable(samples)
	fmt.Printf("load: %d ConfigMap writes (%d errors), %d watch events, %d rollouts, %d Jobs, %d kubectl gets (%d failed)\n",
		c.writes.Load(), c.writeErrors.Load(), c.watchEvents.Load(), c.rollouts.Load(), c.jobs.Load(), c.gets.Load(), c.getErrors.Load())

	var errs []error
	lost, err := lostWrites(cs, acked)
	if err != nil {
		errs = append(errs, err)
	}
	fmt.Printf("acknowledged writes lost: %d\n", lost)
	if lost > 0 {
		errs = append(errs, fmt.Errorf("%d acknowledged writes lost", lost))
	}
	for _, g := range []struct {
		name string
		get  func(sample) float64
		// slack is growth over the last half that is not a leak: a
		// fraction of the mean.
		slack float64
	}{
		{"etcd DB size", func(s sample) float64 { return s.dbSize }, 0.25},
		{"RSS", func(s sample) float64 { return s.rss }, 0.25},
		{"goroutines", func(s sample) float64 { return s.goroutines }, 0.25},
	} {
		slope, growth, mean := secondHalfSlope(samples, g.get)
		verdict := "flat"
		if growth > g.slack*mean {
			verdict = "GROWING"
			errs = append(errs, fmt.Errorf("%s grows without bound: %+.0f over the last half (mean %.0f)", g.name, growth, mean))
		}
		fmt.Printf("%-12s slope over the last half: %+.3g/s (%+.0f, mean %.0f): %s\n", g.name, slope, growth, mean, verdict)
	}
	return errors.Join(errs...)
}

// churnConfigMaps writes 50 times a second round-robin over configMaps
// ConfigMaps, each write's value one more than the last acknowledged.
func churnConfigMaps(ctx context.Context, cs *typed.Clientset, acked []atomic.Int64, c *loadCounters) {
	client := cs.CoreV1().ConfigMaps(namespace)
	ticker := time.NewTicker(time.Second / 50)
	defer ticker.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		n := i % configMaps
		next := acked[n].Load() + 1
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("churn-%03d", n)}, Data: map[string]string{"v": strconv.FormatInt(next, 10)}}
		var err error
		if next == 1 {
			_, err = client.Create(ctx, cm, metav1.CreateOptions{})
		} else {
			_, err = client.Update(ctx, cm, metav1.UpdateOptions{})
		}
		if err != nil {
			if ctx.Err() == nil {
				c.writeErrors.Add(1)
			}
			continue
		}
		acked[n].Store(next)
		c.writes.Add(1)
	}
}

// watchLoop keeps a watch open (ConfigMaps of the soak namespace, or
// every pod) and counts its events, starting again when it ends.
func watchLoop(ctx context.Context, cs *typed.Clientset, i int, c *loadCounters) {
	for ctx.Err() == nil {
		var w watch.Interface
		var err error
		if i%2 == 0 {
			w, err = cs.CoreV1().ConfigMaps(namespace).Watch(ctx, metav1.ListOptions{})
		} else {
			w, err = cs.CoreV1().Pods("").Watch(ctx, metav1.ListOptions{})
		}
		if err != nil {
			time.Sleep(time.Second)
			continue
		}
		for range w.ResultChan() {
			c.watchEvents.Add(1)
		}
		w.Stop()
	}
}

// rollDeployment keeps a 5-replica Deployment and changes its template
// every 30 s, a new rollout each time.
func rollDeployment(ctx context.Context, cs *typed.Clientset, c *loadCounters) {
	client := cs.AppsV1().Deployments(namespace)
	labels := map[string]string{"app": "soak"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "soak"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(int32(5)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "pause", Image: "pause"}}},
			},
		},
	}
	if _, err := client.Create(ctx, d, metav1.CreateOptions{}); err != nil {
		fmt.Fprintln(os.Stderr, "create deployment:", err)
		return
	}
	ticker := time.NewTicker(30 * time.Second)
	defer ticker.Stop()
	for i := 1; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		patch := fmt.Sprintf(`{"spec":{"template":{"metadata":{"annotations":{"soak/roll":"%d"}}}}}`, i)
		if _, err := client.Patch(ctx, "soak", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err == nil {
			c.rollouts.Add(1)
		}
	}
}

// runJobs creates 20 Jobs a minute and deletes each a minute later (the
// hollow nodes' fake containers never finish), so that about 20 exist.
func runJobs(ctx context.Context, cs *typed.Clientset, c *loadCounters) {
	client := cs.BatchV1().Jobs(namespace)
	ticker := time.NewTicker(3 * time.Second)
	defer ticker.Stop()
	var live []string
	background := metav1.DeletePropagationBackground
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		name := fmt.Sprintf("soak-%05d", i)
		job := &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever,
				Containers:    []corev1.Container{{Name: "work", Image: "pause"}},
			}}},
		}
		if _, err := client.Create(ctx, job, metav1.CreateOptions{}); err == nil {
			c.jobs.Add(1)
			live = append(live, name)
		}
		if len(live) > 20 {
			_ = client.Delete(ctx, live[0], metav1.DeleteOptions{PropagationPolicy: &background})
			live = live[1:]
		}
	}
}

// getPods runs `kubectl get pods -A` every 5 s.
func getPods(ctx context.Context, kubectl, kubeconfig string, c *loadCounters) {
	ticker := time.NewTicker(5 * time.Second)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		cmd := exec.CommandContext(ctx, kubectl, "--kubeconfig", kubeconfig, "get", "pods", "-A", "--no-headers")
		if err := cmd.Run(); err != nil {
			if ctx.Err() == nil {
				c.getErrors.Add(1)
			}
			continue
		}
		c.gets.Add(1)
	}
}

func ptr[T any](v T) *T { return &v }

// lostWrites counts the ConfigMaps whose stored value is behind the last
// acknowledged write.
func lostWrites(cs *typed.Clientset, acked []atomic.Int64) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list, err := cs.CoreV1().ConfigMaps(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, fmt.Errorf("list ConfigMaps for lost writes: %w", err)
	}
	stored := map[string]int64{}
	for _, cm := range list.Items {
		stored[cm.Name], _ = strconv.ParseInt(cm.Data["v"], 10, 64)
	}
	lost := 0
	for i := range acked {
		want := acked[i].Load()
		if got := stored[fmt.Sprintf("churn-%03d", i)]; want > 0 && got < want {
			lost++
		}
	}
	return lost, nil
}

// metrics are the samples of one scrape, by name with labels.
type metrics map[string]float64

func scrape(client *http.Client, host string) (metrics, error) {
	resp, err := client.Get(strings.TrimSuffix(host, "/") + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	m := metrics{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			m[line[:i]] = v
		}
	}
	return m, sc.Err()
}

func (m metrics) first(name string) float64 { return m[name] }

// errors5xx sums apiserver_request_total with a 5xx code.
func (m metrics) errors5xx() float64 {
	var n float64
	for k, v := range m {
		if strings.HasPrefix(k, "apiserver_request_total{") && strings.Contains(k, `code="5`) {
			n += v
		}
	}
	return n
}

var mutatingVerbs = []string{`verb="POST"`, `verb="PUT"`, `verb="PATCH"`, `verb="DELETE"`, `verb="create"`, `verb="update"`, `verb="patch"`, `verb="delete"`}

// mutatingBuckets sums the cumulative request duration buckets of the
// mutating verbs, by upper bound.
func (m metrics) mutatingBuckets() map[float64]float64 {
	out := map[float64]float64{}
	for k, v := range m {
		if !strings.HasPrefix(k, "apiserver_request_duration_seconds_bucket{") {
			continue
		}
		mutating := false
		for _, verb := range mutatingVerbs {
			mutating = mutating || strings.Contains(k, verb)
		}
		if !mutating {
			continue
		}
		i := strings.Index(k, `le="`)
		if i < 0 {
			continue
		}
		le := k[i+4:]
		le = le[:strings.IndexByte(le, '"')]
		bound, err := strconv.ParseFloat(le, 64)
		if err != nil {
			continue
		}
		out[bound] += v
	}
	return out
}

// p99 is the 99th percentile of the requests between two scrapes of the
// cumulative buckets: the upper bound of the bucket it falls in.
func p99(prev, cur map[float64]float64) float64 {
	bounds := make([]float64, 0, len(cur))
	for b := range cur {
		bounds = append(bounds, b)
	}
	sort.Float64s(bounds)
	if len(bounds) == 0 {
		return 0
	}
	total := cur[bounds[len(bounds)-1]] - prev[bounds[len(bounds)-1]]
	if total <= 0 {
		return 0
	}
	for _, b := range bounds {
		if cur[b]-prev[b] >= 0.99*total {
			return b
		}
	}
	return math.Inf(1)
}

// secondHalfSlope fits a line to the last half of the samples: its slope
// per second, the growth it means over that half, and the half's mean.
func secondHalfSlope(samples []sample, get func(sample) float64) (slope, growth, mean float64) {
	half := samples[len(samples)/2:]
	if len(half) < 2 {
		return 0, 0, 0
	}
	var sx, sy, sxx, sxy float64
	for _, s := range half {
		x, y := s.at.Seconds(), get(s)
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	n := float64(len(half))
	mean = sy / n
	den := n*sxx - sx*sx
	if den == 0 {
		return 0, 0, mean
	}
	slope = (n*sxy - sx*sy) / den
	return slope, slope * (half[len(half)-1].at - half[0].at).Seconds(), mean
}

func printTable(samples []sample) {
	fmt.Printf("%8s %10s %10s %9s %6s %5s %6s %6s %9s %8s %8s\n",
		"t", "db MiB", "inuse MiB", "rss MiB", "gorout", "fds", "5xx", "compct", "mut p99", "writes", "watchEv")
	for _, s := range samples {
		fmt.Printf("%8s %10.1f %10.1f %9.1f %6.0f %5.0f %6.0f %6.0f %8.3fs %8d %8d\n",
			s.at.Round(time.Second), s.dbSize/(1<<20), s.dbInUse/(1<<20), s.rss/(1<<20), s.goroutines, s.fds,
			s.errors5xx, s.compactions, s.mutatingP99, s.writes, s.watchEvents)
	}
}
