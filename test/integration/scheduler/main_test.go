// Package scheduler holds the scheduler's integration tests: an in-process
// API server over embedded etcd, Node objects and no kubelet.
package scheduler

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/informers"
	"kubecore.io/client/rest"
	"kubecore.io/client/tools/clientcmd"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/cmd/kubecore/app/apiserver"
	"kubecore.io/kubecore/pkg/scheduler"
	"kubecore.io/kubecore/test/integration/framework"
)

// restConfig reaches the package's API server.
var restConfig *rest.Config

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "kubecore-scheduler-it-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	o := apiserver.NewOptions()
	o.DataDir, o.SecurePort = dir, 0
	// Nodes here are plain objects with no lifecycle controller to take
	// the not-ready taint off: a test server leaves those plugins out.
	o.DisableAdmissionPlugins = framework.DefaultDisabledAdmissionPlugins()
	cfg, err := o.Complete()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ready := cfg.Ready()
	go func() { done <- cfg.Run(ctx) }()
	defer func() {
		cancel()
		<-done
	}()
	select {
	case <-ready:
	case err := <-done:
		fmt.Fprintln(os.Stderr, "apiserver:", err)
		return 1
	case <-time.After(60 * time.Second):
		fmt.Fprintln(os.Stderr, "apiserver not ready after 60s")
		return 1
	}
	restConfig, err = clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "admin.kubeconfig"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	restConfig.QPS, restConfig.Burst = 0, 0
	return m.Run()
}

var seq atomic.Int64

// env is one test's corner of the cluster: its own namespace, node label
// and scheduler name, so that tests sharing the API server do not meet.
type env struct {
	t         *testing.T
	ctx       context.Context
	cs        *typed.Clientset
	ns        string
	scheduler string
	sched     *scheduler.Scheduler
	nodes     []string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	cs, err := typed.NewForConfig(restConfig)
	if err != nil {
		t.Fatal(err)
	}
	n := seq.Add(1)
	e := &env{t: t, ctx: t.Context(), cs: cs, ns: fmt.Sprintf("it-%d", n), scheduler: fmt.Sprintf("sched-%d", n)}
	if _, err := cs.CoreV1().Namespaces().Create(e.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: e.ns, Labels: map[string]string{"team": e.ns}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = parallel(len(e.nodes), 16, func(i int) error {
			_ = cs.CoreV1().Nodes().Delete(ctx, e.nodes[i], metav1.DeleteOptions{})
			return nil
		})
	})
	return e
}

// start runs a scheduler for the env's pods until the test ends.
func (e *env) start(cfg scheduler.Config) *scheduler.Scheduler {
	e.t.Helper()
	cfg.SchedulerName = e.scheduler
	if cfg.InitialBackoff == 0 {
		cfg.InitialBackoff, cfg.MaxBackoff = 100*time.Millisecond, time.Second
	}
	var s *scheduler.Scheduler
	stop := runSchedulerWith(e.t, e.cs, cfg, &s)
	e.t.Cleanup(stop)
	e.sched = s
	return s
}

// runScheduler starts a scheduler with cfg over cs; the returned function
// stops it.
func runScheduler(tb testing.TB, cs *typed.Clientset, cfg scheduler.Config) func() {
	var s *scheduler.Scheduler
	return runSchedulerWith(tb, cs, cfg, &s)
}

func runSchedulerWith(tb testing.TB, cs *typed.Clientset, cfg scheduler.Config, out **scheduler.Scheduler) func() {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	factory := informers.NewSharedInformerFactory(cs)
	cfg.Client, cfg.Informers = cs, factory
	s, err := scheduler.New(ctx, cfg)
	if err != nil {
		cancel()
		tb.Fatal(err)
	}
	factory.Start(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	*out = s
	return func() {
		cancel()
		if err := <-done; err != nil && !strings.Contains(err.Error(), "context canceled") {
			tb.Errorf("scheduler: %v", err)
		}
		factory.Shutdown()
	}
}

type nodeOpt func(*corev1.Node)

func withLabels(kv ...string) nodeOpt {
	return func(n *corev1.Node) {
		for i := 0; i+1 < len(kv); i += 2 {
			n.Labels[kv[i]] = kv[i+1]
		}
	}
}

func withTaint(key, value string, effect corev1.TaintEffect) nodeOpt {
	return func(n *corev1.Node) {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: key, Value: value, Effect: effect})
	}
}

func cordoned(n *corev1.Node) { n.Spec.Unschedulable = true }

