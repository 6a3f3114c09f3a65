package job

import (
	"testing"
	"time"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/types"
)

var now = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

func newJob(completions, parallelism *int32) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pi", UID: "job-uid"},
		Spec: batchv1.JobSpec{
			Completions: completions, Parallelism: parallelism, BackoffLimit: ptr[int32](2),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "pi"}},
				Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "i"}}},
			},
		},
	}
}

func pod(name string, phase corev1.PodPhase, opts ...func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name), Finalizers: []string{batchv1.JobTrackingFinalizer}, CreationTimestamp: metav1.NewTime(now)},
		Status: corev1.PodStatus{Phase: phase}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func deleting(p *corev1.Pod) { ts := metav1.NewTime(now); p.DeletionTimestamp = &ts }
func restarted(n int32) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "c", RestartCount: n}}
	}
}
func index(i string) func(*corev1.Pod) {
	return func(p *corev1.Pod) { p.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: i} }
}

func TestWantActive(t *testing.T) {
	tests := []struct {
		name                     string
		completions, parallelism *int32
		succeeded                int32
		active                   int
		want                     int32
	}{
		{"bounded by parallelism", ptr[int32](10), ptr[int32](3), 0, 0, 3},
		{"bounded by what is left", ptr[int32](10), ptr[int32](3), 9, 0, 1},
		{"done", ptr[int32](2), ptr[int32](3), 2, 0, 0},
		{"parallelism 0 pauses", ptr[int32](2), ptr[int32](0), 0, 0, 0},
		{"work queue before a success", nil, ptr[int32](4), 0, 1, 4},
		{"work queue after a success keeps the running", nil, ptr[int32](4), 1, 2, 2},
	}
	for _, tt := range tests {
		o := &observed{succeeded: tt.succeeded}
		for range tt.active {
			o.active = append(o.active, pod("p", corev1.PodRunning))
		}
		if got := wantActive(newJob(tt.completions, tt.parallelism), o); got != tt.want {
			t.Errorf("%s: wantActive = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestFailureReason(t *testing.T) {
	onFailure := func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure }
	deadline := func(j *batchv1.Job) {
		j.Spec.ActiveDeadlineSeconds = ptr[int64](10)
		ts := metav1.NewTime(now.Add(-10 * time.Second))
		j.Status.StartTime = &ts
	}
	tests := []struct {
		name   string
		mutate func(*batchv1.Job)
		failed int32
		active []*corev1.Pod
		want   string
	}{
		{name: "within the limit", failed: 2},
		{name: "past the limit", failed: 3, want: "BackoffLimitExceeded"},
		{name: "restarts ignored under Never", active: []*corev1.Pod{pod("a", corev1.PodRunning, restarted(5))}},
		{name: "restarts count under OnFailure", mutate: onFailure, active: []*corev1.Pod{pod("a", corev1.PodRunning, restarted(1)), pod("b", corev1.PodPending, restarted(1))}, want: "BackoffLimitExceeded"},
		{name: "one restart short", mutate: onFailure, active: []*corev1.Pod{pod("a", corev1.PodRunning, restarted(1))}},
		{name: "limit 0 fails on the first restart", mutate: func(j *batchv1.Job) { onFailure(j); j.Spec.BackoffLimit = ptr[int32](0) },
			active: []*corev1.Pod{pod("a", corev1.PodRunning, restarted(1))}, want: "BackoffLimitExceeded"},
		{name: "deadline reached", mutate: deadline, want: "DeadlineExceeded"},
		{name: "deadline not counted while suspended", mutate: func(j *batchv1.Job) { deadline(j); j.Spec.Suspend = ptr(true) }},
	}
	for _, tt := range tests {
		j := newJob(ptr[int32](3), ptr[int32](1))
		if tt.mutate != nil {
			tt.mutate(j)
		}
		reason, _, fail := failureReason(j, &observed{failed: tt.failed, active: tt.active}, now)
		if reason != tt.want || fail != (tt.want != "") {
			t.Errorf("%s: reason %q (fail %v), want %q", tt.name, reason, fail, tt.want)
		}
	}
}

func TestSucceededEnough(t *testing.T) {
	indexed := newJob(ptr[int32](3), ptr[int32](3))
	indexed.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
	running := []*corev1.Pod{pod("a", corev1.PodRunning)}
	for _, tt := range []struct {
		name string
		job  *batchv1.Job
		o    observed
		want bool
	}{
		{"completions reached", newJob(ptr[int32](3), nil), observed{succeeded: 3}, true},
		{"completions missing", newJob(ptr[int32](3), nil), observed{succeeded: 2}, false},
		{"work queue with a pod running", newJob(nil, ptr[int32](2)), observed{succeeded: 1, active: running}, false},
		{"work queue drained", newJob(nil, ptr[int32](2)), observed{succeeded: 1}, true},
		{"indexed all", indexed, observed{completed: parseIndexes("0-2", 3)}, true},
		{"indexed some (succeeded counts do not matter)", indexed, observed{succeeded: 5, completed: parseIndexes("0,2", 3)}, false},
	} {
		if got := succeededEnough(tt.job, &tt.o); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestTrackerCountsOnce(t *testing.T) {
	j := newJob(ptr[int32](3), ptr[int32](3))
	pods := []*corev1.Pod{
		pod("ok", corev1.PodSucceeded), pod("bad", corev1.PodFailed), pod("gone", corev1.PodRunning, deleting),
		pod("run", corev1.PodRunning), pod("old", corev1.PodSucceeded, func(p *corev1.Pod) { p.Finalizers = nil }),
	}
	removed := map[types.UID]bool{}
	var failures, successes int
	t1 := newTracker(j)
	release := t1.observe(pods, func(u types.UID) bool { return removed[u] }, func(failed bool) {
		if failed {
			failures++
		} else {
			successes++
		}
	})
	if len(release) != 3 || failures != 2 || successes != 1 || !t1.recorded {
		t.Fatalf("release %d, failures %d, successes %d", len(release), failures, successes)
	}
	t1.writeUncounted(j)
	if u := j.Status.UncountedTerminatedPods; len(u.Succeeded) != 1 || len(u.Failed) != 2 {
		t.Fatalf("uncounted %+v", u)
	}
	// The finalizer of "ok" is off, the others' removal failed: only "ok"
	// moves to the counters.
	removed["ok"] = true
	t1.count(j, pods, func(u types.UID) bool { return removed[u] })
	if j.Status.Succeeded != 1 || j.Status.Failed != 0 || len(j.Status.UncountedTerminatedPods.Failed) != 2 {
		t.Fatalf("after the first count: %+v", j.Status)
	}
	// The next sync, from the stale cache that still shows "ok" with its
	// finalizer, neither records nor counts anything twice.
	t2 := newTracker(j)
	release = t2.observe(pods, func(u types.UID) bool { return removed[u] }, func(bool) { t.Error("a pod was recorded twice") })
	if t2.recorded || len(release) != 2 {
		t.Fatalf("second pass: recorded %v, release %d", t2.recorded, len(release))
	}
	removed["bad"], removed["gone"] = true, true
	t2.count(j, pods, func(u types.UID) bool { return removed[u] })
	if j.Status.Succeeded != 1 || j.Status.Failed != 2 || len(j.Status.UncountedTerminatedPods.Failed) != 0 {
		t.Fatalf("after the second count: %+v", j.Status)
	}
}

func TestTrackerSuspendedDeletionIsNoFailure(t *testing.T) {
	j := newJob(ptr[int32](1), nil)
	j.Spec.Suspend = ptr(true)
	tr := newTracker(j)
	release := tr.observe([]*corev1.Pod{pod("gone", corev1.PodRunning, deleting)}, func(types.UID) bool { return false }, func(bool) {
		t.Error("a pod deleted by suspension was counted")
	})
	if len(release) != 1 || tr.recorded {
		t.Fatalf("release %d recorded %v", len(release), tr.recorded)
	}
}

func TestIndexedExcess(t *testing.T) {
	j := newJob(ptr[int32](3), ptr[int32](3))
	j.Spec.CompletionMode = ptr(batchv1.IndexedCompletion)
	older := func(p *corev1.Pod) { p.CreationTimestamp = metav1.NewTime(now.Add(-time.Minute)) }
	active := []*corev1.Pod{
		pod("a", corev1.PodRunning, index("0"), older), pod("dup", corev1.PodRunning, index("0")),
		pod("done", corev1.PodRunning, index("1")), pod("big", corev1.PodRunning, index("7")),
		pod("none", corev1.PodRunning), pod("b", corev1.PodRunning, index("2")),
	}
	excess, held := indexedExcess(j, active, parseIndexes("1", 3))
	var names []string
	for _, p := range excess {
		names = append(names, p.Name)
	}
	if len(names) != 4 || held.String() != "0,2" {
		t.Fatalf("excess %v held %s", names, held)
	}
	for _, n := range names {
		if n == "a" || n == "b" {
			t.Fatalf("kept the wrong pods: excess %v", names)
		}
	}
}

func TestBackoffDelay(t *testing.T) {
	for failures, want := range map[int]time.Duration{0: 0, 1: 10 * time.Second, 2: 20 * time.Second, 3: 40 * time.Second, 6: 320 * time.Second, 7: 6 * time.Minute, 40: 6 * time.Minute} {
		if got := backoffDelay(failures, 10*time.Second, 6*time.Minute); got != want {
			t.Errorf("backoffDelay(%d) = %s, want %s", failures, got, want)
		}
	}
}

func TestNewPodIndexed(t *testing.T) {
	j := newJob(ptr[int32](3), nil)
	j.Spec.Template.Spec.InitContainers = []corev1.Container{{Name: "init", Image: "i"}}
	p, err := newPod(j, metav1.NewControllerRef(j, controllerKind), 2)
	if err != nil {
		t.Fatal(err)
	}
	if p.GenerateName != "pi-2-" || p.Annotations[batchv1.JobCompletionIndexAnnotation] != "2" || p.Labels[batchv1.JobCompletionIndexLabel] != "2" ||
		p.Spec.Hostname != "pi-2" || len(p.Spec.Containers[0].Env) != 1 || len(p.Spec.InitContainers[0].Env) != 1 ||
		p.Finalizers[0] != batchv1.JobTrackingFinalizer {
		t.Fatalf("pod %+v", p)
	}
	if _, ok := j.Spec.Template.Labels[batchv1.JobCompletionIndexLabel]; ok || len(j.Spec.Template.Spec.Containers[0].Env) != 0 {
		t.Fatal("newPod changed the template")
	}
	plain, err := newPod(j, metav1.NewControllerRef(j, controllerKind), -1)
	if err != nil {
		t.Fatal(err)
	}
	if plain.GenerateName != "pi-" || plain.Spec.Hostname != "" || len(plain.Spec.Containers[0].Env) != 0 {
		t.Fatalf("non-indexed pod %+v", plain)
	}
}
