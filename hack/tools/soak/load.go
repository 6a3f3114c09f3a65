package main

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/apimachinery/pkg/watch"
	"kubecore.io/client/typed"
)

const (
	namespace      = "soak"
	configMaps     = 100
	deployment     = "soak"   // rolled every 30 s, on the all-in-one's own node
	hollowWorkload = "hollow" // static, spread over the hollow nodes
	replicas       = 5
	hollowReplicas = 100
)

type loadCounters struct {
	writes, writeErrors, watchEvents, gets, getErrors, rollouts, jobs atomic.Int64
}

// load is the steady work on the cluster. Its controller-facing parts
// (rollouts, Jobs) pause while the chaos check looks at the pods.
type load struct {
	cs       *typed.Clientset
	node     string // the all-in-one's node, where real processes run
	run      string // SOAK_RUN of this run's pod processes
	dataDir  string // all-in-one's, holding the process runtime's state
	http     *http.Client
	host     string
	acked    []atomic.Int64
	c        loadCounters
	pause    sync.RWMutex
	jobsMu   sync.Mutex
	jobNames []string // live Jobs, oldest first
}

// podTemplate runs command as a host process on the all-in-one's node,
// its environment naming the run and the pod for podProcesses.
func (l *load) podTemplate(labels map[string]string, restart corev1.RestartPolicy, command ...string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{
			RestartPolicy:                 restart,
			NodeSelector:                  map[string]string{"kubernetes.io/hostname": l.node},
			AutomountServiceAccountToken:  ptr(false),
			TerminationGracePeriodSeconds: ptr(int64(5)),
			Containers: []corev1.Container{{
				Name: "work", Image: "busybox", Command: command,
				Env: []corev1.EnvVar{
					{Name: "SOAK_RUN", Value: l.run},
					{Name: "SOAK_POD", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
				},
			}},
		},
	}
}

// churnConfigMaps writes 50 times a second round-robin over configMaps
// ConfigMaps, each write's value one more than the last acknowledged.
// While the server is down the writes fail and are not acknowledged.
func (l *load) churnConfigMaps(ctx context.Context) {
	client := l.cs.CoreV1().ConfigMaps(namespace)
	ticker := time.NewTicker(time.Second / 50)
	defer ticker.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		n := i % configMaps
		next := l.acked[n].Load() + 1
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("churn-%03d", n)}, Data: map[string]string{"v": strconv.FormatInt(next, 10)}}
		var err error
		if next == 1 {
			_, err = client.Create(ctx, cm, metav1.CreateOptions{})
		}
		// A create whose answer was lost to a kill took effect: update.
		if next > 1 || apierrors.IsAlreadyExists(err) {
			_, err = client.Update(ctx, cm, metav1.UpdateOptions{})
		}
		if err != nil {
			if ctx.Err() == nil {
				l.c.writeErrors.Add(1)
			}
			continue
		}
		l.acked[n].Store(next)
		l.c.writes.Add(1)
	}
}

// watchLoop keeps a watch open (ConfigMaps of the soak namespace, or
// every pod) and counts its events, starting again when it ends.
func (l *load) watchLoop(ctx context.Context, i int) {
	for ctx.Err() == nil {
		var w watch.Interface
		var err error
		if i%2 == 0 {
			w, err = l.cs.CoreV1().ConfigMaps(namespace).Watch(ctx, metav1.ListOptions{})
		} else {
			w, err = l.cs.CoreV1().Pods("").Watch(ctx, metav1.ListOptions{})
		}
		if err != nil {
			sleep(ctx, time.Second)
			continue
		}
		for range w.ResultChan() {
			l.c.watchEvents.Add(1)
		}
		w.Stop()
	}
}

