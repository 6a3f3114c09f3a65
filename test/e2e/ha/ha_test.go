package ha

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/tools/clientcmd"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/test/e2e/framework"
)

// Ports inside each host's own network namespace.
const (
	etcdClientPort = "22379"
	etcdPeerPort   = "22380"
	apiserverPort  = "16443"
	kubeletPort    = "20250"
)

// Leader election timing of the schedulers and controller-managers:
// Kubernetes' defaults (15 s lease, 10 s renew deadline, 2 s retry).
var leaderElection = []string{"--leader-elect=true",
	"--leader-elect-lease-duration=15s", "--leader-elect-renew-deadline=10s", "--leader-elect-retry-period=2s"}

// cluster is the control plane of TestHighAvailability.
type cluster struct {
	t     *testing.T
	dir   string
	hosts *hosts
	procs *processes

	etcd, apiservers, schedulers, controllerManagers, kubelets []*process
	apiserverURLs                                              []string
	admin                                                      string // kubeconfig of the test
	client                                                     *typed.Clientset
	etcdTLS                                                    *tls.Config
}

// TestHighAvailability is issue 9's acceptance on one machine: three hosts
// (network namespaces), a three-member etcd cluster with TLS, two
// apiservers sharing the CA and service-account key, two schedulers and two
// controller-managers under leader election and three kubelets (fake
// runtime), every component with its own certificate and a kubeconfig
// listing both apiservers. A Deployment of 9 spreads over the nodes; then
// the leading controller-manager and scheduler, one apiserver and the etcd
// leader are SIGKILLed while ConfigMaps are being created: the Deployment
// scaled to 12 must run within 30 s, and every acknowledged ConfigMap must
// be there. Last, SIGTERM makes the new leaders release their leases.
func TestHighAvailability(t *testing.T) {
	bin, err := framework.Binary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	h := newHosts(t, 3)
	c := &cluster{t: t, dir: dir, hosts: h, procs: newProcesses(t, bin, dir, h)}
	defer func() {
		if t.Failed() {
			c.dumpLogs()
		}
	}()

	c.startEtcd()
	c.startAPIServers()
	c.startComponents()
	c.waitNodesReady()

	ctx := context.Background()
	ns := "ha"
	if _, err := c.client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.createDeployment(ns, "web", 9)
	start := time.Now()
	if err := waitFor(60*time.Second, func() error { return c.runningSpread(ns, 9) }); err != nil {
		t.Fatalf("Deployment of 9: %v", err)
	}
	t.Logf("9 replicas running, 3 per node, %s after the create", time.Since(start).Round(time.Millisecond))

	// The stock kubectl reads the kubeconfig with two servers, and uses the first.
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Fatalf("the stock kubectl is required: %v", err)
	}
	out, err := exec.Command(kubectl, "--kubeconfig", c.admin, "get", "nodes", "-o", "name").CombinedOutput()
	if err != nil || strings.Count(string(out), "node/") != 3 {
		t.Fatalf("stock kubectl get nodes: %v\n%s", err, out)
	}

	// Write ConfigMaps before, during and after the kills.
	writer := c.startWriter(ns)
	time.Sleep(time.Second)

	scheduler := c.leader("kube-scheduler", c.schedulers)
	controllerManager := c.leader("kube-controller-manager", c.controllerManagers)
	etcdLeader := c.etcdLeader()
	apiserver := c.apiservers[0]
	victims := []*process{controllerManager, scheduler, apiserver, etcdLeader}
	killedAt := time.Now()
	for _, v := range victims {
		if err := v.signal(syscall.SIGKILL); err != nil {
			t.Fatalf("SIGKILL %s: %v", v.name, err)
		}
	}
	for _, v := range victims {
		if !v.wait(5 * time.Second) {
			t.Fatalf("%s still runs 5 s after SIGKILL", v.name)
		}
	}
	t.Logf("SIGKILLed %s, %s, %s and %s (the etcd leader) at %s", controllerManager.name, scheduler.name, apiserver.name, etcdLeader.name, killedAt.Format("15:04:05.000"))

	if err := waitFor(20*time.Second, func() error {
		_, err := c.client.AppsV1().Deployments(ns).Patch(ctx, "web", types.MergePatchType, []byte(`{"spec":{"replicas":12}}`), metav1.PatchOptions{})
		if err != nil {
			t.Logf("Scale to 12, %s after the kills: %v", time.Since(killedAt).Round(time.Millisecond), err)
		}
		return err
	}); err != nil {
		t.Fatalf("scale to 12: %v", err)
	}
	scaledAt := time.Now()
	if err := waitFor(30*time.Second-time.Since(killedAt), func() error { return c.runningSpread(ns, 12) }); err != nil {
		t.Fatalf("scale to 12 after the kills: %v", err)
	}
	t.Logf("12 replicas running, 4 per node, %s after the kills (the scale was accepted %s after them)",
		time.Since(killedAt).Round(time.Millisecond), scaledAt.Sub(killedAt).Round(time.Millisecond))

	// The bundled CLI fails over too: the kubeconfig's first server is dead.
	// The new controller-manager counts the pods into the Deployment's
	// status a moment after they run.
	if err := waitFor(30*time.Second, func() error {
		out, err := exec.Command(c.procs.bin, "kubectl", "--kubeconfig", c.admin, "get", "deployment", "web", "-n", ns, "--no-headers").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "12/12") {
			return fmt.Errorf("kubecore kubectl get deployment with %s down: %v\n%s", apiserver.name, err, out)
		}
		return nil
	}); err != nil {
		t.Error(err)
	}

	newScheduler := c.leader("kube-scheduler", c.schedulers)
	newControllerManager := c.leader("kube-controller-manager", c.controllerManagers)
	if newScheduler == scheduler || newControllerManager == controllerManager {
		t.Fatalf("leaders after the kills: %s and %s", newScheduler.name, newControllerManager.name)
	}

	acked := writer.stop()
	c.checkConfigMaps(ns, acked)
	t.Logf("ConfigMap writer: %d failed attempts retried, longest wait for an acknowledgement %s", writer.errs, writer.longest.Round(time.Millisecond))

	// SIGTERM: the leaders give their leases up at once.
	for _, lease := range []struct {
		name string
		p    *process
	}{{"kube-scheduler", newScheduler}, {"kube-controller-manager", newControllerManager}} {
		if err := lease.p.signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if !lease.p.wait(15 * time.Second) {
			t.Fatalf("%s did not exit within 15 s of SIGTERM", lease.p.name)
		}
		l, err := c.client.CoordinationV1().Leases("kube-system").Get(ctx, lease.name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if holder := deref(l.Spec.HolderIdentity); holder != "" {
			t.Errorf("lease %s held by %q after its leader %s exited on SIGTERM, want released", lease.name, holder, lease.p.name)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// kubecore runs a one-shot kubecore command in the test's namespace.
func (c *cluster) kubecore(args ...string) {
	c.t.Helper()
	if out, err := exec.Command(c.procs.bin, args...).CombinedOutput(); err != nil {
		c.t.Fatalf("kubecore %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func (c *cluster) hostDir(i int, parts ...string) string {
	return filepath.Join(append([]string{c.dir, fmt.Sprintf("host%d", i)}, parts...)...)
}

// startEtcd makes the etcd CA and the apiservers' client certificate on
// host 0, copies the CA to the other hosts as an operator would, and starts
// one member per host; each issues itself a certificate for its address.
func (c *cluster) startEtcd() {
	t := c.t
	caDir := c.hostDir(0, "etcd-pki")
	c.kubecore("etcd", "client-cert", "--pki-dir", caDir, "--name", "apiserver-etcd-client")
	var initial []string
	for i, ip := range c.hosts.ips {
		initial = append(initial, fmt.Sprintf("etcd%d=https://%s:%s", i, ip, etcdPeerPort))
	}
	for i, ip := range c.hosts.ips {
		pkiDir := c.hostDir(i, "etcd-pki")
		if i > 0 {
			if err := copyFiles(caDir, pkiDir, "ca.crt", "ca.key"); err != nil {
				t.Fatal(err)
			}
		}
		c.etcd = append(c.etcd, c.procs.start(t, i, fmt.Sprintf("etcd%d", i), "etcd",
			"--name", fmt.Sprintf("etcd%d", i), "--data-dir", c.hostDir(i, "etcd"), "--pki-dir", pkiDir,
			"--listen-client-urls", "https://"+ip+":"+etcdClientPort,
			"--listen-peer-urls", "https://"+ip+":"+etcdPeerPort,
			"--initial-cluster", strings.Join(initial, ",")))
	}
	for _, m := range c.etcd {
		if err := waitFor(60*time.Second, func() error {
			if !m.running() {
				return fmt.Errorf("%s exited", m.name)
			}
			if !m.logContains("etcd member is ready") {
				return fmt.Errorf("%s is not ready", m.name)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	pair, err := tls.LoadX509KeyPair(filepath.Join(caDir, "apiserver-etcd-client.crt"), filepath.Join(caDir, "apiserver-etcd-client.key"))
	if err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(filepath.Join(caDir, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	c.etcdTLS = &tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: x509.NewCertPool()}
	c.etcdTLS.RootCAs.AppendCertsFromPEM(ca)
}

// startAPIServers starts the first apiserver, which makes the cluster PKI,
// then copies the CA and service-account key to the second host and starts
// the second there; each issues itself a serving certificate for its
// address. The test's client is an admin kubeconfig listing both.
func (c *cluster) startAPIServers() {
	t := c.t
	var etcdServers []string
	for _, ip := range c.hosts.ips {
		etcdServers = append(etcdServers, "https://"+ip+":"+etcdClientPort)
	}
	for i := range 2 {
		ip := c.hosts.ips[i]
		dataDir := c.hostDir(i, "apiserver")
		clientDir := c.hostDir(i, "etcd-client")
		if err := copyFiles(c.hostDir(0, "etcd-pki"), clientDir, "ca.crt", "apiserver-etcd-client.crt", "apiserver-etcd-client.key"); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			if err := copyFiles(c.hostDir(0, "apiserver", "pki"), filepath.Join(dataDir, "pki"), "ca.crt", "ca.key", "sa.key"); err != nil {
				t.Fatal(err)
			}
		}
		p := c.procs.start(t, i, fmt.Sprintf("apiserver%d", i), "apiserver", "-v", "2",
			"--data-dir", dataDir, "--bind-address", ip, "--secure-port", apiserverPort,
			"--etcd-servers", strings.Join(etcdServers, ","),
			"--etcd-cafile", filepath.Join(clientDir, "ca.crt"),
			"--etcd-certfile", filepath.Join(clientDir, "apiserver-etcd-client.crt"),
			"--etcd-keyfile", filepath.Join(clientDir, "apiserver-etcd-client.key"))
		c.apiservers = append(c.apiservers, p)
		c.apiserverURLs = append(c.apiserverURLs, "https://"+ip+":"+apiserverPort)
		if err := waitFor(60*time.Second, func() error {
			if !p.running() {
				return fmt.Errorf("%s exited", p.name)
			}
			if !p.logContains("kubecore apiserver is ready") {
				return fmt.Errorf("%s is not ready", p.name)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	c.admin = c.kubeconfig("admin", "kubecore-ha-admin", "system:masters", 0)
	rc, err := clientcmd.BuildConfigFromFlags("", c.admin)
	if err != nil {
		t.Fatal(err)
	}
	if c.client, err = typed.NewForConfig(rc); err != nil {
		t.Fatal(err)
	}
}

// kubeconfig issues a client certificate for user (in group, if any) from
// the cluster CA and writes a kubeconfig listing both apiservers, the one of
// host first (host 2, which runs none, starts with host 0's).
func (c *cluster) kubeconfig(name, user, group string, host int) string {
	first := host % len(c.apiserverURLs)
	servers := append([]string{c.apiserverURLs[first]}, c.apiserverURLs[1-first])
	path := filepath.Join(c.dir, name+".kubeconfig")
	args := []string{"certs", "kubeconfig", "--data-dir", c.hostDir(0, "apiserver"),
		"--user", user, "--server", strings.Join(servers, ","), "--out", path}
	if group != "" {
		args = append(args, "--groups", group)
	}
	c.kubecore(args...)
	return path
}

// startComponents starts two schedulers and two controller-managers (hosts
// 0 and 1) and a kubelet on every host.
func (c *cluster) startComponents() {
	t := c.t
	for i := range 2 {
		kc := c.kubeconfig(fmt.Sprintf("scheduler%d", i), "system:kube-scheduler", "", i)
		c.schedulers = append(c.schedulers, c.procs.start(t, i, fmt.Sprintf("scheduler%d", i),
			append([]string{"scheduler", "-v", "2", "--kubeconfig", kc}, leaderElection...)...))
		kc = c.kubeconfig(fmt.Sprintf("controller-manager%d", i), "system:kube-controller-manager", "", i)
		c.controllerManagers = append(c.controllerManagers, c.procs.start(t, i, fmt.Sprintf("controller-manager%d", i),
			append([]string{"controller-manager", "-v", "2", "--kubeconfig", kc}, leaderElection...)...))
	}
	for i, ip := range c.hosts.ips {
		node := fmt.Sprintf("node%d", i)
		kc := c.kubeconfig("kubelet-"+node, "system:node:"+node, "system:nodes", i)
		c.kubelets = append(c.kubelets, c.procs.start(t, i, "kubelet-"+node, "kubelet", "-v", "2",
			"--kubeconfig", kc, "--node-name", node, "--node-ip", ip, "--address", ip, "--port", kubeletPort,
			"--read-only-port", "0", "--runtime", "fake", "--root-dir", c.hostDir(i, "kubelet")))
	}
}

func (c *cluster) waitNodesReady() {
	err := waitFor(60*time.Second, func() error {
		nodes, err := c.client.CoreV1().Nodes().List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return err
		}
		ready := 0
		for _, n := range nodes.Items {
			for _, cond := range n.Status.Conditions {
				if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
					ready++
				}
			}
		}
		if ready != len(c.hosts.ips) {
			return fmt.Errorf("%d of %d nodes ready", ready, len(c.hosts.ips))
		}
		return nil
	})
	if err != nil {
		c.t.Fatal(err)
	}
}

// createDeployment creates a Deployment whose pods spread evenly over the
// nodes (a hard topology spread constraint by host name).
func (c *cluster) createDeployment(ns, name string, replicas int32) {
	labels := map[string]string{"app": name}
	_, err := c.client.AppsV1().Deployments(ns).Create(context.Background(), &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "web", Image: "busybox", Command: []string{"sh", "-c", "sleep 3600"}}},
					TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
						MaxSkew: 1, TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.DoNotSchedule,
						LabelSelector: &metav1.LabelSelector{MatchLabels: labels},
					}},
				},
			},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
}

// runningSpread checks that n pods of the namespace run, n/3 per node.
func (c *cluster) runningSpread(ns string, n int) error {
	pods, err := c.client.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		return err
	}
	perNode := map[string]int{}
	running := 0
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning {
			running++
			perNode[p.Spec.NodeName]++
		}
	}
	if running != n {
		return fmt.Errorf("%d of %d pods running (%d pods, per node %v)", running, n, len(pods.Items), perNode)
	}
	for i := range c.hosts.ips {
		if got := perNode[fmt.Sprintf("node%d", i)]; got != n/len(c.hosts.ips) {
			return fmt.Errorf("pods per node %v, want %d each", perNode, n/len(c.hosts.ips))
		}
	}
	return nil
}

// leader returns the process holding the lease kube-system/name, found by
// the identity it logged.
func (c *cluster) leader(lease string, candidates []*process) *process {
	var found *process
	err := waitFor(30*time.Second, func() error {
		l, err := c.client.CoordinationV1().Leases("kube-system").Get(context.Background(), lease, metav1.GetOptions{})
		if err != nil {
			return err
		}
		holder := deref(l.Spec.HolderIdentity)
		for _, p := range candidates {
			if holder != "" && p.running() && p.logContains(holder) {
				found = p
				return nil
			}
		}
		return fmt.Errorf("lease %s held by %q, none of the running candidates", lease, holder)
	})
	if err != nil {
		c.t.Fatal(err)
	}
	return found
}

// etcdLeader returns the etcd member that leads the raft group.
func (c *cluster) etcdLeader() *process {
	var endpoints []string
	for _, ip := range c.hosts.ips {
		endpoints = append(endpoints, "https://"+ip+":"+etcdClientPort)
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second, TLS: c.etcdTLS})
	if err != nil {
		c.t.Fatal(err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i, ep := range endpoints {
		st, err := cli.Status(ctx, ep)
		if err != nil {
			c.t.Fatalf("etcd status of %s: %v", ep, err)
		}
		if st.Header.MemberId == st.Leader {
			return c.etcd[i]
		}
	}
	c.t.Fatal("no etcd member leads")
	return nil
}

// writer creates ConfigMaps one after another, retrying each until the
// server acknowledges it, and records the acknowledged names.
type writer struct {
	stopCh chan struct{}
	done   chan struct{}
	mu     sync.Mutex
	acked  []string
	errs   int
	// longest is the longest time between two acknowledgements.
	longest time.Duration
}

func (c *cluster) startWriter(ns string) *writer {
	w := &writer{stopCh: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		last := time.Now()
		for i := 0; ; i++ {
			name := fmt.Sprintf("cm-%04d", i)
			for {
				select {
				case <-w.stopCh:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				_, err := c.client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"i": fmt.Sprint(i)},
				}, metav1.CreateOptions{})
				cancel()
				// AlreadyExists: an earlier attempt whose answer was lost
				// was applied; the server acknowledges it now.
				if err == nil || apierrors.IsAlreadyExists(err) {
					w.mu.Lock()
					w.acked = append(w.acked, name)
					w.longest = max(w.longest, time.Since(last))
					w.mu.Unlock()
					last = time.Now()
					break
				}
				w.mu.Lock()
				w.errs++
				w.mu.Unlock()
				time.Sleep(100 * time.Millisecond)
			}
		}
	}()
	return w
}

// stop ends the writer and returns the acknowledged names.
func (w *writer) stop() []string {
	close(w.stopCh)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.acked
}

func (c *cluster) checkConfigMaps(ns string, acked []string) {
	list, err := c.client.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		c.t.Fatal(err)
	}
	have := map[string]bool{}
	for _, cm := range list.Items {
		have[cm.Name] = true
	}
	var lost []string
	for _, name := range acked {
		if !have[name] {
			lost = append(lost, name)
		}
	}
	if len(lost) > 0 {
		c.t.Fatalf("%d of %d acknowledged ConfigMaps lost: %v", len(lost), len(acked), lost)
	}
	c.t.Logf("All %d acknowledged ConfigMaps exist", len(acked))
}

func (c *cluster) dumpLogs() {
	for _, group := range [][]*process{c.etcd, c.apiservers, c.schedulers, c.controllerManagers, c.kubelets} {
		for _, p := range group {
			c.t.Log(p.tail())
		}
	}
}
