package job

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/tools/cache"
)

// fakeAPI stands in for the API server: it stores Job statuses with a
// growing resourceVersion and counts pod creations and patches.
type fakeAPI struct {
	// mu guards the fields: the controller creates, deletes and patches
	// pods in parallel.
	mu       sync.Mutex
	rv       int
	statuses []batchv1.JobStatus
	created  int
	patched  []string
	// pods are the pods created; deleted the names of those deleted; last
	// the Job as last written.
	pods    []*corev1.Pod
	deleted []string
	last    *batchv1.Job
}

func (f *fakeAPI) Get(context.Context, string, metav1.GetOptions) (*batchv1.Job, error) {
	return nil, nil
}

func (f *fakeAPI) UpdateStatus(_ context.Context, j *batchv1.Job, _ metav1.UpdateOptions) (*batchv1.Job, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rv++
	out := j.DeepCopy()
	out.ResourceVersion = strconv.Itoa(f.rv)
	f.statuses = append(f.statuses, out.Status)
	f.last = out
	return out, nil
}

func (f *fakeAPI) Delete(context.Context, string, metav1.DeleteOptions) error { return nil }

func (f *fakeAPI) CreatePod(_ context.Context, p *corev1.Pod, _ runtime.Object) (*corev1.Pod, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.created++
	f.pods = append(f.pods, p)
	return p, nil
}

func (f *fakeAPI) DeletePod(_ context.Context, _, name string, _ runtime.Object) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deleted = append(f.deleted, name)
	return nil
}

// TestStaleCacheCreatesNothing syncs twice from the same cache: the second
// sync sees the Job as it was before the first one counted a finished
// pod (whose finalizer is gone), and must wait for the cache rather than
// create a pod for a completion already done.
func TestStaleCacheCreatesNothing(t *testing.T) {
	job := newJob(ptr[int32](2), ptr[int32](2))
	job.ResourceVersion = "5"
	job.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "pi"}}
	ts := metav1.NewTime(now)
	job.Status.StartTime = &ts
	ref := metav1.NewControllerRef(job, controllerKind)
	owned := func(p *corev1.Pod) {
		p.Labels = map[string]string{"app": "pi"}
		p.OwnerReferences = []metav1.OwnerReference{*ref}
	}
	jobs, pods := cache.NewIndexer[*batchv1.Job](), cache.NewIndexer[*corev1.Pod]()
	if err := jobs.Add(job); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*corev1.Pod{pod("done", corev1.PodSucceeded, owned), pod("running", corev1.PodRunning, owned)} {
		if err := pods.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	api := &fakeAPI{rv: 5}
	c := newController(func(string) JobClient { return api },
		func(_ context.Context, _, name string, _ types.PatchType, _ []byte) error {
			api.patched = append(api.patched, name)
			return nil
		},
		api, nil, cache.NewLister(jobs, batchv1.Resource("jobs")), cache.NewLister(pods, corev1.Resource("pods")), Options{Now: func() time.Time { return now }})
	for i := range 2 {
		if err := c.sync(context.Background(), "ns/pi"); err != nil {
			t.Fatalf("sync %d: %v", i, err)
		}
	}
	if api.created != 0 {
		t.Errorf("created %d pods; one pod runs and one succeeded of 2 completions", api.created)
	}
	if len(api.patched) != 1 || api.patched[0] != "done" {
		t.Errorf("finalizers removed from %v, want [done]", api.patched)
	}
	last := api.statuses[len(api.statuses)-1]
	if last.Succeeded != 1 || last.Active != 1 || len(last.UncountedTerminatedPods.Succeeded) != 0 {
		t.Errorf("status %+v", last)
	}
}
