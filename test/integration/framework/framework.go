// Package framework starts what integration tests share: one embedded etcd
// per test package (from TestMain) and in-process API servers over it.
//
// A test package starts its etcd once and each test its own API server:
//
//	var testEtcd *framework.Etcd
//
//	func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }
//
//	func TestSomething(t *testing.T) {
//		s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
//		cs := s.Clientset(t)                 // kubecore.io/client typed clients
//		ns := s.CreateNamespace(t, "thing")  // a namespace of its own
//		...                                  // s.URL, s.Kubeconfig, s.HTTPClient(t)
//	}
//
// The API server is `kubecore apiserver` itself (cmd/kubecore/app/apiserver)
// run in-process, with TLS and the admin client certificate, on a free port,
// its data dir in t.TempDir(); it stops when the test ends.
package framework

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/rest"
	"kubecore.io/client/tools/clientcmd"
	"kubecore.io/client/typed"

	apiservercmd "kubecore.io/kubecore/cmd/kubecore/app/apiserver"
	"kubecore.io/kubecore/pkg/etcd"
)

// Etcd is an embedded etcd member for the tests of one package, with fsync
// off, its data in a temp dir and its client port on a free loopback port.
type Etcd struct {
	member *etcd.Server
	dir    string
}

// StartEtcd starts a member; Stop removes it and its data.
func StartEtcd() (*Etcd, error) {
	dir, err := os.MkdirTemp("", "kubecore-integration-etcd-")
	if err != nil {
		return nil, fmt.Errorf("etcd temp dir: %w", err)
	}
	m, err := etcd.Start(context.Background(), etcd.Config{DataDir: dir, UnsafeNoFsync: true})
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("start etcd: %w", err)
	}
	return &Etcd{member: m, dir: dir}, nil
}

// URLs are the member's client URLs (for --etcd-servers).
func (e *Etcd) URLs() []string { return e.member.ClientURLs() }

// Client is an in-process client of the member, for tests that look at
// or change etcd behind the API server (compaction, revisions).
func (e *Etcd) Client() *clientv3.Client { return e.member.Client() }

// Stop closes the member and removes its data.
func (e *Etcd) Stop() {
	e.member.Close()
	_ = os.RemoveAll(e.dir)
}

// RunWithEtcd is the body of a TestMain: it starts an etcd, stores it in
// *out, runs the tests and stops the etcd. It returns the exit code.
func RunWithEtcd(m *testing.M, out **Etcd) int {
	e, err := StartEtcd()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer e.Stop()
	*out = e
	return m.Run()
}

// APIServerOptions say what a test API server stores in and where.
type APIServerOptions struct {
	// Etcd is the package's etcd. When it and EtcdServers are empty the
	// server runs its own embedded etcd in DataDir/etcd, with fsync on, as
	// `kubecore apiserver` does without --etcd-servers.
	Etcd *Etcd
	// EtcdServers are external etcd client URLs (used when Etcd is nil).
	EtcdServers []string
	// DataDir holds pki/ and admin.kubeconfig (and etcd/ when embedded);
	// a t.TempDir() when empty. Reuse one to restart a server on it.
	DataDir string
	// StartTimeout bounds the wait for readiness (30 s when zero).
	StartTimeout time.Duration
	// TokenAuthFile is the server's --token-auth-file.
	TokenAuthFile string
	// CompactionInterval and EventTTL, when set, are the server's
	// --etcd-compaction-interval and --event-ttl (negative
	// CompactionInterval: 0, compaction off).
	CompactionInterval, EventTTL time.Duration
	// EnableAdmissionPlugins turns on admission plugins the framework
	// leaves out by default (DefaultDisabledAdmissionPlugins), for the
	// tests of those plugins.
	EnableAdmissionPlugins []string
	// AuditLogPath, when set, is the server's --audit-log-path.
	AuditLogPath string
	// MaxRequestsInFlight and MaxMutatingRequestsInFlight, when set, are
	// the server's --max-requests-inflight and
	// --max-mutating-requests-inflight (its priority levels' seats).
	MaxRequestsInFlight, MaxMutatingRequestsInFlight int
	// ServiceClusterIPRange, when set, is the server's
	// --service-cluster-ip-range.
	ServiceClusterIPRange string
	// StorageMediaType, when set, is the server's --storage-media-type.
	StorageMediaType string
}

// DefaultDisabledAdmissionPlugins are left out of the test servers'
// admission chain, as Kubernetes' integration servers leave out
// TaintNodesByCondition: tests make nodes without a node lifecycle
// controller to clear the not-ready taint, and delete claims and volumes
// without the protection controllers to remove their finalizers.
func DefaultDisabledAdmissionPlugins() []string {
	return []string{"StorageObjectInUseProtection", "TaintNodesByCondition"}
}

// APIServer is a running in-process API server.
type APIServer struct {
	// URL is the server's https URL.
	URL string
	// DataDir is the server's data dir; Kubeconfig the admin kubeconfig in it.
	DataDir    string
	Kubeconfig string
	// Config is the admin's client config (no client-side rate limit).
	Config *rest.Config

	cancel   context.CancelFunc
	done     chan struct{}
	runErr   error
	stopOnce sync.Once
}

