// Package cri proves the kubelet's CRI runtime on a real containerd: the
// tests start containerd under a temp dir with local images built here,
// and run pods through a kubelet against an in-process API server. They
// fail, never skip, when containerd is missing (hack/install-containerd.sh
// installs it; it needs root).
package cri

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/kubelet"
	"kubecore.io/kubecore/pkg/kubelet/runtime/cri"
	"kubecore.io/kubecore/test/integration/cri/containerd"
	"kubecore.io/kubecore/test/integration/framework"
)

// The package's etcd and containerd, or why containerd did not start.
var (
	testEtcd       *framework.Etcd
	testContainerd *containerd.Containerd
	containerdErr  error
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "kubecore-cri-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }()
	root, err := filepath.Abs("../../..")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	testContainerd, containerdErr = containerd.Start(dir, root)
	if containerdErr == nil {
		defer testContainerd.Stop()
	}
	return framework.RunWithEtcd(m, &testEtcd)
}

// needContainerd fails the test when containerd could not be started.
func needContainerd(t testing.TB) *containerd.Containerd {
	t.Helper()
	if containerdErr != nil {
		t.Fatalf("containerd: %v", containerdErr)
	}
	return testContainerd
}

// newRuntime connects a CRI runtime to the test containerd; the test's
// sandboxes are removed when it ends.
func newRuntime(t testing.TB) *cri.Runtime {
	t.Helper()
	c := needContainerd(t)
	rt, err := cri.New(t.Context(), cri.Options{Endpoint: c.Endpoint(), HostIP: "127.0.0.1", CgroupRoot: c.CgroupRoot})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rt.Close() })
	return rt
}

// removeAllSandboxes stops and removes every sandbox of containerd.
func removeAllSandboxes(t testing.TB) {
	c := needContainerd(t)
	rt, err := cri.New(context.Background(), cri.Options{Endpoint: c.Endpoint(), HostIP: "127.0.0.1", CgroupRoot: c.CgroupRoot})
	if err != nil {
		t.Errorf("clean up sandboxes: %v", err)
		return
	}
	defer func() { _ = rt.Close() }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	list, err := rt.ListPodSandbox(ctx)
	if err != nil {
		t.Errorf("clean up sandboxes: %v", err)
		return
	}
	for _, s := range list {
		_ = rt.StopPodSandbox(ctx, s.ID)
		if err := rt.RemovePodSandbox(ctx, s.ID); err != nil {
			t.Errorf("remove sandbox %s: %v", s.ID, err)
		}
	}
}

var seq atomic.Int64

// env is one test's API server, namespace and node.
type env struct {
	t       testing.TB
	ctx     context.Context
	cs      *typed.Clientset
	ns      string
	node    string
	rootDir string
	// configure, when set, changes the config of the kubelets started.
	configure func(*kubelet.Config)
}

func newEnv(t testing.TB) *env {
	t.Helper()
	needContainerd(t)
	t.Cleanup(func() { removeAllSandboxes(t) })
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	return &env{t: t, ctx: t.Context(), cs: s.Clientset(t), ns: s.CreateNamespace(t, "cri"),
		node: fmt.Sprintf("cri-node-%d", seq.Add(1)), rootDir: t.TempDir()}
}

// runningKubelet is a kubelet on the CRI runtime.
type runningKubelet struct {
	cancel context.CancelFunc
	done   chan error
	once   sync.Once
}

func (k *runningKubelet) stop(t testing.TB) {
	t.Helper()
	k.once.Do(func() {
		k.cancel()
		select {
		case err := <-k.done:
			if err != nil {
				t.Errorf("kubelet: %v", err)
			}
		case <-time.After(time.Minute):
			t.Errorf("kubelet did not stop within a minute")
		}
	})
}

// startKubelet runs a kubelet with a new CRI runtime on the env's node;
// its containers keep running when it stops.
func (e *env) startKubelet() *runningKubelet {
	t := e.t
	t.Helper()
	rt := newRuntime(t)
	cfg := kubelet.Config{
		NodeName: e.node, Client: e.cs, Runtime: rt, RootDir: e.rootDir, NodeIP: "127.0.0.1",
		NodeStatusUpdateFrequency: 500 * time.Millisecond, NodeStatusReportFrequency: 2 * time.Second,
		LeaseRenewInterval: 500 * time.Millisecond, SyncFrequency: 2 * time.Second, RelistPeriod: 200 * time.Millisecond,
	}
	if e.configure != nil {
		e.configure(&cfg)
	}
	kl, err := kubelet.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	k := &runningKubelet{cancel: cancel, done: make(chan error, 1)}
	go func() { k.done <- kl.Run(ctx) }()
	t.Cleanup(func() { k.stop(t) })
	return k
}

// pod creates a pod on the env's node running script in busybox's sh.
func (e *env) pod(name, script string, opts ...func(*corev1.Pod)) *corev1.Pod {
	e.t.Helper()
	grace := int64(2)
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.ns},
		Spec: corev1.PodSpec{
			NodeName: e.node, TerminationGracePeriodSeconds: &grace,
			Containers: []corev1.Container{{Name: "main", Image: containerd.BusyboxImage, Command: []string{"sh", "-c", script}}},
		},
	}
	for _, o := range opts {
		o(p)
	}
	out, err := e.cs.CoreV1().Pods(e.ns).Create(e.ctx, p, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatalf("create pod %s: %v", name, err)
	}
	return out
}

func (e *env) waitFor(name string, timeout time.Duration, what string, cond func(*corev1.Pod) bool) *corev1.Pod {
	e.t.Helper()
	return framework.WaitForPod(e.ctx, e.t, e.cs, e.ns, name, timeout, what, cond)
}

func (e *env) waitGone(name string, timeout time.Duration) {
	e.t.Helper()
	framework.WaitForPodGone(e.ctx, e.t, e.cs, e.ns, name, timeout)
}

func isReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}
