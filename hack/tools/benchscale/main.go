// Command benchscale is `make bench-scale`: it starts the API server (with
// its embedded etcd), the scheduler and the controller-manager as separate
// processes of the kubecore binary on free loopback ports in a temp dir,
// plus `kubecore hollow-nodes --count N`, waits for the nodes to be Ready,
// measures their idle background traffic, then creates Deployments totalling
// P pods and follows them until they all run. It prints every figure beside
// the target of issue 25, and stops every process it started, by PID.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	coordinationv1 "kubecore.io/api/coordination/v1"
	corev1 "kubecore.io/api/core/v1"
	rbacv1 "kubecore.io/api/rbac/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/rest"
	"kubecore.io/client/tools/clientcmd"
	"kubecore.io/client/typed"
)

// The election timing of the scheduler and controller-manager (their
// defaults): a renewal is due every retryPeriod.
const retryPeriod = 2 * time.Second

// hollowUser is the identity of the hollow nodes.
const hollowUser = "bench-scale:hollow-nodes"

func main() {
	var o options
	flag.StringVar(&o.bin, "bin", "_output/bin/kubecore", "the kubecore binary")
	flag.IntVar(&o.nodes, "nodes", 5000, "hollow nodes (N)")
	flag.IntVar(&o.pods, "pods", 150000, "pods in total (P)")
	flag.IntVar(&o.perDeployment, "per-deployment", 1000, "replicas of each Deployment")
	flag.DurationVar(&o.idle, "idle", 30*time.Second, "the idle window over which the nodes' background traffic is measured")
	flag.DurationVar(&o.podsTimeout, "pods-timeout", 0, "how long to wait for every pod to run (0: 3m, or P/250 s when longer)")
	flag.BoolVar(&o.keep, "keep", false, "keep the temp dir (logs, data) at the end")
	flag.IntVar(&o.verbosity, "v", 0, "log verbosity (--v) of the scheduler and controller-manager")
	flag.StringVar(&o.apiserverArgs, "apiserver-args", "", "more flags of the API server, space-separated (e.g. \"--max-mutating-requests-inflight 50\")")
	flag.StringVar(&o.profileDir, "profile-dir", "", "write the API server's CPU profile (20 s while the pods are made) and, at the end, its heap profile and every process's /proc smaps there (docs/scale.md)")
	flag.Parse()
	if o.podsTimeout == 0 {
		o.podsTimeout = max(3*time.Minute, time.Duration(o.pods/250)*time.Second)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "bench-scale:", err)
		os.Exit(1)
	}
}

type options struct {
	bin               string
	nodes, pods       int
	perDeployment     int
	idle, podsTimeout time.Duration
	keep              bool
	verbosity         int
	apiserverArgs     string
	profileDir        string
}

// proc is a process the benchmark started.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
	// idleRSS is the RSS before the Deployments, lastRSS the last one
	// sampled while it ran, in bytes.
	idleRSS, lastRSS int64
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

type bench struct {
	o     options
	dir   string
	procs []*proc
	cs    *typed.Clientset
	cfg   *rest.Config
	hc    *http.Client
	// etcdURL is the embedded etcd member's client URL, for its metrics.
	etcdURL string
}

func run(ctx context.Context, o options) error {
	bin, err := filepath.Abs(o.bin)
	if err != nil {
		return err
	}
	o.bin = bin
	dir, err := os.MkdirTemp("", "kubecore-bench-scale-")
	if err != nil {
		return err
	}
	b := &bench{o: o, dir: dir}
	defer func() {
		b.stopAll()
		if o.keep {
			fmt.Printf("kept %s\n", dir)
			return
		}
		_ = os.RemoveAll(dir)
	}()
	return b.run(ctx)
}

