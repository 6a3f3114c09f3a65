// Package job tests the Job controller against an in-process API server,
// with the fake node agent running (and finishing) the pods.
package job

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/informers"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/controller/garbagecollector"
	"kubecore.io/kubecore/pkg/controller/job"
	"kubecore.io/kubecore/pkg/controllermanager"
	"kubecore.io/kubecore/test/integration/fakenode"
	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }

// outcomeAnnotation tells the fake node how a pod ends: "succeed",
// "fail", "failOdd" (by completion index), "succeed0" (index 0 only), or
// anything else to keep it running.
const outcomeAnnotation = "test.kubecore.io/outcome"

// env is one test's cluster: an API server, the fake node agent finishing
// pods as their outcome annotation says, the Job controller and the
// garbage collector.
type env struct {
	ctx context.Context
	cs  *typed.Clientset
	ns  string
}

func start(t *testing.T, opts job.Options) *env {
	t.Helper()
	e, factory := startCluster(t)
	c := e.newController(t, factory, opts)
	framework.RunControllers(t, factory, func(ctx context.Context) error { return c.Run(ctx, 2) })
	return e
}

// newController builds a Job controller on factory's informers.
func (e *env) newController(t *testing.T, factory *informers.SharedInformerFactory, opts job.Options) *job.Controller {
	t.Helper()
	c, err := job.New(e.cs, factory, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// startCluster starts the API server, the fake node agent and the garbage
// collector, and returns a factory for the test's Job controllers.
func startCluster(t *testing.T) (*env, *informers.SharedInformerFactory) {
	t.Helper()
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	cs := s.Clientset(t)
	ns := s.CreateNamespace(t, "job")
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	nodes := []string{ns + "-a", ns + "-b"}
	t.Cleanup(func() {
		for _, n := range nodes {
			_ = cs.CoreV1().Nodes().Delete(context.Background(), n, metav1.DeleteOptions{})
		}
	})
	agent, err := fakenode.Start(ctx, cs, fakenode.Options{Nodes: nodes, Bind: true, LeaseRenewInterval: -1,
		Finish: func(p *corev1.Pod) corev1.PodPhase {
			ix := p.Annotations[batchv1.JobCompletionIndexAnnotation]
			switch outcome := p.Annotations[outcomeAnnotation]; {
			case outcome == "succeed":
				return corev1.PodSucceeded
			case outcome == "fail":
				return corev1.PodFailed
			case outcome == "failOdd" && ix != "":
				// Indexed Jobs: odd indexes fail, even ones succeed.
				if (ix[len(ix)-1]-'0')%2 == 1 {
					return corev1.PodFailed
				}
				return corev1.PodSucceeded
			case outcome == "succeed0" && ix != "":
				// Indexed Jobs: index 0 succeeds, the others run.
				if ix == "0" {
					return corev1.PodSucceeded
				}
			}
			return corev1.PodRunning
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = agent.Stop() })
	gcConfig := controllermanager.Config{RESTConfig: s.Config, Controllers: []string{garbagecollector.Name}}
	framework.RunControllers(t, informers.NewSharedInformerFactory(cs), gcConfig.Run)
	return &env{ctx: ctx, cs: cs, ns: ns}, informers.NewSharedInformerFactory(cs)
}

func ptr[T any](v T) *T { return &v }

// newJob is a Job whose pods end as outcome says.
func (e *env) newJob(name, outcome string, completions, parallelism *int32) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: e.ns, Name: name},
		Spec: batchv1.JobSpec{
			Completions: completions,
			Parallelism: parallelism,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{outcomeAnnotation: outcome}},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers:    []corev1.Container{{Name: "main", Image: "busybox", Command: []string{"true"}}},
				},
			},
		},
	}
}

func (e *env) create(t *testing.T, j *batchv1.Job) *batchv1.Job {
	t.Helper()
	out, err := e.cs.BatchV1().Jobs(e.ns).Create(e.ctx, j, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create job %s: %v", j.Name, err)
	}
	return out
}

// waitCondition waits for the Job's condition of type ct to be True.
func (e *env) waitCondition(t *testing.T, name string, ct batchv1.JobConditionType, timeout time.Duration) *batchv1.Job {
	t.Helper()
	var got *batchv1.Job
	framework.WaitFor(t, timeout, fmt.Sprintf("job %s condition %s", name, ct), func() (bool, error) {
		j, err := e.cs.BatchV1().Jobs(e.ns).Get(e.ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		got = j
		return hasCondition(j, ct), nil
	})
	return got
}

func hasCondition(j *batchv1.Job, ct batchv1.JobConditionType) bool {
	return slices.ContainsFunc(j.Status.Conditions, func(c batchv1.JobCondition) bool {
		return c.Type == ct && c.Status == corev1.ConditionTrue
	})
}

func conditionOf(j *batchv1.Job, ct batchv1.JobConditionType) *batchv1.JobCondition {
	for i := range j.Status.Conditions {
		if j.Status.Conditions[i].Type == ct {
			return &j.Status.Conditions[i]
		}
	}
	return nil
}

// pods returns the pods of the Job named name, by its job-name label.
func (e *env) pods(t *testing.T, name string) []corev1.Pod {
	t.Helper()
	list, err := e.cs.CoreV1().Pods(e.ns).List(e.ctx, metav1.ListOptions{LabelSelector: batchv1.JobNameLabel + "=" + name})
	if err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// watchActive counts, at every pod event of the namespace, the pods that
// neither finished nor are being deleted, and returns a function giving
// the highest count seen.
func (e *env) watchActive(t *testing.T) func() int {
	t.Helper()
	w, err := e.cs.CoreV1().Pods(e.ns).Watch(e.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	peak := make(chan int, 1)
	peak <- 0
	go func() {
		active := map[string]bool{}
		for ev := range w.ResultChan() {
			p, ok := ev.Object.(*corev1.Pod)
			if !ok {
				continue
			}
			active[p.Name] = ev.Type != "DELETED" && p.DeletionTimestamp == nil &&
				p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
			n := 0
			for _, a := range active {
				if a {
					n++
				}
			}
			if m := <-peak; n > m {
				peak <- n
			} else {
				peak <- m
			}
		}
	}()
	return func() int { m := <-peak; peak <- m; return m }
}

// watchCreations records when each pod of the namespace is first seen,
// and returns a function giving those times in order.
func (e *env) watchCreations(t *testing.T) func() []time.Time {
	t.Helper()
	w, err := e.cs.CoreV1().Pods(e.ns).Watch(e.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	var mu sync.Mutex
	var times []time.Time
	go func() {
		for ev := range w.ResultChan() {
			if ev.Type == "ADDED" {
				mu.Lock()
				times = append(times, time.Now())
				mu.Unlock()
			}
		}
	}()
	return func() []time.Time {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(times)
	}
}