// node creates a node with cpu, memory and room for 110 pods. Every node of
// the env carries the label "env=<ns>" that the env's pods select.
func (e *env) node(name, cpu, memory string, opts ...nodeOpt) *corev1.Node {
	e.t.Helper()
	name = e.ns + "-" + name
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"env": e.ns, corev1.LabelHostname: name}},
		Status: corev1.NodeStatus{Allocatable: corev1.ResourceList{
			corev1.ResourceCPU:    resource.MustParse(cpu),
			corev1.ResourceMemory: resource.MustParse(memory),
			corev1.ResourcePods:   resource.MustParse("110"),
		}},
	}
	n.Status.Capacity = n.Status.Allocatable
	for _, o := range opts {
		o(n)
	}
	out, err := e.cs.CoreV1().Nodes().Create(e.ctx, n, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatalf("create node %s: %v", name, err)
	}
	e.nodes = append(e.nodes, name)
	return out
}

type podOpt func(*corev1.Pod)

func requests(cpu, memory string) podOpt {
	return func(p *corev1.Pod) {
		rl := corev1.ResourceList{}
		if cpu != "" {
			rl[corev1.ResourceCPU] = resource.MustParse(cpu)
		}
		if memory != "" {
			rl[corev1.ResourceMemory] = resource.MustParse(memory)
		}
		p.Spec.Containers[0].Resources.Requests = rl
	}
}

func podLabels(kv ...string) podOpt {
	return func(p *corev1.Pod) {
		for i := 0; i+1 < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func tolerate(key string, effect corev1.TaintEffect) podOpt {
	return func(p *corev1.Pod) {
		p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: effect})
	}
}

// pod creates a pod for the env's scheduler, restricted to the env's nodes.
func (e *env) pod(name string, opts ...podOpt) *corev1.Pod {
	e.t.Helper()
	zero := int64(0)
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: e.ns, Labels: map[string]string{}},
		Spec: corev1.PodSpec{
			SchedulerName:                 e.scheduler,
			NodeSelector:                  map[string]string{"env": e.ns},
			TerminationGracePeriodSeconds: &zero,
			Containers:                    []corev1.Container{{Name: "c", Image: "busybox"}},
		},
	}
	for _, o := range opts {
		o(p)
	}
	out, err := e.cs.CoreV1().Pods(p.Namespace).Create(e.ctx, p, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatalf("create pod %s: %v", name, err)
	}
	return out
}

// inNamespace creates the pod in another namespace than the env's.
func inNamespace(ns string) podOpt {
	return func(p *corev1.Pod) { p.Namespace = ns }
}

// waitFor polls the pod until cond holds or timeout passes (the test
// observes; the scheduler never polls).
func (e *env) waitFor(name string, timeout time.Duration, what string, cond func(*corev1.Pod) bool) *corev1.Pod {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	var last *corev1.Pod
	for time.Now().Before(deadline) {
		p, err := e.cs.CoreV1().Pods(e.ns).Get(e.ctx, name, metav1.GetOptions{})
		if err == nil {
			last = p
			if cond(p) {
				return p
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.t.Fatalf("pod %s: not %s after %s; last: node=%q conditions=%+v", name, what, timeout, last.Spec.NodeName, last.Status.Conditions)
	return nil
}

func (e *env) waitScheduled(name string) *corev1.Pod {
	e.t.Helper()
	return e.waitFor(name, 20*time.Second, "scheduled", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
}

// waitUnschedulable waits for the PodScheduled=False condition and
// returns its message.
func (e *env) waitUnschedulable(name string) string {
	e.t.Helper()
	p := e.waitFor(name, 20*time.Second, "unschedulable", func(p *corev1.Pod) bool {
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
				return true
			}
		}
		return false
	})
	if p.Spec.NodeName != "" {
		e.t.Fatalf("pod %s is unschedulable but bound to %s", name, p.Spec.NodeName)
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			return c.Message
		}
	}
	return ""
}

// events returns the messages of the events with reason about the pod.
func (e *env) events(pod, reason string) []string {
	e.t.Helper()
	list, err := e.cs.CoreV1().Events(e.ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, ev := range list.Items {
		if ev.InvolvedObject.Name == pod && ev.Reason == reason {
			out = append(out, ev.Message)
		}
	}
	return out
}

func (e *env) waitEvent(pod, reason, want string) {
	e.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	var got []string
	for time.Now().Before(deadline) {
		got = e.events(pod, reason)
		for _, m := range got {
			if m == want {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.t.Errorf("pod %s: no %s event %q; got %q", pod, reason, want, got)
}