func (b *bench) run(ctx context.Context) error {
	o := b.o
	fmt.Printf("bench-scale: N=%d hollow nodes, P=%d pods (%d per Deployment), in %s\n", o.nodes, o.pods, o.perDeployment, b.dir)
	data := filepath.Join(b.dir, "data")
	apiserver, err := b.start("apiserver", append([]string{"apiserver", "--data-dir", data, "--secure-port", "0", "--bind-address", "127.0.0.1"}, strings.Fields(o.apiserverArgs)...)...)
	if err != nil {
		return err
	}
	if err := b.waitAPIServer(ctx, apiserver, filepath.Join(data, "admin.kubeconfig")); err != nil {
		return err
	}
	b.etcdURL = etcdClientURL(apiserver.log)
	leases := newLeaseWatcher()
	go leases.run(ctx, b.cs)

	// The scheduler and controller-manager, each with its own identity (so
	// their requests are classified as Kubernetes' are) and leader
	// election on, as a standalone control plane runs them.
	for _, c := range []struct{ name, user string }{
		{"scheduler", "system:kube-scheduler"},
		{"controller-manager", "system:kube-controller-manager"},
	} {
		kc := filepath.Join(b.dir, c.name+".kubeconfig")
		if out, err := exec.CommandContext(ctx, o.bin, "certs", "kubeconfig", "--data-dir", data,
			"--user", c.user, "--server", b.cfg.Host, "--out", kc).CombinedOutput(); err != nil {
			return fmt.Errorf("kubeconfig of %s: %w: %s", c.name, err, out)
		}
		if _, err := b.start(c.name, c.name, "--kubeconfig", kc, "--leader-elect=true", "--v", strconv.Itoa(o.verbosity)); err != nil {
			return err
		}
	}

	// The hollow nodes, and the time until all are Ready. They share one
	// identity in group system:nodes (so their requests are classified
	// node-high, as kubelets' are, not exempt as the admin's), allowed
	// everything by a binding: the Node authorizer would confine a
	// system:node:NAME identity to one node.
	kc := filepath.Join(b.dir, "hollow-nodes.kubeconfig")
	if out, err := exec.CommandContext(ctx, o.bin, "certs", "kubeconfig", "--data-dir", data,
		"--user", hollowUser, "--groups", "system:nodes", "--server", b.cfg.Host, "--out", kc).CombinedOutput(); err != nil {
		return fmt.Errorf("kubeconfig of hollow-nodes: %w: %s", err, out)
	}
	if _, err := b.cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "bench-scale-hollow-nodes"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: hollowUser}},
	}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("bind the hollow nodes' identity: %w", err)
	}
	nodesStart := time.Now()
	if _, err := b.start("hollow-nodes", "hollow-nodes", "--count", strconv.Itoa(o.nodes), "--kubeconfig", kc); err != nil {
		return err
	}
	nodes := newTracker(nodeState)
	go nodes.run(ctx, b.cs.CoreV1().Nodes().Watch, func(ctx context.Context) (string, []runtime.Object, error) {
		l, err := b.cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			return "", nil, err
		}
		objs := make([]runtime.Object, len(l.Items))
		for i := range l.Items {
			objs[i] = &l.Items[i]
		}
		return l.ResourceVersion, objs, nil
	})
	if _, err := b.waitFor(ctx, 5*time.Minute, func() bool { return nodes.count(stateReady) >= o.nodes }); err != nil {
		return fmt.Errorf("nodes Ready: %d of %d: %w", nodes.count(stateReady), o.nodes, err)
	}
	readyIn := time.Since(nodesStart)
	fmt.Printf("\n%d hollow nodes Ready in %.1f s\n", o.nodes, readyIn.Seconds())

	// The idle window: the nodes' background traffic, from the API
	// server's request counters. It starts once the nodes' start-up
	// Events are written (5 s without one, a minute at most), so that
	// only the steady traffic is counted.
	before, err := b.scrape()
	if err != nil {
		return err
	}
	for settle := time.Now(); time.Since(settle) < time.Minute; {
		if err := sleep(ctx, 5*time.Second); err != nil {
			return err
		}
		next, err := b.scrape()
		if err != nil {
			return err
		}
		quiet := deltaSum(before, next, "apiserver_request_total{", `resource="events"`) == 0
		before = next
		if quiet {
			break
		}
	}
	idleStart := time.Now()
	if err := sleep(ctx, o.idle); err != nil {
		return err
	}
	after, err := b.scrape()
	if err != nil {
		return err
	}
	idleWindow := time.Since(idleStart)
	for _, p := range b.procs {
		p.idleRSS = rss(p)
	}
	idleDB := after["etcd_mvcc_db_total_size_in_bytes"]
	background := requestRates(before, after, idleWindow, o.nodes)

	// The Deployments, and the pods followed until they all run.
	pods := newTracker(podState)
	ns := "bench-scale"
	if err := b.makeNamespace(ctx, ns); err != nil {
		return err
	}
	go pods.run(ctx, b.cs.CoreV1().Pods(ns).Watch, func(ctx context.Context) (string, []runtime.Object, error) {
		l, err := b.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return "", nil, err
		}
		objs := make([]runtime.Object, len(l.Items))
		for i := range l.Items {
			objs[i] = &l.Items[i]
		}
		return l.ResourceVersion, objs, nil
	})
	if _, err := b.waitFor(ctx, time.Minute, pods.synced); err != nil {
		return fmt.Errorf("pod watch: %w", err)
	}
	floodBefore, err := b.scrape()
	if err != nil {
		return err
	}
	deployStart := time.Now()
	for i, left := 0, o.pods; left > 0; i++ {
		n := min(left, o.perDeployment)
		left -= n
		if _, err := b.cs.AppsV1().Deployments(ns).Create(ctx, deployment(fmt.Sprintf("big-%03d", i), int32(n)), metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create Deployment %d: %w", i, err)
		}
	}
	fmt.Printf("\nDeployments created (%d pods) in %.1f s\n", o.pods, time.Since(deployStart).Seconds())
	if o.profileDir != "" {
		go b.cpuProfile(ctx, o.profileDir)
	}
	fmt.Printf("%8s %9s %9s %9s %10s\n", "t (s)", "created", "scheduled", "Running", "Running/s")
	var allRunning time.Duration
	var maxPending float64
	prevRunning, prevAt := 0, deployStart
	tick := time.NewTicker(10 * time.Second)
	deadline := time.After(o.podsTimeout)
