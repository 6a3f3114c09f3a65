package leaderelection

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	coordinationv1 "kubecore.io/api/coordination/v1"
	corev1 "kubecore.io/api/core/v1"
	rbacv1 "kubecore.io/api/rbac/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/rest"
	"kubecore.io/client/tools/leaderelection"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/controller/nodelifecycle"
	"kubecore.io/kubecore/pkg/controllermanager"
	"kubecore.io/kubecore/pkg/pki"
	"kubecore.io/kubecore/test/integration/fakenode"
	"kubecore.io/kubecore/test/integration/framework"
)

// The election timing of the controller-manager under test: Kubernetes'
// defaults (15 s / 10 s / 2 s).
const (
	leaseDuration = 15 * time.Second
	renewDeadline = 10 * time.Second
	retryPeriod   = 2 * time.Second

	// floodFor is how long the API server is kept overloaded: several
	// renew deadlines, so that a renewal stuck behind the flood would
	// lose the Lease.
	floodFor = 45 * time.Second
	// nodeGrace is the node lifecycle controller's grace period: a node
	// whose Lease is not renewed within it is marked NotReady.
	nodeGrace = 10 * time.Second
	// floodWorkers write at once: far more than the server's 4 seats and
	// the 6 queues of 50 that one flow may wait in (global-default's hand
	// size and queue length), so that part of the flood is shed.
	floodWorkers = 500
)