// StartAPIServer runs `kubecore apiserver` in-process on a free loopback
// port and waits until it is ready. The server stops when tb ends.
func StartAPIServer(tb testing.TB, opts APIServerOptions) *APIServer {
	tb.Helper()
	s, err := startAPIServer(opts, tb.TempDir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := s.Stop(); err != nil {
			tb.Errorf("stop apiserver: %v", err)
		}
	})
	return s
}

func startAPIServer(opts APIServerOptions, tempDir func() string) (*APIServer, error) {
	o := apiservercmd.NewOptions()
	o.DataDir = opts.DataDir
	if o.DataDir == "" {
		o.DataDir = tempDir()
	}
	o.SecurePort = 0
	o.BindAddress = "127.0.0.1"
	o.TokenAuthFile = opts.TokenAuthFile
	o.Limits.AuditLogPath = opts.AuditLogPath
	if opts.MaxRequestsInFlight > 0 {
		o.Limits.MaxRequestsInFlight = opts.MaxRequestsInFlight
	}
	if opts.MaxMutatingRequestsInFlight > 0 {
		o.Limits.MaxMutatingRequestsInFlight = opts.MaxMutatingRequestsInFlight
	}
	if opts.ServiceClusterIPRange != "" {
		o.ServiceClusterIPRange = opts.ServiceClusterIPRange
	}
	o.DisableAdmissionPlugins = slices.DeleteFunc(DefaultDisabledAdmissionPlugins(), func(p string) bool {
		return slices.Contains(opts.EnableAdmissionPlugins, p)
	})
	if opts.CompactionInterval != 0 {
		o.Storage.CompactionInterval = max(opts.CompactionInterval, 0)
	}
	if opts.EventTTL != 0 {
		o.Storage.EventTTL = opts.EventTTL
	}
	if opts.StorageMediaType != "" {
		o.Storage.MediaType = opts.StorageMediaType
	}
	switch {
	case opts.Etcd != nil:
		o.EtcdServers = opts.Etcd.URLs()
	default:
		o.EtcdServers = opts.EtcdServers
	}
	cfg, err := o.Complete()
	if err != nil {
		return nil, fmt.Errorf("apiserver options: %w", err)
	}
	timeout := opts.StartTimeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &APIServer{DataDir: o.DataDir, Kubeconfig: filepath.Join(o.DataDir, "admin.kubeconfig"), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.runErr = cfg.Run(ctx)
	}()
	select {
	case <-cfg.Ready():
		s.URL = "https://" + cfg.Addr().String()
	case <-s.done:
		cancel()
		return nil, fmt.Errorf("apiserver exited before it was ready: %v", s.runErr)
	case <-time.After(timeout):
		_ = s.Stop()
		return nil, fmt.Errorf("apiserver not ready after %s", timeout)
	}
	c, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	if err != nil {
		_ = s.Stop()
		return nil, fmt.Errorf("load %s: %w", s.Kubeconfig, err)
	}
	c.QPS, c.Burst = -1, 0
	s.Config = c
	return s, nil
}

// Stop shuts the server down as SIGTERM does (the context of Run ends)
// and waits for Run to return, at most a minute; it returns Run's error.
// It is idempotent.
func (s *APIServer) Stop() error {
	s.stopOnce.Do(func() {
		s.cancel()
		select {
		case <-s.done:
		case <-time.After(time.Minute):
			// Rare (seen once under load): say where it hangs.
			buf := make([]byte, 1<<20)
			n := runtime.Stack(buf, true)
			s.runErr = fmt.Errorf("apiserver did not stop within a minute; the goroutines of the test process:\n%s", buf[:n])
		}
	})
	return s.runErr
}

// Cancel starts the shutdown without waiting for it; Done is closed when
// Run has returned.
func (s *APIServer) Cancel() { s.cancel() }

// Done is closed when the server's Run has returned.
func (s *APIServer) Done() <-chan struct{} { return s.done }

// HTTPClient returns an http.Client authenticated as the admin, for raw
// requests against s.URL.
func (s *APIServer) HTTPClient(tb testing.TB) *http.Client {
	tb.Helper()
	c, err := rest.HTTPClientFor(s.Config)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// Clientset returns the admin's typed clients.
func (s *APIServer) Clientset(tb testing.TB) *typed.Clientset {
	tb.Helper()
	cs, err := typed.NewForConfig(s.Config)
	if err != nil {
		tb.Fatal(err)
	}
	return cs
}

// CreateNamespace creates a namespace named prefix plus a random suffix,
// so that tests sharing an etcd do not see each other's objects.
func (s *APIServer) CreateNamespace(tb testing.TB, prefix string) string {
	tb.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: prefix + "-"}}
	got, err := s.Clientset(tb).CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{})
	if err != nil {
		tb.Fatalf("create namespace %s-*: %v", prefix, err)
	}
	return got.Name
}
