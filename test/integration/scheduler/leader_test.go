package scheduler

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	"k8s.io/klog/v2"

	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/rest"

	schedapp "kubecore.io/kubecore/cmd/kubecore/app/scheduler"
)

// runSchedulerApp runs `kubecore scheduler` with o until the returned stop
// is called; stop returns Run's error.
func runSchedulerApp(t *testing.T, ctx context.Context, o *schedapp.Options) func() error {
	t.Helper()
	c, err := o.Complete()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() { errc <- c.Run(ctx) }()
	var once sync.Once
	var runErr error
	stop := func() error {
		once.Do(func() {
			cancel()
			select {
			case runErr = <-errc:
			case <-time.After(30 * time.Second):
				runErr = errors.New("scheduler did not stop within 30s")
			}
		})
		return runErr
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

func (e *env) leaseHolder(name string) string {
	l, err := e.cs.CoordinationV1().Leases(metav1.NamespaceSystem).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

func (e *env) waitLeader(lease, id string) {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for e.leaseHolder(lease) != id {
		if time.Now().After(deadline) {
			e.t.Fatalf("lease %s held by %q, want %q", lease, e.leaseHolder(lease), id)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestLeaderFailover runs two schedulers under leader election: only the
// leader schedules; when its context is cancelled the other takes the
// Lease and binds the next pods.
func TestLeaderFailover(t *testing.T) {
	e := newEnv(t)
	e.node("n0", "4", "4Gi")
	lease := e.ns + "-scheduler"
	opts := func(id string) *schedapp.Options {
		o := schedapp.NewOptions()
		o.RESTConfig, o.SchedulerName, o.Identity = restConfig, e.scheduler, id
		o.LeaderElect, o.LeaseName = true, lease
		o.LeaseDuration, o.RenewDeadline, o.RetryPeriod = 2*time.Second, 1500*time.Millisecond, 100*time.Millisecond
		o.InitialBackoff, o.MaxBackoff = 100*time.Millisecond, time.Second
		return o
	}
	stopA := runSchedulerApp(t, e.ctx, opts("a"))
	e.waitLeader(lease, "a")
	stopB := runSchedulerApp(t, e.ctx, opts("b"))
	for i := range 3 {
		e.pod(fmt.Sprint("before-", i))
	}
	for i := range 3 {
		e.waitScheduled(fmt.Sprint("before-", i))
	}
	if h := e.leaseHolder(lease); h != "a" {
		t.Fatalf("lease held by %q while a runs", h)
	}

	// Kill the leader: cancelling its context ends its Run without error.
	if err := stopA(); err != nil {
		t.Fatalf("leader a: %v", err)
	}
	start := time.Now()
	for i := range 3 {
		e.pod(fmt.Sprint("after-", i))
	}
	e.waitLeader(lease, "b")
	for i := range 3 {
		e.waitScheduled(fmt.Sprint("after-", i))
	}
	t.Logf("b took over and bound the next pods %s after a stopped", time.Since(start).Round(time.Millisecond))
	if err := stopB(); err != nil {
		t.Fatalf("scheduler b: %v", err)
	}
}

// logLines collects the lines a logr sink writes.
type logLines struct {
	mu    sync.Mutex
	lines []string
	at    []time.Time
}

func (l *logLines) write(prefix, args string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, prefix+" "+args)
	l.at = append(l.at, time.Now())
}

// matching returns the times of the lines that contain every part.
func (l *logLines) matching(parts ...string) ([]string, []time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var lines []string
	var at []time.Time
next:
	for i, line := range l.lines {
		for _, p := range parts {
			if !strings.Contains(line, p) {
				continue next
			}
		}
		lines = append(lines, line)
		at = append(at, l.at[i])
	}
	return lines, at
}

// TestDeadAPIServer points a scheduler at an address nobody listens on: it
// keeps running, retrying each watch with a growing back-off, and logs why
// each attempt failed.
func TestDeadAPIServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	rc := rest.CopyConfig(restConfig)
	rc.Host = "https://" + addr
	for _, leaderElect := range []bool{false, true} {
		t.Run(fmt.Sprint("leader-elect=", leaderElect), func(t *testing.T) {
			logs := &logLines{}
			ctx := klog.NewContext(context.Background(), funcr.New(logs.write, funcr.Options{Verbosity: 2}))
			o := schedapp.NewOptions()
			o.RESTConfig, o.LeaderElect, o.Identity = rc, leaderElect, "dead"
			o.LeaseDuration, o.RenewDeadline, o.RetryPeriod = 2*time.Second, 1500*time.Millisecond, 100*time.Millisecond
			stop := runSchedulerApp(t, ctx, o)
			time.Sleep(7 * time.Second)
			// The pods' reflector: its attempts, and why they failed.
			lines, at := logs.matching("Failed to list or watch; retrying with back-off", "/api/v1/pods", "connection refused")
			if len(lines) < 3 {
				all, _ := logs.matching("")
				t.Fatalf("%d logged failures to list pods in 7s, want at least 3; log:\n%s", len(lines), strings.Join(all, "\n"))
			}
			if len(lines) > 8 {
				t.Errorf("%d failures to list pods logged in 7s: no back-off", len(lines))
			}
			// Jittered doubling: each wait is longer than the first.
			first := at[1].Sub(at[0])
			if last := at[len(at)-1].Sub(at[len(at)-2]); last <= first {
				t.Errorf("waits between attempts did not grow: first %s, last %s", first, last)
			}
			if !strings.Contains(lines[0], `"scheduler"="default-scheduler"`) {
				t.Errorf("log line does not name the scheduler: %s", lines[0])
			}
			if err := stop(); err != nil {
				t.Errorf("Run after cancel: %v", err)
			}
		})
	}
}

// TestMissingPriorityClassRejectedAtAdmission: a pod naming a
// PriorityClass that does not exist is refused at admission (403).
func TestMissingPriorityClassRejectedAtAdmission(t *testing.T) {
	e := newEnv(t)
	err := e.createRaw(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "no-class"}, Spec: corev1.PodSpec{PriorityClassName: "does-not-exist"}})
	if want := `pods "no-class" is forbidden: no PriorityClass with name does-not-exist was found`; !apierrors.IsForbidden(err) || err.Error() != want {
		t.Errorf("pod with a missing PriorityClass: %v, want %q", err, want)
	}
}

// TestUnparsableAffinityRejectedByValidation: a pod whose node or pod
// affinity cannot be parsed is refused with 422 Invalid and the field's
// path, as Kubernetes does, rather than left to fail in the scheduler.
func TestUnparsableAffinityRejectedByValidation(t *testing.T) {
	e := newEnv(t)

	nodeTerm := func(r corev1.NodeSelectorRequirement) *corev1.Affinity {
		return &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{r}}},
		}}}
	}
	for _, tc := range []struct {
		name     string
		affinity *corev1.Affinity
		want     string
	}{
		{"bad-operator", nodeTerm(corev1.NodeSelectorRequirement{Key: "zone", Operator: "Near", Values: []string{"a"}}),
			"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: \"Near\": not a valid selector operator"},
		{"gt-not-a-number", nodeTerm(corev1.NodeSelectorRequirement{Key: "gen", Operator: corev1.NodeSelectorOpGt, Values: []string{"four"}}),
			"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values[0]: Invalid value: \"four\": must be an integer"},
		{"in-without-values", nodeTerm(corev1.NodeSelectorRequirement{Key: "zone", Operator: corev1.NodeSelectorOpIn}),
			"spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'"},
		{"pod-selector-bad-operator", &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			TopologyKey:   corev1.LabelHostname,
			LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Like", Values: []string{"web"}}}},
		}}}}, "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].operator: Invalid value: \"Like\": not a valid selector operator"},
		{"pod-term-without-topology-key", &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		}}}}, "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey: Required value: can not be empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := e.createRaw(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: tc.name}, Spec: corev1.PodSpec{Affinity: tc.affinity}})
			if err == nil {
				t.Fatal("created; want 422 Invalid")
			}
			if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

// createRaw creates a pod for the env's scheduler with one container and
// nothing else set, and returns the API server's answer.
func (e *env) createRaw(p *corev1.Pod) error {
	p.Namespace = e.ns
	p.Spec.SchedulerName = e.scheduler
	p.Spec.Containers = []corev1.Container{{Name: "c", Image: "busybox"}}
	_, err := e.cs.CoreV1().Pods(e.ns).Create(e.ctx, p, metav1.CreateOptions{})
	return err
}