follow:
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-deadline:
			fmt.Printf("timed out after %s\n", o.podsTimeout)
			break follow
		case <-tick.C:
		}
		created, scheduled, running := pods.count(stateCreated), pods.count(stateScheduled), pods.count(stateReady)
		now := time.Now()
		fmt.Printf("%8.0f %9d %9d %9d %10.0f\n", now.Sub(deployStart).Seconds(), created, scheduled, running,
			float64(running-prevRunning)/now.Sub(prevAt).Seconds())
		prevRunning, prevAt = running, now
		b.sampleRSS()
		if m, err := b.scrape(); err == nil {
			maxPending = max(maxPending, m["etcd_server_proposals_pending"])
		}
		if running >= o.pods {
			allRunning = pods.lastReadyAt().Sub(deployStart)
			break follow
		}
		if b.anyExited() {
			fmt.Println("a component exited: stopping early")
			break follow
		}
	}
	tick.Stop()
	b.sampleRSS()
	followed := time.Since(deployStart)
	final, err := b.scrape()
	if err != nil {
		return err
	}
	stored := pods.count(stateCreated)
	if o.profileDir != "" {
		if err := b.saveProfiles(o.profileDir); err != nil {
			fmt.Fprintln(os.Stderr, "bench-scale: profiles:", err)
		}
	}

	// The report.
	fmt.Println()
	fmt.Printf("%-64s %-20s %s\n", "figure", "measured", "target")
	row := func(name, got, target string) { fmt.Printf("%-64s %-20s %s\n", name, got, target) }
	row(fmt.Sprintf("%d nodes Ready", o.nodes), fmt.Sprintf("%.1f s", readyIn.Seconds()), "≤ 30 s (5000 nodes)")
	row("idle background requests per node", fmt.Sprintf("%.3f /s", background.total), "≤ 0.12 /s")
	if allRunning > 0 {
		row(fmt.Sprintf("%d pods Running after the Deployments", o.pods), fmt.Sprintf("%.1f s", allRunning.Seconds()), "≤ 300 s (150000 pods)")
		row("pods/s end to end", fmt.Sprintf("%.0f", float64(o.pods)/allRunning.Seconds()), "≥ 500")
	} else {
		row(fmt.Sprintf("pods Running after %.0f s (not all)", followed.Seconds()), fmt.Sprintf("%d of %d", pods.count(stateReady), o.pods), "all within 300 s (150000 pods)")
	}
	for _, name := range []string{"kube-scheduler", "kube-controller-manager"} {
		p99, n, transitions := leases.summary(name, time.Now())
		row(fmt.Sprintf("lease %s renewal latency p99 (%d renewals)", name, n), fmt.Sprintf("%.2f s", p99.Seconds()), "≤ 2 s")
		row(fmt.Sprintf("lease %s holder changes after the first", name), strconv.Itoa(transitions), "0")
	}
	for _, p := range b.procs {
		r := p.lastRSS
		perPod := "-"
		if stored > 0 && p.idleRSS > 0 && r > 0 {
			perPod = fmt.Sprintf("%.1f KiB/pod", float64(r-p.idleRSS)/float64(stored)/1024)
		}
		target := ""
		switch p.name {
		case "apiserver":
			target = "≤ 6 KiB per stored pod above idle"
		case "hollow-nodes":
			target = fmt.Sprintf("≤ 0.5 MiB per node (idle: %.2f MiB/node)", float64(p.idleRSS)/float64(o.nodes)/(1<<20))
		}
		state := ""
		if p.exited() {
			state = " EXITED"
		}
		row(fmt.Sprintf("RSS %s idle → end (or last seen)%s", p.name, state), fmt.Sprintf("%s → %s", mib(p.idleRSS), mib(r)), perPod+"  "+target)
	}
	row("etcd DB size idle → end", fmt.Sprintf("%s → %s", mib(int64(idleDB)), mib(int64(final["etcd_mvcc_db_total_size_in_bytes"]))), "")
	lost := []string{}
	for _, p := range b.procs {
		if p.exited() {
			lost = append(lost, p.name)
		}
	}
	row("components that exited (lost their Lease?)", fmt.Sprintf("%d %v", len(lost), lost), "0")

	fmt.Printf("\npriority and fairness over the whole run, by priority level (dispatched / rejected):\n")
	for _, l := range apfLevels(final) {
		fmt.Printf("  %-16s %10.0f %10.0f\n", l.name, l.dispatched, l.rejected)
	}
	fmt.Printf("\nidle background requests per node (%.0f s window, %d nodes), by verb and resource\n", idleWindow.Seconds(), o.nodes)
	fmt.Printf("(all requests the API server served, so also the scheduler's and controller-manager's renewals, about 2 requests/s in all):\n")
	for _, r := range background.rows {
		if r.perNode >= 0.0005 {
			fmt.Printf("  %-8s %-40s %.4f /s\n", r.verb, r.resource, r.perNode)
		}
	}
	flood := requestRates(floodBefore, final, followed, 1, `code="2`)
	scheduled, ran := pods.count(stateScheduled), pods.count(stateReady)
	fmt.Printf("\nwrites served (2xx) while the pods were created (%.0f s), by verb and resource: per second, per pod stored (%d), per pod bound (%d), per pod Running (%d)\n",
		followed.Seconds(), stored, scheduled, ran)
	var writes, tokens float64
	for _, r := range flood.rows {
		if r.verb == "POST" || r.verb == "PUT" || r.verb == "PATCH" || r.verb == "DELETE" {
			if r.resource == "serviceaccounts/token" {
				tokens += r.perNode * followed.Seconds()
			} else {
				writes += r.perNode * followed.Seconds()
			}
		}
		if (r.verb == "POST" || r.verb == "PUT" || r.verb == "PATCH" || r.verb == "DELETE") && r.perNode*followed.Seconds() >= 1 {
			n := r.perNode * followed.Seconds()
			fmt.Printf("  %-8s %-40s %8.1f /s %6.2f /stored %6.2f /bound %6.2f /Running\n", r.verb, r.resource, r.perNode,
				n/float64(max(stored, 1)), n/float64(max(scheduled, 1)), n/float64(max(ran, 1)))
		}
	}
	fmt.Printf("  in all %.0f writes besides %.0f TokenRequests (%.2f per pod Running)\n", writes, tokens, writes/float64(max(ran, 1)))
	if rejected := deltaSum(floodBefore, final, "apiserver_request_total{", `code="429"`); rejected > 0 {
		fmt.Printf("  answered 429 (retried by the clients): %.0f requests\n", rejected)
	}
	for _, prio := range []string{"leader", "node", "normal"} {
		sel := `priority="` + prio + `"`
		n := deltaSum(floodBefore, final, "kubecore_etcd_write_gate_wait_seconds_count{", sel)
		if n > 0 {
			fmt.Printf("  etcd write gate, %s writes that waited: %.0f, mean wait %.3f s\n", prio, n,
				deltaSum(floodBefore, final, "kubecore_etcd_write_gate_wait_seconds_sum{", sel)/n)
		}
	}
	printEtcd(floodBefore, final, followed, maxPending)
	if len(lost) > 0 {
		for _, p := range b.procs {
			if p.exited() {
				fmt.Printf("%s exited: %v; last lines of %s:\n%s\n", p.name, p.err, p.log, tail(p.log, 10))
			}
		}
		return fmt.Errorf("%d components exited during the run", len(lost))
	}
	return nil
}

