package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
)

// convergeWithin is how long after a restart is ready the controllers
// have to converge.
const convergeWithin = 30 * time.Second

// restart is what one kill -9 and restart of all-in-one found.
type restart struct {
	at               time.Duration
	oldPID, newPID   int
	ready, converged time.Duration // after the kill; converged after ready
	kept, readopted  int           // Deployment pods running at the kill; re-adopted
	jobs             int           // Jobs unfinished at the kill
	lost, duplicated int
	problems         []string
}

func (r restart) ok() bool { return len(r.problems) == 0 }

// keptPod is a pod whose process ran when all-in-one was killed.
type keptPod struct {
	uid, containerID string
	restarts         int32
	pid              int
	job              bool // a Job's pod, whose process may end on its own
}

// chaos kills all-in-one with SIGKILL, starts it again on the same data
// dir (--keep-pods) and checks that nothing acknowledged was lost, that
// no pod runs twice, that the kept pod processes are re-adopted and that
// the controllers converge. Rollouts and new Jobs pause meanwhile, so
// that the pods it looks at are the ones it saw at the kill.
func (l *load) chaos(ctx context.Context, s *server, httpClient *http.Client, host string, start time.Time) restart {
	l.pause.Lock()
	defer l.pause.Unlock()
	r := restart{at: time.Since(start), oldPID: s.pid()}
	fail := func(format string, args ...any) { r.problems = append(r.problems, fmt.Sprintf(format, args...)) }

	// Kill a settled cluster, so that the kill finds pod processes to
	// keep: a rollout may have just begun (they tick in step).
	for settle := time.Now(); time.Since(settle) < convergeWithin && ctx.Err() == nil; sleep(ctx, time.Second) {
		if len(l.converged(ctx, nil, nil)) == 0 {
			break
		}
	}

	// What runs now: the pods on the node with their container IDs, and
	// their processes.
	before, err := l.nodePods(ctx)
	if err != nil {
		fail("list pods before the kill: %v", err)
		return r
	}
	unfinished := l.unfinishedJobs(ctx)
	procs := podProcesses(l.run)
	kept := map[string]keptPod{}
	for _, p := range before {
		pids := procs[p.Name]
		if len(pids) != 1 || p.DeletionTimestamp != nil || len(p.Status.ContainerStatuses) == 0 || p.Status.ContainerStatuses[0].State.Running == nil {
			continue
		}
		cs := p.Status.ContainerStatuses[0]
		_, job := p.Labels["job-name"]
		kept[p.Name] = keptPod{uid: string(p.UID), containerID: cs.ContainerID, restarts: cs.RestartCount, pid: pids[0], job: job}
	}
	for _, k := range kept {
		if !k.job {
			r.kept++
		}
	}
	r.jobs = len(unfinished)

	killed := time.Now()
	if err := s.kill(); err != nil {
		fail("%v", err)
		return r
	}
	for name, k := range kept {
		if !alive(k.pid) {
			// A Job's 2-second process may end on its own meanwhile.
			if !k.job {
				fail("pod %s: process %d died with all-in-one despite --keep-pods", name, k.pid)
			}
		}
	}
	if err := s.start(); err != nil {
		fail("%v", err)
		return r
	}
	r.newPID = s.pid()
	if err := s.waitReady(ctx, httpClient, host, 2*time.Minute); err != nil {
		fail("%v", err)
		return r
	}
	r.ready = time.Since(killed)
	readyAt := time.Now()

	lost, err := l.lostWrites(ctx)
	if err != nil {
		fail("%v", err)
	}
	r.lost = lost
	if lost > 0 {
		fail("%d acknowledged ConfigMap writes lost", lost)
	}

	// Converge: the Deployment available with its replicas and no more,
	// the Jobs of before the kill complete, every kept pod re-adopted.
	var pending []string
	for {
		pending = l.converged(ctx, kept, unfinished)
		if len(pending) == 0 || time.Since(readyAt) > convergeWithin || ctx.Err() != nil {
			break
		}
		sleep(ctx, time.Second)
	}
	r.readopted = r.kept
	for _, p := range pending {
		if strings.Contains(p, "not re-adopted") {
			r.readopted--
		}
	}
	if len(pending) == 0 {
		// The status seen so far may be what was written before the kill:
		// the controllers prove they work with a rollout and a Job.
		pending = l.convergeNewWork(ctx, len(r.problems), readyAt)
	}
	r.converged = time.Since(readyAt)
	if len(pending) > 0 {
		fail("not converged %s after ready: %s", convergeWithin, strings.Join(pending, "; "))
	}
	dups := l.duplicates(ctx)
	r.duplicated = len(dups)
	for _, d := range dups {
		fail("duplicate: %s", d)
	}
	return r
}