// TestLeaderKeepsLeaseUnderFlood runs the controller-manager (leader
// elected, with the node lifecycle controller) against an API server that
// one user floods with writes it cannot all serve, and checks that for the
// whole flood the leader's Lease is renewed within the renew deadline every
// time (observed by an exempt watcher and by the component, which would
// stop with ErrLeaderElectionLost), and that the nodes, renewing their
// Leases as kubelets, stay Ready.
func TestLeaderKeepsLeaseUnderFlood(t *testing.T) {
	tokens := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(tokens, []byte("fl00d,flooder,uid-flooder,team\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := framework.StartAPIServer(t, framework.APIServerOptions{
		Etcd: testEtcd, TokenAuthFile: tokens, MaxRequestsInFlight: 2, MaxMutatingRequestsInFlight: 2,
	})
	admin := s.Clientset(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	if _, err := admin.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "flood-team-admin"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "team"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ns := s.CreateNamespace(t, "flood")

	// Two nodes, each renewing its Lease as its own kubelet would (its
	// own identity, so the node-high level), every second.
	nodes := []string{ns + "-a", ns + "-b"}
	var agents sync.WaitGroup
	agentCtx, stopAgents := context.WithCancel(ctx)
	defer func() { stopAgents(); agents.Wait() }()
	for _, n := range nodes {
		kubelet := withCert(t, s, "kubelet-"+n, "system:node:"+n, "system:nodes")
		agent, err := fakenode.Start(agentCtx, kubelet, fakenode.Options{Nodes: []string{n}, NodesOnly: true, LeaseRenewInterval: time.Second})
		if err != nil {
			t.Fatalf("node %s: %v", n, err)
		}
		agents.Go(func() { <-agentCtx.Done(); _ = agent.Stop() })
	}
	t.Cleanup(func() {
		for _, n := range nodes {
			_ = admin.CoreV1().Nodes().Delete(context.Background(), n, metav1.DeleteOptions{})
			_ = admin.CoordinationV1().Leases(corev1.NamespaceNodeLease).Delete(context.Background(), n, metav1.DeleteOptions{})
		}
	})

	// The controller-manager, as `kubecore controller-manager` runs it.
	kcm := withCertConfig(t, s, "kcm-flood", "system:kube-controller-manager")
	kcm.QPS, kcm.Burst = 20, 30
	identity := "kcm-under-flood"
	started := make(chan struct{})
	var startOnce sync.Once
	kcmDone := make(chan error, 1)
	kcmCtx, stopKCM := context.WithCancel(ctx)
	go func() {
		kcmDone <- controllermanager.Config{
			RESTConfig:  kcm,
			Controllers: []string{nodelifecycle.Name},
			LeaderElection: controllermanager.LeaderElection{
				Enabled: true, Identity: identity,
				LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod,
			},
			NodeMonitorGracePeriod: nodeGrace,
			NodeEvictionRate:       0.1,
			Started:                func([]string) { startOnce.Do(func() { close(started) }) },
		}.Run(kcmCtx)
	}()
	defer func() {
		stopKCM()
		if err := <-kcmDone; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("controller-manager at the end: %v", err)
		}
	}()
	select {
	case <-started:
	case err := <-kcmDone:
		t.Fatalf("controller-manager stopped before leading: %v", err)
	case <-time.After(time.Minute):
		t.Fatal("controller-manager not leading after a minute")
	}
	waitNodesReady(t, admin, nodes)

	// The exempt watcher of the Lease and the nodes.
	leases := admin.CoordinationV1().Leases(controllermanager.LeaseNamespace)
	lw, err := leases.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + controllermanager.LeaseName})
	if err != nil {
		t.Fatal(err)
	}
	defer lw.Stop()
	nw, err := admin.CoreV1().Nodes().Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer nw.Stop()

	// The flood: one user creating ConfigMaps from floodWorkers goroutines
	// on a client without a rate limit.
	flooder := rest.CopyConfig(s.Config)
	flooder.TLSClientConfig.CertData, flooder.TLSClientConfig.KeyData = nil, nil
	flooder.TLSClientConfig.CertFile, flooder.TLSClientConfig.KeyFile = "", ""
	flooder.BearerToken = "fl00d"
	hc, err := rest.HTTPClientFor(flooder)
	if err != nil {
		t.Fatal(err)
	}
	// One request first, so that the workers share its HTTP/2 connection
	// instead of each dialling its own: the flood is of requests, not of
	// TLS handshakes (which no priority level can put behind a renewal).
	if code := post(ctx, hc, s.URL+"/api/v1/namespaces/"+ns+"/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"flood-first"}}`); code != http.StatusCreated {
		t.Fatalf("the flooder's first request: %d", code)
	}
	floodCtx, stopFlood := context.WithTimeout(ctx, floodFor)
	defer stopFlood()
	var (
		floodWG                    sync.WaitGroup
		created, shed, floodErrors atomic.Int64
	)
	for g := range floodWorkers {
		floodWG.Go(func() {
			for i := 0; floodCtx.Err() == nil; i++ {
				body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"flood-%d-%d"},"data":{"k":"%s"}}`, g, i, strings.Repeat("v", 512))
				switch code := post(floodCtx, hc, s.URL+"/api/v1/namespaces/"+ns+"/configmaps", body); code {
				case http.StatusCreated:
					created.Add(1)
				case http.StatusTooManyRequests:
					shed.Add(1)
				case 0:
				default:
					floodErrors.Add(1)
				}
			}
		})
	}

	// Observe until the flood ends: every renewal of the leader comes within
	// the renew deadline of the last one, the holder never changes, the
	// controller-manager keeps running, no node turns NotReady.
	var (
		renewals  int
		lastRenew time.Time
		worstGap  time.Duration
		problems  []string
	)
	check := time.NewTicker(time.Second)
	defer check.Stop()
observe:
	for {
		select {
		case <-floodCtx.Done():
			break observe
		case err := <-kcmDone:
			kcmDone <- err
			problems = append(problems, fmt.Sprintf("controller-manager stopped during the flood (lost its Lease: %t): %v", errors.Is(err, leaderelection.ErrLeaderElectionLost), err))
			break observe
		case ev, ok := <-lw.ResultChan():
			if !ok {
				problems = append(problems, "Lease watch closed")
				break observe
			}
			l, isLease := ev.Object.(*coordinationv1.Lease)
			if !isLease || ev.Type != watch.Modified {
				continue
			}
			if h := l.Spec.HolderIdentity; h == nil || *h != identity {
				problems = append(problems, fmt.Sprintf("Lease holder became %v", h))
				continue
			}
			if l.Spec.RenewTime == nil {
				continue
			}
			rt := l.Spec.RenewTime.Time
			if !lastRenew.IsZero() && rt.After(lastRenew) {
				gap := rt.Sub(lastRenew)
				worstGap = max(worstGap, gap)
				if gap > renewDeadline {
					problems = append(problems, fmt.Sprintf("renewal %d came %s after the previous one (renew deadline %s)", renewals, gap, renewDeadline))
				}
			}
			if rt.After(lastRenew) {
				lastRenew = rt
				renewals++
			}
		case ev, ok := <-nw.ResultChan():
			if !ok {
				problems = append(problems, "node watch closed")
				break observe
			}
			if n, isNode := ev.Object.(*corev1.Node); isNode && ev.Type == watch.Modified && slices.Contains(nodes, n.Name) && !nodeReady(n) {
				problems = append(problems, fmt.Sprintf("node %s turned NotReady during the flood", n.Name))
			}
		case <-check.C:
			// A renewal that never comes shows as a silent watch.
			if !lastRenew.IsZero() && time.Since(lastRenew) > renewDeadline+retryPeriod {
				problems = append(problems, fmt.Sprintf("no renewal for %s", time.Since(lastRenew).Round(time.Second)))
				lastRenew = time.Now()
			}
		}
	}
	stopFlood()
	floodWG.Wait()
	t.Logf("flood: %d created, %d shed with 429, %d other errors; %d renewals seen, worst gap %s",
		created.Load(), shed.Load(), floodErrors.Load(), renewals, worstGap)
	for _, p := range problems {
		t.Error(p)
	}
	// The flood must really have overloaded the server, or the test proves
	// nothing: part of it shed, and the renewals seen.
	if shed.Load() == 0 {
		t.Errorf("the flood was never shed (%d created): the server was not overloaded", created.Load())
	}
	if want := int(floodFor/retryPeriod) / 2; renewals < want {
		t.Errorf("only %d renewals seen during %s of flood, want at least %d", renewals, floodFor, want)
	}
	for _, n := range nodes {
		node, err := admin.CoreV1().Nodes().Get(ctx, n, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !nodeReady(node) {
			t.Errorf("node %s NotReady after the flood", n)
		}
	}
}

func post(ctx context.Context, hc *http.Client, url, body string) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader([]byte(body)))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return 0
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func waitNodesReady(t *testing.T, cs *typed.Clientset, nodes []string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		ready := 0
		for _, n := range nodes {
			if node, err := cs.CoreV1().Nodes().Get(context.Background(), n, metav1.GetOptions{}); err == nil && nodeReady(node) {
				ready++
			}
		}
		if ready == len(nodes) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d nodes Ready after a minute", ready, len(nodes))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// withCertConfig is the client config of a certificate for user cn in groups.
func withCertConfig(t *testing.T, s *framework.APIServer, name, cn string, groups ...string) *rest.Config {
	t.Helper()
	hosts, err := pki.DefaultHosts("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := pki.EnsureServing(filepath.Join(s.DataDir, "pki"), pki.Options{Hosts: hosts})
	if err != nil {
		t.Fatal(err)
	}
	kp, err := b.EnsureClientCert(name, cn, groups)
	if err != nil {
		t.Fatal(err)
	}
	key, err := kp.KeyPEM()
	if err != nil {
		t.Fatal(err)
	}
	rc := rest.CopyConfig(s.Config)
	rc.TLSClientConfig.CertData, rc.TLSClientConfig.KeyData = kp.CertPEM(), key
	return rc
}

func withCert(t *testing.T, s *framework.APIServer, name, cn string, groups ...string) *typed.Clientset {
	t.Helper()
	cs, err := typed.NewForConfig(withCertConfig(t, s, name, cn, groups...))
	if err != nil {
		t.Fatal(err)
	}
	return cs
}