// start runs the binary with args, its output in <name>.log.
func (b *bench) start(name string, args ...string) (*proc, error) {
	logPath := filepath.Join(b.dir, name+".log")
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(b.o.bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		_ = f.Close()
		close(p.done)
	}()
	b.procs = append(b.procs, p)
	return p, nil
}

// stopAll stops the processes it started, last first: SIGTERM, then
// SIGKILL after 15 s.
func (b *bench) stopAll() {
	for i := len(b.procs) - 1; i >= 0; i-- {
		p := b.procs[i]
		if p.exited() {
			continue
		}
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(15 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	}
}

func (b *bench) anyExited() bool {
	for _, p := range b.procs {
		if p.exited() {
			return true
		}
	}
	return false
}

func (b *bench) waitAPIServer(ctx context.Context, p *proc, kubeconfig string) error {
	deadline := time.Now().Add(time.Minute)
	for {
		if p.exited() {
			return fmt.Errorf("apiserver exited: %v\n%s", p.err, tail(p.log, 20))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("apiserver not ready after a minute:\n%s", tail(p.log, 20))
		}
		if _, err := os.Stat(kubeconfig); err == nil {
			cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
			if err != nil {
				return err
			}
			cfg.QPS, cfg.Burst = -1, 0
			cfg.ContentType = "application/vnd.kubernetes.protobuf"
			hc, err := rest.HTTPClientFor(cfg)
			if err != nil {
				return err
			}
			if resp, err := hc.Get(cfg.Host + "/readyz"); err == nil {
				_ = resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					cs, err := typed.NewForConfig(cfg)
					if err != nil {
						return err
					}
					b.cfg, b.hc, b.cs = cfg, hc, cs
					return nil
				}
			}
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return err
		}
	}
}