// convergeNewWork rolls the Deployment and runs a Job, and waits until
// readyAt+convergeWithin for both to finish, returning what did not.
func (l *load) convergeNewWork(ctx context.Context, n int, readyAt time.Time) []string {
	name := fmt.Sprintf("soak-restart-%d-%d", time.Now().Unix(), n)
	patch := fmt.Sprintf(`{"spec":{"template":{"metadata":{"annotations":{"soak/restart":%q}}}}}`, name)
	d, err := l.cs.AppsV1().Deployments(namespace).Patch(ctx, deployment, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	if err != nil {
		return []string{fmt.Sprintf("roll the deployment: %v", err)}
	}
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       batchv1.JobSpec{BackoffLimit: ptr(int32(0)), Template: l.podTemplate(nil, corev1.RestartPolicyNever, "sleep", "1")},
	}
	if _, err := l.cs.BatchV1().Jobs(namespace).Create(ctx, job, metav1.CreateOptions{}); err != nil {
		return []string{fmt.Sprintf("create job %s: %v", name, err)}
	}
	l.jobsMu.Lock()
	l.jobNames = append(l.jobNames, name)
	l.jobsMu.Unlock()
	for {
		pending := l.converged(ctx, nil, []string{name})
		if dep, err := l.cs.AppsV1().Deployments(namespace).Get(ctx, deployment, metav1.GetOptions{}); err == nil && dep.Status.ObservedGeneration < d.Generation {
			pending = append(pending, fmt.Sprintf("deployment %s: generation %d not observed", deployment, d.Generation))
		}
		if len(pending) == 0 || time.Since(readyAt) > convergeWithin || ctx.Err() != nil {
			return pending
		}
		sleep(ctx, 500*time.Millisecond)
	}
}

// nodePods are the soak's pods on the all-in-one's node.
func (l *load) nodePods(ctx context.Context) ([]corev1.Pod, error) {
	list, err := l.cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + l.node})
	if err != nil {
		return nil, err
	}
	return list.Items, nil
}

// unfinishedJobs are the live Jobs not yet complete.
func (l *load) unfinishedJobs(ctx context.Context) []string {
	var out []string
	for _, name := range l.liveJobs() {
		j, err := l.cs.BatchV1().Jobs(namespace).Get(ctx, name, metav1.GetOptions{})
		if err == nil && !jobFinished(j, batchv1.JobComplete) {
			out = append(out, name)
		}
	}
	return out
}

func jobFinished(j *batchv1.Job, t batchv1.JobConditionType) bool {
	for _, c := range j.Status.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// converged lists what is not yet as it should be after a restart.
func (l *load) converged(ctx context.Context, kept map[string]keptPod, jobs []string) []string {
	var pending []string
	d, err := l.cs.AppsV1().Deployments(namespace).Get(ctx, deployment, metav1.GetOptions{})
	switch {
	case err != nil:
		pending = append(pending, fmt.Sprintf("get deployment: %v", err))
	case d.Status.ObservedGeneration < d.Generation || d.Status.UpdatedReplicas != replicas || d.Status.AvailableReplicas != replicas || d.Status.Replicas != replicas:
		pending = append(pending, fmt.Sprintf("deployment %s: generation %d observed %d, replicas %d updated %d available %d, want %d",
			deployment, d.Generation, d.Status.ObservedGeneration, d.Status.Replicas, d.Status.UpdatedReplicas, d.Status.AvailableReplicas, replicas))
	}
	for _, name := range jobs {
		j, err := l.cs.BatchV1().Jobs(namespace).Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			pending = append(pending, fmt.Sprintf("get job %s: %v", name, err))
		case jobFinished(j, batchv1.JobFailed):
			pending = append(pending, fmt.Sprintf("job %s failed", name))
		case !jobFinished(j, batchv1.JobComplete):
			pending = append(pending, fmt.Sprintf("job %s not complete (active %d, succeeded %d)", name, j.Status.Active, j.Status.Succeeded))
		}
	}
	pods, err := l.nodePods(ctx)
	if err != nil {
		return append(pending, fmt.Sprintf("list pods: %v", err))
	}
	byName := map[string]corev1.Pod{}
	for _, p := range pods {
		byName[p.Name] = p
	}
	if len(kept) == 0 {
		return pending
	}
	pids, err := runtimePIDs(l.dataDir)
	if err != nil {
		pending = append(pending, fmt.Sprintf("read the runtime's state: %v", err))
	}
	measured, err := l.kubeletMeasures(ctx)
	if err != nil {
		pending = append(pending, fmt.Sprintf("the kubelet's summary: %v", err))
	}
	for name, k := range kept {
		if k.job {
			continue // its process may have finished; the Job must complete
		}
		p, ok := byName[name]
		if !ok || string(p.UID) != k.uid {
			pending = append(pending, fmt.Sprintf("pod %s not re-adopted: gone", name))
			continue
		}
		if len(p.Status.ContainerStatuses) == 0 {
			pending = append(pending, fmt.Sprintf("pod %s not re-adopted: no container status", name))
			continue
		}
		cs := p.Status.ContainerStatuses[0]
		id := strings.TrimPrefix(cs.ContainerID, "process://")
		switch {
		case cs.ContainerID != k.containerID || cs.RestartCount != k.restarts:
			pending = append(pending, fmt.Sprintf("pod %s not re-adopted: container %s restarts %d, was %s restarts %d", name, cs.ContainerID, cs.RestartCount, k.containerID, k.restarts))
		case cs.State.Running == nil || !cs.Ready:
			pending = append(pending, fmt.Sprintf("pod %s not re-adopted: container not running and ready", name))
		case !alive(k.pid) || pids[id] != k.pid:
			pending = append(pending, fmt.Sprintf("pod %s not re-adopted: process %d alive %v, the runtime records pid %d", name, k.pid, alive(k.pid), pids[id]))
		case !measured[k.uid]:
			pending = append(pending, fmt.Sprintf("pod %s not re-adopted: the kubelet's summary measures no memory of its container", name))
		}
	}
	return pending
}

