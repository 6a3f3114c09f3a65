// Command soak runs a kubecore all-in-one (process runtime, on a data dir
// of its own) with hollow nodes for a while under a steady load — a
// Deployment of real processes rolling every 30 s, 20 Jobs a minute,
// ConfigMap churn of 50 writes/s, 10 watchers, a `kubectl get pods -A`
// every 5 s — and, every chaos interval, kills it with SIGKILL and starts
// it again with --keep-pods, checking that no acknowledged write is lost,
// no pod runs twice, the kept pod processes are re-adopted and the
// controllers converge within 30 s. It samples the server's /metrics every
// 10 s, prints the table and fails when the database size, RSS or
// goroutines grow without bound or an acknowledged write is lost.
// hack/soak.sh (make soak) builds kubecore and runs it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/rest"
	"kubecore.io/client/tools/clientcmd"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/test/utils/promtext"
)

const sampleInterval = 10 * time.Second

type options struct {
	bin, kubectl, workDir string
	duration, chaos       time.Duration
	eventTTL              time.Duration
	hollowNodes           int
	serverArgs            []string
}

func main() {
	var o options
	var serverArgs string
	flag.StringVar(&o.bin, "bin", "_output/bin/kubecore", "kubecore binary")
	flag.StringVar(&o.kubectl, "kubectl", "kubectl", "kubectl binary for the periodic get pods -A")
	flag.StringVar(&o.workDir, "work-dir", "", "directory for the data dir, logs and heap profiles (kept; default: a new temporary one)")
	flag.DurationVar(&o.duration, "duration", 30*time.Minute, "how long to run")
	flag.DurationVar(&o.chaos, "chaos-interval", 5*time.Minute, "kill -9 and restart all-in-one this often; 0 never")
	flag.DurationVar(&o.eventTTL, "event-ttl", time.Hour, "all-in-one's --event-ttl: RSS is judged after it")
	flag.IntVar(&o.hollowNodes, "hollow-nodes", 50, "hollow nodes to run beside all-in-one")
	flag.StringVar(&serverArgs, "server-args", "", "more all-in-one flags, space-separated (e.g. --etcd-compaction-interval=1m)")
	flag.Parse()
	o.serverArgs = strings.Fields(serverArgs)
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
}

type sample struct {
	at                     time.Duration
	life                   int // which start of all-in-one answered
	dbSize, dbInUse, rss   float64
	goroutines, fds        float64
	cacheObjects           float64
	cacheEvents            float64
	errors5xx, compactions float64
	mutatingP99            float64             // seconds, over the last minute
	buckets                map[float64]float64 // mutating requests' cumulative latency buckets
	writes, watchEvents    int64
}