func (b *bench) waitFor(ctx context.Context, timeout time.Duration, cond func() bool) (time.Duration, error) {
	start := time.Now()
	for !cond() {
		if time.Since(start) > timeout {
			return 0, fmt.Errorf("not after %s", timeout)
		}
		if b.anyExited() {
			var msgs []string
			for _, p := range b.procs {
				if p.exited() {
					msgs = append(msgs, fmt.Sprintf("%s exited (%v); last lines of %s:\n%s", p.name, p.err, p.log, tail(p.log, 10)))
				}
			}
			return 0, errors.New(strings.Join(msgs, "\n"))
		}
		if err := sleep(ctx, 100*time.Millisecond); err != nil {
			return 0, err
		}
	}
	return time.Since(start), nil
}

// makeNamespace creates ns and waits for its default ServiceAccount, which
// the pods need.
func (b *bench) makeNamespace(ctx context.Context, ns string) error {
	if _, err := b.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create namespace %s: %w", ns, err)
	}
	_, err := b.waitFor(ctx, time.Minute, func() bool {
		_, err := b.cs.CoreV1().ServiceAccounts(ns).Get(ctx, "default", metav1.GetOptions{})
		return err == nil
	})
	if err != nil {
		return fmt.Errorf("default ServiceAccount of %s: %w", ns, err)
	}
	return nil
}

func deployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{
					Name: "pause", Image: "registry.k8s.io/pause:3.10", Command: []string{"/pause"},
				}}},
			},
		},
	}
}

// scrape reads the API server's /metrics: "name{labels}" -> value, and
// those of its embedded etcd member (served on the member's client URL,
// from etcd's own registry) under names the API server does not have.
func (b *bench) scrape() (map[string]float64, error) {
	m := map[string]float64{}
	if err := readMetrics(b.hc, b.cfg.Host+"/metrics", m); err != nil {
		return nil, err
	}
	if b.etcdURL != "" {
		etcd := map[string]float64{}
		if err := readMetrics(http.DefaultClient, b.etcdURL+"/metrics", etcd); err == nil {
			for k, v := range etcd {
				if _, ok := m[k]; !ok {
					m[k] = v
				}
			}
		}
	}
	return m, nil
}

func readMetrics(hc *http.Client, url string, m map[string]float64) error {
	resp, err := hc.Get(url)
	if err != nil {
		return fmt.Errorf("scrape %s: %w", url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.LastIndexByte(line, ' '); i > 0 {
			if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
				m[line[:i]] = v
			}
		}
	}
	return sc.Err()
}

// etcdClientURL finds the embedded etcd member's client URL in the API
// server's log ("Embedded etcd ready ... clientURLs=[...]"); "" when the
// API server has none (an external etcd).
func etcdClientURL(logPath string) string {
	raw, err := os.ReadFile(logPath)
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(raw)) {
		if !strings.Contains(line, "Embedded etcd ready") {
			continue
		}
		_, rest, ok := strings.Cut(line, `clientURLs=["`)
		if !ok {
			return ""
		}
		u, _, _ := strings.Cut(rest, `"`)
		return u
	}
	return ""
}

type rateRow struct {
	verb, resource string
	perNode        float64
}

type rates struct {
	total float64
	rows  []rateRow
}

// requestRates is the apiserver_request_total delta between two scrapes,
// per second and per node, by verb and resource/subresource; with
// matches, only of the series whose labels contain every one.
func requestRates(before, after map[string]float64, window time.Duration, nodes int, matches ...string) rates {
	by := map[[2]string]float64{}
	for k, v := range after {
		if !strings.HasPrefix(k, "apiserver_request_total{") || !containsAll(k, matches) {
			continue
		}
		d := v - before[k]
		if d <= 0 {
			continue
		}
		l := labels(k)
		res := l["resource"]
		if l["subresource"] != "" {
			res += "/" + l["subresource"]
		}
		if res == "" {
			res = "(non-resource)"
		}
		by[[2]string{l["verb"], res}] += d
	}
	var out rates
	for k, d := range by {
		r := d / window.Seconds() / float64(nodes)
		out.total += r
		out.rows = append(out.rows, rateRow{verb: k[0], resource: k[1], perNode: r})
	}
	sort.Slice(out.rows, func(i, j int) bool { return out.rows[i].perNode > out.rows[j].perNode })
	return out
}