// duplicates finds pods running twice: two processes for one pod, or
// more pods of a controller than it has slots.
func (l *load) duplicates(ctx context.Context) []string {
	var out []string
	for name, pids := range podProcesses(l.run) {
		if len(pids) > 1 {
			out = append(out, fmt.Sprintf("pod %s has %d processes %v", name, len(pids), pids))
		}
	}
	pods, err := l.cs.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return append(out, fmt.Sprintf("list pods: %v", err))
	}
	perOwner := map[string][]string{}
	for _, p := range pods.Items {
		if p.DeletionTimestamp != nil || p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded {
			continue
		}
		for _, o := range p.OwnerReferences {
			if o.Controller != nil && *o.Controller {
				perOwner[o.Kind+"/"+o.Name] = append(perOwner[o.Kind+"/"+o.Name], p.Name)
			}
		}
	}
	rss, err := l.cs.AppsV1().ReplicaSets(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return append(out, fmt.Sprintf("list replicasets: %v", err))
	}
	slots := map[string]int{}
	for _, rs := range rss.Items {
		if rs.Spec.Replicas != nil {
			slots["ReplicaSet/"+rs.Name] = int(*rs.Spec.Replicas)
		}
	}
	owners := make([]string, 0, len(perOwner))
	for o := range perOwner {
		owners = append(owners, o)
	}
	slices.Sort(owners)
	for _, o := range owners {
		want, ok := slots[o]
		if strings.HasPrefix(o, "Job/") {
			want, ok = 1, true
		}
		if ok && len(perOwner[o]) > want {
			out = append(out, fmt.Sprintf("%s has %d pods for %d slots: %v", o, len(perOwner[o]), want, perOwner[o]))
		}
	}
	return out
}

// kubeletMeasures asks the kubelet (through the API server's node proxy)
// for its stats summary: the UIDs of the pods whose container memory it
// measures, which it reads from the live processes its runtime holds.
func (l *load) kubeletMeasures(ctx context.Context) (map[string]bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, l.host+"/api/v1/nodes/"+l.node+"/proxy/stats/summary", nil)
	if err != nil {
		return nil, err
	}
	resp, err := l.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET stats/summary: %s", resp.Status)
	}
	var summary struct {
		Pods []struct {
			PodRef struct {
				UID string `json:"uid"`
			} `json:"podRef"`
			Containers []struct {
				Memory struct {
					RSSBytes uint64 `json:"rssBytes"`
				} `json:"memory"`
			} `json:"containers"`
		} `json:"pods"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&summary); err != nil {
		return nil, fmt.Errorf("decode stats/summary: %w", err)
	}
	out := map[string]bool{}
	for _, p := range summary.Pods {
		out[p.PodRef.UID] = len(p.Containers) > 0 && p.Containers[0].Memory.RSSBytes > 0
	}
	return out, nil
}