func run(o options) (err error) {
	if o.workDir == "" {
		if o.workDir, err = os.MkdirTemp("", "kubecore-soak-"); err != nil {
			return err
		}
	}
	if o.bin, err = filepath.Abs(o.bin); err != nil {
		return err
	}
	s, err := newServer(o.bin, filepath.Join(o.workDir, "data"), append([]string{"--event-ttl", o.eventTTL.String()}, o.serverArgs...))
	if err != nil {
		return err
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	if err := s.start(); err != nil {
		return err
	}
	defer s.stop()
	for i := 0; i < 1800 && s.running(); i++ { // the kubeconfig is written at the first start
		if _, err := os.Stat(s.kubeconfig()); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", s.kubeconfig())
	if err != nil {
		return fmt.Errorf("all-in-one wrote no kubeconfig (see %s): %w", s.logPath, err)
	}
	cfg.QPS, cfg.Burst = -1, 0
	cfg.Timeout = 30 * time.Second
	cs, err := typed.NewForConfig(cfg)
	if err != nil {
		return err
	}
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	host := strings.TrimSuffix(cfg.Host, "/")
	if err := s.waitReady(ctx, httpClient, host, 2*time.Minute); err != nil {
		return err
	}
	hollow, err := startHollowNodes(o, s)
	if err != nil {
		return err
	}
	defer hollow.stop()
	node, err := ownNode(ctx, cs)
	if err != nil {
		return err
	}
	fmt.Printf("soak: %s in %s: all-in-one (pid %d, node %s) with %d hollow nodes, chaos every %s\n",
		o.duration, o.workDir, s.pid(), node, o.hollowNodes, o.chaos)

	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create namespace: %w", err)
	}
	l := &load{cs: cs, node: node, run: filepath.Base(o.workDir), dataDir: s.dataDir, http: httpClient, host: host, acked: make([]atomic.Int64, configMaps)}
	defer l.cleanup(s)
	if err := l.createWorkloads(ctx); err != nil {
		return err
	}
	runCtx, stopLoad := context.WithTimeout(ctx, o.duration)
	defer stopLoad()
	var wg sync.WaitGroup
	wg.Go(func() { l.churnConfigMaps(runCtx) })
	for i := range 10 {
		wg.Go(func() { l.watchLoop(runCtx, i) })
	}
	wg.Go(func() { l.rollDeployment(runCtx) })
	wg.Go(func() { l.runJobs(runCtx) })
	wg.Go(func() { l.getPods(runCtx, o.kubectl, s.kubeconfig()) })

	var (
		samples   []sample
		restarts  []restart
		start     = time.Now()
		profiled  = map[string]bool{}
		last      promtext.Scrape
		nextChaos = start.Add(o.chaos)
		ticker    = time.NewTicker(sampleInterval)
	)
	saveHeap := func(name string) {
		if err := heapProfile(httpClient, host, filepath.Join(o.workDir, name)); err != nil {
			fmt.Fprintln(os.Stderr, "heap profile:", err)
		}
	}
	for done := false; !done; {
		select {
		case <-runCtx.Done():
			done = true
		case <-ticker.C:
		}
		if !s.running() {
			return fmt.Errorf("all-in-one (pid %d) exited on its own at %s; see %s", s.pid(), time.Since(start).Round(time.Second), s.logPath)
		}
		life := s.starts
		if o.chaos > 0 && !done && time.Now().After(nextChaos) {
			saveHeap(fmt.Sprintf("heap-life%d-end.pb.gz", life))
			r := l.chaos(runCtx, s, httpClient, host, start)
			restarts = append(restarts, r)
			fmt.Printf("restart %d at %s: pid %d -> %d, ready %.1fs after the kill, converged %.1fs after ready, kept %d re-adopted %d, unfinished Jobs %d, lost %d, duplicated %d %s\n",
				len(restarts), r.at.Round(time.Second), r.oldPID, r.newPID, r.ready.Seconds(), r.converged.Seconds(), r.kept, r.readopted, r.jobs, r.lost, r.duplicated, strings.Join(r.problems, "; "))
			nextChaos = time.Now().Add(o.chaos)
			continue
		}
		m, err := scrape(httpClient, host)
		if err != nil {
			fmt.Fprintln(os.Stderr, "scrape:", err)
			continue
		}
		// One heap profile a minute into each life, one at its end.
		if key := fmt.Sprintf("heap-life%d-start.pb.gz", life); !profiled[key] && len(samples) > 0 && samples[len(samples)-1].life == life && time.Since(start) > time.Minute {
			profiled[key] = true
			saveHeap(key)
		}
		// p99 over the last minute of this process.
		buckets := m.Buckets("apiserver_request_duration_seconds", func(l map[string]string) bool { return mutatingVerbs[l["verb"]] })
		prevBuckets := map[float64]float64{}
		for i := len(samples) - 1; i >= 0 && samples[i].life == life && time.Since(start)-samples[i].at <= time.Minute+time.Second; i-- {
			prevBuckets = samples[i].buckets
		}
		if buckets[inf] < prevBuckets[inf] {
			prevBuckets = map[float64]float64{} // a new process
		}
		last = m
		samples = append(samples, sample{
			at: time.Since(start), life: life,
			dbSize: m.Sum("etcd_mvcc_db_total_size_in_bytes", nil), dbInUse: m.Sum("etcd_mvcc_db_total_size_in_use_in_bytes", nil),
			rss: m.Sum("process_resident_memory_bytes", nil), goroutines: m.Sum("go_goroutines", nil), fds: m.Sum("process_open_fds", nil),
			cacheObjects: m.Sum("apiserver_watch_cache_objects", nil), cacheEvents: m.Sum("apiserver_watch_cache_events", nil),
			errors5xx:   m.Sum("apiserver_request_total", func(l map[string]string) bool { return strings.HasPrefix(l["code"], "5") }),
			compactions: m.Sum("apiserver_storage_compactions_total", func(l map[string]string) bool { return l["result"] == "compacted" }),
			mutatingP99: promtext.Quantile(0.99, prevBuckets, buckets), buckets: buckets, writes: l.c.writes.Load(), watchEvents: l.c.watchEvents.Load(),
		})
	}
	ticker.Stop()
	saveHeap(fmt.Sprintf("heap-life%d-end.pb.gz", s.starts))
	stopLoad()
	wg.Wait()

	printTable(samples)
	printCaches(last)
	fmt.Printf("load: %d ConfigMap writes (%d failed, while down among others), %d watch events, %d rollouts, %d Jobs, %d kubectl gets (%d failed)\n",
		l.c.writes.Load(), l.c.writeErrors.Load(), l.c.watchEvents.Load(), l.c.rollouts.Load(), l.c.jobs.Load(), l.c.gets.Load(), l.c.getErrors.Load())
	fmt.Printf("heap profiles in %s: go tool pprof -top -diff_base heap-lifeN-start.pb.gz heap-lifeN-end.pb.gz\n", o.workDir)

	var errs []error
	for i, r := range restarts {
		if !r.ok() {
			errs = append(errs, fmt.Errorf("restart %d: %s", i+1, strings.Join(r.problems, "; ")))
		}
	}
	fmt.Printf("restarts: %d, %d with problems\n", len(restarts), len(errs))
	checkCtx, cancelCheck := context.WithTimeout(context.Background(), time.Minute)
	defer cancelCheck()
	lost, err := l.lostWrites(checkCtx)
	if err != nil {
		errs = append(errs, err)
	}
	fmt.Printf("acknowledged writes lost: %d\n", lost)
	if lost > 0 {
		errs = append(errs, fmt.Errorf("%d acknowledged writes lost", lost))
	}
	errs = append(errs, judgeGrowth(samples, o.eventTTL, o.chaos)...)
	return errors.Join(errs...)
}

// ownNode is the all-in-one's node: the one that is not hollow.
func ownNode(ctx context.Context, cs *typed.Clientset) (string, error) {
	for ctx.Err() == nil {
		nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err == nil {
			for _, n := range nodes.Items {
				if !strings.HasPrefix(n.Name, "hollow-node-") {
					return n.Labels["kubernetes.io/hostname"], nil
				}
			}
		}
		sleep(ctx, time.Second)
	}
	return "", ctx.Err()
}

// hollowNodes is the `kubecore hollow-nodes` process.
type hollowNodes struct{ srv *server }

func startHollowNodes(o options, s *server) (*hollowNodes, error) {
	h := &server{bin: o.bin, dataDir: s.dataDir, logPath: filepath.Join(o.workDir, "hollow-nodes.log"),
		args: []string{"hollow-nodes", "--count", fmt.Sprint(o.hollowNodes), "--kubeconfig", s.kubeconfig()}}
	if o.hollowNodes == 0 {
		return &hollowNodes{}, nil
	}
	if err := h.start(); err != nil {
		return nil, err
	}
	return &hollowNodes{srv: h}, nil
}

func (h *hollowNodes) stop() {
	if h.srv != nil {
		h.srv.stop()
	}
}

// cleanup deletes the soak's namespace, so that the kubelet stops the
// pods' processes (all-in-one keeps them on exit), and kills those left
// after a minute, by PID.
func (l *load) cleanup(s *server) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	if s.running() {
		_ = l.cs.CoreV1().Namespaces().Delete(ctx, namespace, metav1.DeleteOptions{})
		for ctx.Err() == nil && len(podProcesses(l.run)) > 0 {
			sleep(ctx, time.Second)
		}
	}
	for _, pids := range podProcesses(l.run) {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

var mutatingVerbs = map[string]bool{"POST": true, "PUT": true, "PATCH": true, "DELETE": true, "APPLY": true}

func scrape(client *http.Client, host string) (promtext.Scrape, error) {
	resp, err := client.Get(host + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /metrics: %s", resp.Status)
	}
	return promtext.Parse(resp.Body)
}

func heapProfile(client *http.Client, host, path string) error {
	resp, err := client.Get(host + "/debug/pprof/heap")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /debug/pprof/heap: %s", resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// printCaches prints the watch caches' sizes of the last scrape, the
// largest first.
func printCaches(m promtext.Scrape) {
	type cache struct {
		name            string
		objects, events float64
	}
	var caches []cache
	for _, x := range m {
		if x.Name != "apiserver_watch_cache_objects" {
			continue
		}
		name := x.Labels["resource"]
		if g := x.Labels["group"]; g != "" {
			name += "." + g
		}
		events, _ := m.Value("apiserver_watch_cache_events", x.Labels)
		caches = append(caches, cache{name, x.Value, events})
	}
	sort.Slice(caches, func(i, j int) bool { return caches[i].objects+caches[i].events > caches[j].objects+caches[j].events })
	fmt.Print("watch caches at the end (objects/ring events):")
	for i, c := range caches {
		if i == 8 {
			break
		}
		fmt.Printf(" %s %.0f/%.0f", c.name, c.objects, c.events)
	}
	fmt.Println()
}