// deltaSum sums after - before over the series whose name and labels
// start with prefix and contain every one of the label matches.
func deltaSum(before, after map[string]float64, prefix string, matches ...string) float64 {
	var sum float64
	for k, v := range after {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		if containsAll(k, matches) {
			sum += v - before[k]
		}
	}
	return sum
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

// labels parses the {a="x",b="y"} of a metric line.
func labels(metric string) map[string]string {
	out := map[string]string{}
	open := strings.IndexByte(metric, '{')
	if open < 0 {
		return out
	}
	for _, kv := range strings.Split(strings.TrimSuffix(metric[open+1:], "}"), ",") {
		k, v, ok := strings.Cut(kv, "=")
		if ok {
			out[k] = strings.Trim(v, `"`)
		}
	}
	return out
}

type apfLevel struct {
	name                 string
	dispatched, rejected float64
}

// apfLevels sums the flow control counters of m by priority level.
func apfLevels(m map[string]float64) []apfLevel {
	by := map[string]*apfLevel{}
	for k, v := range m {
		var dispatched bool
		switch {
		case strings.HasPrefix(k, "apiserver_flowcontrol_dispatched_requests_total{"):
			dispatched = true
		case strings.HasPrefix(k, "apiserver_flowcontrol_rejected_requests_total{"):
		default:
			continue
		}
		name := labels(k)["priority_level"]
		l := by[name]
		if l == nil {
			l = &apfLevel{name: name}
			by[name] = l
		}
		if dispatched {
			l.dispatched += v
		} else {
			l.rejected += v
		}
	}
	out := make([]apfLevel, 0, len(by))
	for _, l := range by {
		out = append(out, *l)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].dispatched > out[j].dispatched })
	return out
}

// sampleRSS records the RSS of every process still running.
func (b *bench) sampleRSS() {
	for _, p := range b.procs {
		if r := rss(p); r > 0 {
			p.lastRSS = r
		}
	}
}

// rss is the process's VmRSS in bytes; 0 once it exited.
func rss(p *proc) int64 {
	if p.exited() {
		return 0
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kb * 1024
			}
		}
	}
	return 0
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

func tail(path string, n int) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// leaseWatcher follows the Leases of kube-system as an exempt client: the
// gaps between successive renewTimes of each, and its holder changes.
type leaseWatcher struct {
	mu          sync.Mutex
	last        map[string]time.Time
	holder      map[string]string
	gaps        map[string][]time.Duration
	transitions map[string]int
}

func newLeaseWatcher() *leaseWatcher {
	return &leaseWatcher{last: map[string]time.Time{}, holder: map[string]string{}, gaps: map[string][]time.Duration{}, transitions: map[string]int{}}
}

func (w *leaseWatcher) run(ctx context.Context, cs *typed.Clientset) {
	for ctx.Err() == nil {
		wi, err := cs.CoordinationV1().Leases(metav1.NamespaceSystem).Watch(ctx, metav1.ListOptions{})
		if err != nil {
			_ = sleep(ctx, time.Second)
			continue
		}
		for ev := range wi.ResultChan() {
			if l, ok := ev.Object.(*coordinationv1.Lease); ok && (ev.Type == watch.Added || ev.Type == watch.Modified) {
				w.observe(l)
			}
		}
		wi.Stop()
	}
}

func (w *leaseWatcher) observe(l *coordinationv1.Lease) {
	if l.Spec.RenewTime == nil || l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "" {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	name, rt, h := l.Name, l.Spec.RenewTime.Time, *l.Spec.HolderIdentity
	if prev, ok := w.holder[name]; ok && prev != h {
		w.transitions[name]++
	}
	w.holder[name] = h
	if last, ok := w.last[name]; ok && rt.After(last) {
		w.gaps[name] = append(w.gaps[name], rt.Sub(last))
	}
	if rt.After(w.last[name]) {
		w.last[name] = rt
	}
}

// summary is the p99 of a Lease's renewal latency (each gap between
// renewals beyond the retry period, when a renewal is due; the time since
// the last renewal until now counts as one), the renewals seen, and its
// holder changes.
func (w *leaseWatcher) summary(name string, now time.Time) (time.Duration, int, int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	gaps := slices.Clone(w.gaps[name])
	if last, ok := w.last[name]; ok {
		gaps = append(gaps, now.Sub(last))
	}
	if len(gaps) == 0 {
		return 0, 0, w.transitions[name]
	}
	late := make([]time.Duration, len(gaps))
	for i, g := range gaps {
		late[i] = max(0, g-retryPeriod)
	}
	sort.Slice(late, func(i, j int) bool { return late[i] < late[j] })
	return late[min(len(late)-1, len(late)*99/100)], len(w.gaps[name]), w.transitions[name]
}
