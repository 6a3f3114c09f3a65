// Package kubelet holds the kubelet's integration tests: an in-process API
// server over the package's embedded etcd, and a kubelet with the process
// or fake runtime running the pods bound to its node.
package kubelet

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
	kruntime "kubecore.io/kubecore/pkg/kubelet/runtime"
	"kubecore.io/kubecore/pkg/kubelet/runtime/fake"
	"kubecore.io/kubecore/pkg/kubelet/runtime/process"
	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

// TestMain runs the tests, or the process runtime's shim when the runtime
// starts this binary as one.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == process.ShimSubcommand {
		os.Exit(process.RunShim(os.Args[2:]))
	}
	os.Exit(framework.RunWithEtcd(m, &testEtcd))
}

// shimCommand makes this test binary the process runtime's shim.
func shimCommand() []string { return []string{os.Args[0], process.ShimSubcommand} }

var seq atomic.Int64

// env is one test's API server, namespace and kubelet.
type env struct {
	t       testing.TB
	ctx     context.Context
	cs      *typed.Clientset
	ns      string
	node    string
	rootDir string
	kl      *kubelet.Kubelet
	api     *framework.APIServer
	// configure, when set, changes the config of the next startKubelet.
	configure func(*kubelet.Config)
}

// newEnv starts an API server and a kubelet with the runtime ("process" or
// "fake") whose node is named after the test; both stop when it ends, and
// the kubelet stops the processes it started.
func newEnv(t testing.TB, runtime string) *env {
	t.Helper()
	e := newAPIEnv(t)
	e.startKubelet(runtime, true)
	return e
}

// newAPIEnv starts an API server and makes a namespace, without a kubelet.
func newAPIEnv(t testing.TB) *env {
	t.Helper()
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	return &env{t: t, ctx: t.Context(), cs: s.Clientset(t), ns: s.CreateNamespace(t, "kubelet"),
		node: fmt.Sprintf("node-%d", seq.Add(1)), rootDir: t.TempDir(), api: s}
}

// runningKubelet is a kubelet started by startKubelet.
type runningKubelet struct {
	kl      *kubelet.Kubelet
	runtime kruntime.Runtime
	cancel  context.CancelFunc
	done    chan error
	once    sync.Once
}

// stop cancels the kubelet and waits for Run to return; it may be called
// again.
func (k *runningKubelet) stop(t testing.TB) {
	t.Helper()
	k.once.Do(func() {
		k.cancel()
		select {
		case err := <-k.done:
			if err != nil {
				t.Errorf("kubelet: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("kubelet did not stop within 30s")
		}
	})
}

// startKubelet starts a kubelet on the env's node and root dir; it stops
// when the test ends, with its pods when stopPods.
func (e *env) startKubelet(runtime string, stopPods bool) *runningKubelet {
	t := e.t
	t.Helper()
	var rt kruntime.Runtime
	switch runtime {
	case "process":
		r, err := process.New(process.Options{HostIP: "127.0.0.1", StateDir: filepath.Join(e.rootDir, "runtime"), ShimCommand: shimCommand()})
		if err != nil {
			t.Fatal(err)
		}
		rt = r
	case "fake":
		rt = fake.New("127.0.0.1", nil)
	default:
		t.Fatalf("unknown runtime %q", runtime)
	}
	cfg := kubelet.Config{
		NodeName: e.node, Client: e.cs, Runtime: rt, RootDir: e.rootDir, NodeIP: "127.0.0.1",
		NodeLabels:                map[string]string{"kubecore.io/test": "yes"},
		RegisterWithTaints:        []corev1.Taint{{Key: "test", Value: "x", Effect: corev1.TaintEffectPreferNoSchedule}},
		KubeletPort:               10250,
		NodeStatusUpdateFrequency: 500 * time.Millisecond,
		NodeStatusReportFrequency: 2 * time.Second,
		LeaseRenewInterval:        500 * time.Millisecond,
		SyncFrequency:             2 * time.Second,
		RelistPeriod:              200 * time.Millisecond,
		StopPodsOnExit:            stopPods,
	}
	if e.configure != nil {
		e.configure(&cfg)
	}
	kl, err := kubelet.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.kl = kl
	ctx, cancel := context.WithCancel(context.Background())
	k := &runningKubelet{kl: kl, runtime: rt, cancel: cancel, done: make(chan error, 1)}
	go func() { k.done <- kl.Run(ctx) }()
	t.Cleanup(func() { k.stop(t) })
	return k
}

// pod creates a pod bound to the env's node with one container running
// script in sh, after mutating it with opts.
func (e *env) pod(name, script string, opts ...func(*corev1.Pod)) *corev1.Pod {
	e.t.Helper()
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.ns},
		Spec: corev1.PodSpec{
			NodeName: e.node,
			Containers: []corev1.Container{{
				Name: "main", Image: "busybox", Command: []string{"sh", "-c", script},
			}},
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

// waitFor polls the pod until cond holds (the test observes; the kubelet
// never polls the API).
func (e *env) waitFor(name string, timeout time.Duration, what string, cond func(*corev1.Pod) bool) *corev1.Pod {
	e.t.Helper()
	return framework.WaitForPod(e.ctx, e.t, e.cs, e.ns, name, timeout, what, cond)
}

// waitGone waits until the pod object is deleted.
func (e *env) waitGone(name string, timeout time.Duration) {
	e.t.Helper()
	framework.WaitForPodGone(e.ctx, e.t, e.cs, e.ns, name, timeout)
}

func describe(p *corev1.Pod) string { return framework.DescribePod(p) }

func condition(p *corev1.Pod, t corev1.PodConditionType) corev1.ConditionStatus {
	for _, c := range p.Status.Conditions {
		if c.Type == t {
			return c.Status
		}
	}
	return ""
}

func isReady(p *corev1.Pod) bool { return condition(p, corev1.PodReady) == corev1.ConditionTrue }

func containerStatus(p *corev1.Pod) *corev1.ContainerStatus {
	if len(p.Status.ContainerStatuses) == 0 {
		return nil
	}
	return &p.Status.ContainerStatuses[0]
}