// createWorkloads makes the rolled Deployment (real processes on the
// all-in-one's node) and the static one spread over the hollow nodes.
func (l *load) createWorkloads(ctx context.Context) error {
	real := map[string]string{"app": deployment}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: deployment},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(int32(replicas)),
			Selector: &metav1.LabelSelector{MatchLabels: real},
			Template: l.podTemplate(real, corev1.RestartPolicyAlways, "sleep", "86400"),
		},
	}
	if _, err := l.cs.AppsV1().Deployments(namespace).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create deployment %s: %w", deployment, err)
	}
	hollow := map[string]string{"app": hollowWorkload}
	h := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: hollowWorkload},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(int32(hollowReplicas)),
			Selector: &metav1.LabelSelector{MatchLabels: hollow},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: hollow},
				Spec: corev1.PodSpec{
					Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
						NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{
							Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpNotIn, Values: []string{l.node},
						}}}},
					}}},
					Containers: []corev1.Container{{Name: "pause", Image: "pause"}},
				},
			},
		},
	}
	if _, err := l.cs.AppsV1().Deployments(namespace).Create(ctx, h, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create deployment %s: %w", hollowWorkload, err)
	}
	return nil
}

// rollDeployment changes the Deployment's template every 30 s, a new
// rollout each time.
func (l *load) rollDeployment(ctx context.Context) {
	ticker := time.NewTicker(30 * time.Second)
	defer ticker.Stop()
	for i := 1; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		l.pause.RLock()
		patch := fmt.Sprintf(`{"spec":{"template":{"metadata":{"annotations":{"soak/roll":"%d"}}}}}`, i)
		if _, err := l.cs.AppsV1().Deployments(namespace).Patch(ctx, deployment, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err == nil {
			l.c.rollouts.Add(1)
		}
		l.pause.RUnlock()
	}
}

// runJobs creates 20 Jobs a minute, each a 2-second process on the
// all-in-one's node, and deletes the oldest beyond 40.
func (l *load) runJobs(ctx context.Context) {
	client := l.cs.BatchV1().Jobs(namespace)
	ticker := time.NewTicker(3 * time.Second)
	defer ticker.Stop()
	background := metav1.DeletePropagationBackground
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		l.pause.RLock()
		name := fmt.Sprintf("soak-%05d", i)
		job := &batchv1.Job{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec:       batchv1.JobSpec{BackoffLimit: ptr(int32(0)), Template: l.podTemplate(nil, corev1.RestartPolicyNever, "sleep", "2")},
		}
		if _, err := client.Create(ctx, job, metav1.CreateOptions{}); err == nil || apierrors.IsAlreadyExists(err) {
			l.c.jobs.Add(1)
			l.jobsMu.Lock()
			l.jobNames = append(l.jobNames, name)
			l.jobsMu.Unlock()
		}
		l.jobsMu.Lock()
		for len(l.jobNames) > 40 {
			if err := client.Delete(ctx, l.jobNames[0], metav1.DeleteOptions{PropagationPolicy: &background}); err != nil && !apierrors.IsNotFound(err) {
				break
			}
			l.jobNames = l.jobNames[1:]
		}
		l.jobsMu.Unlock()
		l.pause.RUnlock()
	}
}

// liveJobs are the Jobs runJobs keeps.
func (l *load) liveJobs() []string {
	l.jobsMu.Lock()
	defer l.jobsMu.Unlock()
	return append([]string(nil), l.jobNames...)
}

// getPods runs `kubectl get pods -A` every 5 s.
func (l *load) getPods(ctx context.Context, kubectl, kubeconfig string) {
	ticker := time.NewTicker(5 * time.Second)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		cmd := exec.CommandContext(ctx, kubectl, "--kubeconfig", kubeconfig, "get", "pods", "-A", "--no-headers")
		if err := cmd.Run(); err != nil {
			if ctx.Err() == nil {
				l.c.getErrors.Add(1)
			}
			continue
		}
		l.c.gets.Add(1)
	}
}

// lostWrites counts the ConfigMaps whose stored value is behind the last
// acknowledged write (read before the list, so later writes do not count).
func (l *load) lostWrites(ctx context.Context) (int, error) {
	want := make([]int64, len(l.acked))
	for i := range l.acked {
		want[i] = l.acked[i].Load()
	}
	list, err := l.cs.CoreV1().ConfigMaps(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, fmt.Errorf("list ConfigMaps for lost writes: %w", err)
	}
	stored := map[string]int64{}
	for _, cm := range list.Items {
		stored[cm.Name], _ = strconv.ParseInt(cm.Data["v"], 10, 64)
	}
	lost := 0
	for i, w := range want {
		if got := stored[fmt.Sprintf("churn-%03d", i)]; w > 0 && got < w {
			lost++
		}
	}
	return lost, nil
}

func ptr[T any](v T) *T { return &v }

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
