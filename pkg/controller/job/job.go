// Package job is the Job controller: it runs a Job's pods to completion
// (parallelism, completions, Indexed completion), retries failed pods with
// exponential back-off up to the backoff limit, enforces the active
// deadline, suspends and resumes, counts finished pods through the
// batch.kubernetes.io/job-tracking finalizer so that no count is lost,
// applies the pod failure policy (FailJob, FailIndex, Ignore, Count), the
// success policy, backoffLimitPerIndex with maxFailedIndexes and the pod
// replacement policy, writes the Job's conditions and counters, and
// deletes finished Jobs after ttlSecondsAfterFinished.
package job

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	batchv1 "kubecore.io/api/batch/v1"
	corev1 "kubecore.io/api/core/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/controller"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/tools/record"
	"kubecore.io/client/typed"

	"k8s.io/klog/v2"

	"kubecore.io/kubecore/pkg/controller/podcontrol"
)

// Name is the controller's name in the controller-manager and its queue.
const Name = "job"

// Defaults of Options.
const (
	// DefaultPodFailureBackOff is the delay before pods are created again
	// after one failure; it doubles with each further failure.
	DefaultPodFailureBackOff = 10 * time.Second
	// DefaultMaxPodFailureBackOff bounds that delay.
	DefaultMaxPodFailureBackOff = 10 * time.Minute
	// DefaultMaxRequestsInFlight bounds the pod creates, deletes or patches
	// one sync has in flight.
	DefaultMaxRequestsInFlight = 64
)

// controllerKind is the kind of the owner references the controller sets.
var controllerKind = batchv1.SchemeGroupVersion.WithKind("Job")

// removeFinalizerPatch is the strategic merge patch that takes the
// tracking finalizer off a pod, leaving any other finalizer.
var removeFinalizerPatch = []byte(`{"metadata":{"$deleteFromPrimitiveList/finalizers":["` + batchv1.JobTrackingFinalizer + `"]}}`)

// JobClient reads, deletes and writes the status of the Jobs of one
// namespace; the typed client satisfies it.
type JobClient interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*batchv1.Job, error)
	UpdateStatus(ctx context.Context, job *batchv1.Job, opts metav1.UpdateOptions) (*batchv1.Job, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
}

// PatchPodFunc patches a pod with a patch of type pt.
type PatchPodFunc func(ctx context.Context, namespace, name string, pt types.PatchType, patch []byte) error

// Options tune a Controller; the zero value gives the defaults.
type Options struct {
	// Recorder records the controller's Events; nil means none.
	Recorder record.EventRecorder
	// PodFailureBackOff and MaxPodFailureBackOff are the first and the
	// longest delay before failed pods are replaced.
	PodFailureBackOff, MaxPodFailureBackOff time.Duration
	// MaxRequestsInFlight bounds the API calls of one sync that run at
	// once.
	MaxRequestsInFlight int
	// Now reads the clock; nil means time.Now.
	Now func() time.Time
}

// Controller is the Job controller.
type Controller struct {
	*controller.Controller
	jobs         func(namespace string) JobClient
	patchPod     PatchPodFunc
	podControl   podcontrol.Interface
	recorder     record.EventRecorder
	jobLister    cache.Lister[*batchv1.Job]
	podLister    cache.Lister[*corev1.Pod]
	orphans      *controller.Queue
	expectations *controller.UIDTrackingExpectations
	opts         Options

	// removed holds the pods whose finalizer the controller removed and
	// whose informer has not shown it yet: they are never counted twice.
	removed uidSet
	// written holds the status versions the cache has yet to show.
	written writtenVersions
	// backoff is the failure history of each Job, for the pod back-off.
	mu      sync.Mutex
	backoff map[string]backoffRecord
}

// backoffRecord counts a Job's pod failures since its last success.
type backoffRecord struct {
	failures    int
	lastFailure time.Time
}

// Client is what the controller asks of the API server; *typed.Clientset
// satisfies it.
type Client interface {
	CoreV1() typed.CoreV1
	BatchV1() typed.BatchV1
}

// New returns a Job controller working through client, fed by the
// informers of factory.
func New(client Client, factory *informers.SharedInformerFactory, opts Options) (*Controller, error) {
	c := newController(
		func(ns string) JobClient { return client.BatchV1().Jobs(ns) },
		func(ctx context.Context, ns, name string, pt types.PatchType, patch []byte) error {
			_, err := client.CoreV1().Pods(ns).Patch(ctx, name, pt, patch, metav1.PatchOptions{})
			return err
		},
		podcontrol.PodControl{Pods: func(ns string) podcontrol.PodWriter { return client.CoreV1().Pods(ns) }, Recorder: opts.Recorder},
		opts.Recorder, cache.Lister[*batchv1.Job]{}, cache.Lister[*corev1.Pod]{}, opts)
	jobInformer := controller.Informer(c.Controller, factory, informers.Jobs)
	podInformer := controller.Informer(c.Controller, factory, informers.Pods)
	c.jobLister, c.podLister = jobInformer.Lister(), podInformer.Lister()
	controller.Watch(c, jobInformer, controller.ForgetOnDelete[*batchv1.Job](c.forget))
	controller.Watch(c, podInformer, controller.Owned[*batchv1.Job, *corev1.Pod]{
		Kind:         controllerKind.GroupKind(),
		Owners:       c.jobLister,
		Expectations: c.expectations,
	}.Handler(c))
	controller.Watch(c.orphans, podInformer, controller.Handler[*corev1.Pod]{
		Add: c.orphanKeys,
		Update: func(old, cur *corev1.Pod) []string {
			if old.ResourceVersion == cur.ResourceVersion {
				return nil
			}
			if !hasFinalizer(cur) {
				c.removed.delete(cur.UID)
			}
			return c.orphanKeys(cur)
		},
		Delete: func(pod *corev1.Pod) []string {
			c.removed.delete(pod.UID)
			return c.orphanKeys(pod)
		},
	})
	return c, c.Err()
}

func newController(jobs func(string) JobClient, patchPod PatchPodFunc, podControl podcontrol.Interface, recorder record.EventRecorder,
	jobLister cache.Lister[*batchv1.Job], podLister cache.Lister[*corev1.Pod], opts Options) *Controller {
	opts.PodFailureBackOff = controller.OrDefault(opts.PodFailureBackOff, DefaultPodFailureBackOff)
	opts.MaxPodFailureBackOff = controller.OrDefault(opts.MaxPodFailureBackOff, DefaultMaxPodFailureBackOff)
	opts.MaxRequestsInFlight = controller.OrDefault(opts.MaxRequestsInFlight, DefaultMaxRequestsInFlight)
	opts.Now = controller.OrNow(opts.Now)
	c := &Controller{
		jobs:         jobs,
		patchPod:     patchPod,
		podControl:   podControl,
		recorder:     record.OrDiscard(recorder),
		jobLister:    jobLister,
		podLister:    podLister,
		expectations: controller.NewUIDTrackingExpectations(nil),
		opts:         opts,
		removed:      uidSet{m: map[types.UID]struct{}{}},
		written:      writtenVersions{m: map[string]uint64{}},
		backoff:      map[string]backoffRecord{},
	}
	// Pods whose Job is gone have their tracking finalizer removed by one
	// worker of a queue of their own.
	c.Controller = controller.New(Name, c.sync)
	c.orphans = c.AddQueue(Name+"-orphan-pods", c.syncOrphanPod, controller.QueueOptions{Workers: 1})
	return c
}

// forget drops what the controller remembers of a Job.
func (c *Controller) forget(key string) {
	c.expectations.DeleteExpectations(key)
	c.written.forget(key)
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.backoff, key)
}

// orphanKeys maps a pod with the tracking finalizer whose Job is unknown
// to its own key, for the orphan queue.
func (c *Controller) orphanKeys(pod *corev1.Pod) []string {
	if !hasFinalizer(pod) {
		return nil
	}
	if _, ok := controller.ResolveControllerRef(metav1.GetControllerOf(pod), controllerKind.GroupKind(), c.jobLister.Namespaced(pod.Namespace).Get); ok {
		return nil
	}
	return controller.KeyOf(pod)
}

func hasFinalizer(p *corev1.Pod) bool {
	return slices.Contains(p.Finalizers, batchv1.JobTrackingFinalizer)
}

func metaTime(t time.Time) metav1.Time { return metav1.NewTime(t.Truncate(time.Second)) }

// uidSet is a set of pod uids safe for concurrent use.
type uidSet struct {
	mu sync.Mutex
	m  map[types.UID]struct{}
}

func (s *uidSet) add(uid types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[uid] = struct{}{}
}

func (s *uidSet) delete(uid types.UID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, uid)
}

func (s *uidSet) has(uid types.UID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.m[uid]
	return ok
}

// syncOrphanPod takes the tracking finalizer off a pod whose Job is gone
// (checked with a GET, not the cache) or that no Job controls any more.
func (c *Controller) syncOrphanPod(ctx context.Context, key string) error {
	pod, ok, err := controller.Get(ctx, c.podLister, key)
	if !ok {
		return err
	}
	if !hasFinalizer(pod) {
		return nil
	}
	if ref := metav1.GetControllerOf(pod); ref != nil && ref.Kind == controllerKind.Kind {
		j, err := c.jobs(pod.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		switch {
		case err == nil && j.UID == ref.UID:
			return nil // the Job lives: its sync counts the pod
		case err != nil && !apierrors.IsNotFound(err):
			return err
		}
	}
	return c.removeFinalizers(ctx, []*corev1.Pod{pod})
}

// removeFinalizers takes the tracking finalizer off pods; those done (or
// gone) are remembered so that a stale cache does not count them again.
func (c *Controller) removeFinalizers(ctx context.Context, pods []*corev1.Pod) error {
	err := controller.Parallel(len(pods), c.opts.MaxRequestsInFlight, func(i int) error {
		p := pods[i]
		err := c.patchPod(ctx, p.Namespace, p.Name, types.StrategicMergePatchType, removeFinalizerPatch)
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("remove the tracking finalizer of pod %s/%s: %w", p.Namespace, p.Name, err)
		}
		c.removed.add(p.UID)
		return nil
	})
	return err
}

// sync brings the Job named by key to its desired pods and status.
func (c *Controller) sync(ctx context.Context, key string) error {
	logger := klog.FromContext(ctx)
	shared, ok, err := controller.Get(ctx, c.jobLister, key)
	if !ok {
		c.forget(key)
		return err
	}
	if !c.written.observed(key, shared.ResourceVersion) {
		// The cache is behind this controller's last write; the Job's
		// update event syncs it again.
		return nil
	}
	if isFinished(shared) {
		var tracked []*corev1.Pod
		for _, p := range c.ownedPods(shared) {
			if hasFinalizer(p) && !c.removed.has(p.UID) {
				tracked = append(tracked, p)
			}
		}
		if err := c.removeFinalizers(ctx, tracked); err != nil {
			return err
		}
		return c.expireTTL(ctx, key, shared)
	}
	selector, err := metav1.LabelSelectorAsSelector(shared.Spec.Selector)
	if err != nil {
		// Validation forbids this; retrying cannot fix it.
		logger.Error(err, "Invalid selector", "job", klog.KObj(shared))
		return nil
	}
	satisfied := c.expectations.SatisfiedExpectations(key)
	pods, err := c.claimPods(ctx, shared, selector)
	if err != nil {
		return err
	}
	job := shared.DeepCopy()
	now := c.opts.Now()

	// Count finished pods: record them as uncounted, take their
	// finalizers off, then move them to the counters.
	t := newTracker(job)
	release := t.observe(pods, c.removed.has, func(failed bool) {
		if failed {
			c.recordFailure(key, now)
		} else {
			c.recordSuccess(key)
		}
	})
	if t.failJob != "" && condition(job, batchv1.JobFailureTarget) == nil && condition(job, batchv1.JobSuccessCriteriaMet) == nil {
		// Written with the pod that matched, before its finalizer goes.
		setCondition(job, batchv1.JobFailureTarget, corev1.ConditionTrue, batchv1.JobReasonPodFailurePolicy, t.failJob, now)
	}
	if t.recorded {
		t.writeUncounted(job)
		if job, err = c.updateStatus(ctx, key, job); err != nil {
			return ignoreConflict(err)
		}
	}
	releaseErr := c.removeFinalizers(ctx, release)
	t.count(job, pods, c.removed.has)

	o := observePods(job, pods, t)
	var manageErr error
	if job.DeletionTimestamp == nil {
		manageErr = c.manage(ctx, key, job, o, now, satisfied)
	}
	job.Status.Active = int32(len(o.active)) + o.created
	job.Status.Ready = &o.ready
	job.Status.Terminating = &o.terminating
	if !reflect.DeepEqual(job.Status, shared.Status) {
		if _, err := c.updateStatus(ctx, key, job); err != nil {
			return errors.Join(releaseErr, manageErr, ignoreConflict(err))
		}
		c.recordFinish(shared, job)
	}
	return errors.Join(releaseErr, manageErr)
}

// ignoreConflict drops a conflict of a status write: the cache is behind
// a newer Job, whose event syncs the Job again; the expectations keep that
// sync from acting twice.
func ignoreConflict(err error) error {
	if apierrors.IsConflict(err) {
		return nil
	}
	return err
}

// ownedPods returns the pods job controls, from the cache.
func (c *Controller) ownedPods(job *batchv1.Job) []*corev1.Pod {
	all, _ := c.podLister.Namespaced(job.Namespace).List(labels.Everything())
	var out []*corev1.Pod
	for _, p := range all {
		if ref := metav1.GetControllerOf(p); ref != nil && ref.UID == job.UID {
			out = append(out, p)
		}
	}
	return out
}

// claimPods adopts matching orphans and releases owned pods that stopped
// matching; it returns the pods job controls.
func (c *Controller) claimPods(ctx context.Context, job *batchv1.Job, selector labels.Selector) ([]*corev1.Pod, error) {
	canAdopt := controller.RecheckDeletionTimestamp(job, func(ctx context.Context) (metav1.Object, error) {
		return c.jobs(job.Namespace).Get(ctx, job.Name, metav1.GetOptions{})
	})
	patch := func(ctx context.Context, ns, name string, p []byte) error {
		return c.patchPod(ctx, ns, name, types.MergePatchType, p)
	}
	return controller.ClaimFrom(ctx, controller.NewRefManager[*corev1.Pod](job, controllerKind, selector, patch, canAdopt), c.podLister)
}

// recordFailure and recordSuccess keep the failure history of the pod
// back-off.
func (c *Controller) recordFailure(key string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.backoff[key]
	r.failures++
	if at.After(r.lastFailure) {
		r.lastFailure = at
	}
	c.backoff[key] = r
}

func (c *Controller) recordSuccess(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.backoff, key)
}

// backoffRemaining is how long key's Job must still wait before creating
// pods.
func (c *Controller) backoffRemaining(key string, now time.Time) time.Duration {
	c.mu.Lock()
	r := c.backoff[key]
	c.mu.Unlock()
	if r.failures == 0 {
		return 0
	}
	return r.lastFailure.Add(backoffDelay(r.failures, c.opts.PodFailureBackOff, c.opts.MaxPodFailureBackOff)).Sub(now)
}

// manage sets the Job's conditions and creates or deletes pods.
func (c *Controller) manage(ctx context.Context, key string, job *batchv1.Job, o *observed, now time.Time, satisfied bool) error {
	if condition(job, batchv1.JobFailureTarget) == nil && condition(job, batchv1.JobSuccessCriteriaMet) == nil {
		if reason, msg, fail := failureReason(job, o, now); fail {
			setCondition(job, batchv1.JobFailureTarget, corev1.ConditionTrue, reason, msg, now)
		} else if msg, met := successPolicyMet(job, o.completed); met && isIndexed(job) {
			setCondition(job, batchv1.JobSuccessCriteriaMet, corev1.ConditionTrue, batchv1.JobReasonSuccessPolicy, msg, now)
		} else if succeededEnough(job, o) {
			setCondition(job, batchv1.JobSuccessCriteriaMet, corev1.ConditionTrue, batchv1.JobReasonCompletionsReached, msgCompletions, now)
		}
	}
	target, met := condition(job, batchv1.JobFailureTarget), condition(job, batchv1.JobSuccessCriteriaMet)
	if target != nil || met != nil {
		// The outcome is known: stop what runs, then finish.
		err := c.deletePods(ctx, key, job, o, o.active)
		unc := job.Status.UncountedTerminatedPods
		if len(o.active) == 0 && o.terminating == 0 && (unc == nil || len(unc.Succeeded)+len(unc.Failed) == 0) {
			if target != nil {
				setCondition(job, batchv1.JobFailed, corev1.ConditionTrue, target.Reason, target.Message, now)
			} else {
				setCondition(job, batchv1.JobComplete, corev1.ConditionTrue, met.Reason, met.Message, now)
				ts := metaTime(now)
				job.Status.CompletionTime = &ts
			}
		}
		return err
	}
	if deref(job.Spec.Suspend, false) {
		if setCondition(job, batchv1.JobSuspended, corev1.ConditionTrue, batchv1.JobReasonSuspended, msgSuspended, now) {
			c.recorder.Event(job, corev1.EventTypeNormal, "Suspended", msgSuspended)
		}
		if !satisfied {
			return nil
		}
		return c.deletePods(ctx, key, job, o, o.active)
	}
	if condition(job, batchv1.JobSuspended) != nil {
		setCondition(job, batchv1.JobSuspended, corev1.ConditionFalse, batchv1.JobReasonResumed, msgResumed, now)
		c.recorder.Event(job, corev1.EventTypeNormal, "Resumed", msgResumed)
		job.Status.StartTime = nil
	}
	if job.Status.StartTime == nil {
		ts := metaTime(now)
		job.Status.StartTime = &ts
	}
	if d := job.Spec.ActiveDeadlineSeconds; d != nil {
		c.Queue().AddAfter(key, job.Status.StartTime.Add(time.Duration(*d)*time.Second).Sub(now))
	}
	if !satisfied {
		return nil
	}
	if isIndexed(job) {
		done := o.completed
		if len(o.failedIndexes) > 0 {
			done = maps.Clone(o.completed)
			maps.Copy(done, o.failedIndexes)
		}
		excess, held := indexedExcess(job, o.active, done)
		if err := c.deletePods(ctx, key, job, o, excess); err != nil {
			return err
		}
		if onlyReplaceFailedPods(job) {
			// A terminating pod keeps its index (and its place within
			// parallelism) until it has failed.
			held = maps.Clone(held)
			for _, p := range o.terminatingPods {
				if ix := podIndex(p); ix >= 0 {
					held[ix] = struct{}{}
				}
			}
		}
		want := int(deref(job.Spec.Parallelism, 1)) - len(held)
		pending := pendingIndexes(int(deref(job.Spec.Completions, 0)), done, held, want)
		if hasBackoffLimitPerIndex(job) {
			pending = c.indexesPastBackoff(key, o, pending, now)
		}
		return c.createPods(ctx, key, job, o, pending, now)
	}
	diff := int(wantActive(job, o)) - len(o.active)
	if diff < 0 {
		return c.deletePods(ctx, key, job, o, podsToDelete(o.active, -diff))
	}
	if onlyReplaceFailedPods(job) {
		// Pods being deleted are replaced only once they have failed.
		diff = max(0, diff-int(o.terminating))
	}
	indexes := make([]int, diff)
	for i := range indexes {
		indexes[i] = -1
	}
	return c.createPods(ctx, key, job, o, indexes, now)
}

// createPods creates one pod per entry of indexes (-1: no index), in
// slow-start batches, unless the failure back-off says to wait.
func (c *Controller) createPods(ctx context.Context, key string, job *batchv1.Job, o *observed, indexes []int, now time.Time) error {
	n := len(indexes)
	if n <= 0 {
		return nil
	}
	if wait := c.backoffRemaining(key, now); wait > 0 && !hasBackoffLimitPerIndex(job) {
		c.Queue().AddAfter(key, wait)
		return nil
	}
	c.expectations.ExpectCreations(key, n)
	ref := metav1.NewControllerRef(job, controllerKind)
	var next atomic.Int64
	created, err := controller.SlowStartBatch(n, 1, c.opts.MaxRequestsInFlight, func() error {
		ix := indexes[next.Add(1)-1]
		pod, err := newPod(job, ref, ix)
		if err != nil {
			return err
		}
		if hasBackoffLimitPerIndex(job) {
			h := o.indexHistory[ix]
			pod.Annotations[batchv1.JobIndexFailureCountAnnotation] = strconv.Itoa(int(h.failures))
			if h.ignored > 0 {
				pod.Annotations[batchv1.JobIndexIgnoredFailureCountAnnotation] = strconv.Itoa(int(h.ignored))
			}
		}
		_, err = c.podControl.CreatePod(ctx, pod, job)
		return err
	})
	klog.FromContext(ctx).V(2).Info("Created pods", "job", klog.KObj(job), "created", created, "wanted", n)
	for range n - created {
		c.expectations.CreationObserved(key)
	}
	o.created += int32(created)
	if err != nil {
		return fmt.Errorf("create pods for %s: %w", key, err)
	}
	return nil
}

// indexesPastBackoff returns the pending indexes whose retry delay (the
// pod back-off doubled per failure of the index, from its last failure)
// has passed, and looks at the Job again when the first other one ends.
func (c *Controller) indexesPastBackoff(key string, o *observed, pending []int, now time.Time) []int {
	var ready []int
	var wait time.Duration
	for _, ix := range pending {
		h := o.indexHistory[ix]
		left := h.lastFailure.Add(backoffDelay(int(h.failures), c.opts.PodFailureBackOff, c.opts.MaxPodFailureBackOff)).Sub(now)
		if h.failures == 0 || left <= 0 {
			ready = append(ready, ix)
			continue
		}
		if wait == 0 || left < wait {
			wait = left
		}
	}
	if wait > 0 {
		c.Queue().AddAfter(key, wait)
	}
	return ready
}

// newPod makes a pod of job from its template, with the tracking
// finalizer and, for an index >= 0, the completion index.
func newPod(job *batchv1.Job, ref *metav1.OwnerReference, index int) (*corev1.Pod, error) {
	pod, err := podcontrol.NewPod(&job.Spec.Template, job, ref)
	if err != nil {
		return nil, err
	}
	pod.Finalizers = append(pod.Finalizers, batchv1.JobTrackingFinalizer)
	if index < 0 {
		return pod, nil
	}
	ix := strconv.Itoa(index)
	pod.GenerateName = job.Name + "-" + ix + "-"
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[batchv1.JobCompletionIndexAnnotation] = ix
	pod.Labels = maps.Clone(pod.Labels)
	pod.Labels[batchv1.JobCompletionIndexLabel] = ix
	if hostname := job.Name + "-" + ix; pod.Spec.Hostname == "" && len(hostname) <= 63 {
		pod.Spec.Hostname = hostname
	}
	env := corev1.EnvVar{Name: batchv1.JobCompletionIndexEnv, ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['" + batchv1.JobCompletionIndexAnnotation + "']"},
	}}
	for _, cs := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range cs {
			if !slices.ContainsFunc(cs[i].Env, func(e corev1.EnvVar) bool { return e.Name == env.Name }) {
				cs[i].Env = append(cs[i].Env, env)
			}
		}
	}
	return pod, nil
}

// deletePods deletes victims (active pods of job), which then count as
// terminating.
func (c *Controller) deletePods(ctx context.Context, key string, job *batchv1.Job, o *observed, victims []*corev1.Pod) error {
	if len(victims) == 0 {
		return nil
	}
	victims = slices.Clone(victims) // they may alias o.active, which shrinks
	gone, err := podcontrol.DeletePods(ctx, c.podControl, job, victims, c.opts.MaxRequestsInFlight, c.expectations, key)
	for i, p := range victims {
		if !gone[i] {
			continue
		}
		o.active = slices.DeleteFunc(o.active, func(a *corev1.Pod) bool { return a.UID == p.UID })
		o.terminating++
		if podcontrol.IsPodReady(p) {
			o.ready--
		}
	}
	if err != nil {
		return fmt.Errorf("delete pods of %s: %w", key, err)
	}
	return nil
}

// updateStatus writes job's status and returns the Job as stored.
func (c *Controller) updateStatus(ctx context.Context, key string, job *batchv1.Job) (*batchv1.Job, error) {
	out, err := c.jobs(job.Namespace).UpdateStatus(ctx, job, metav1.UpdateOptions{})
	if err != nil {
		return nil, fmt.Errorf("update status of job %s/%s: %w", job.Namespace, job.Name, err)
	}
	c.written.wrote(key, out.ResourceVersion)
	return out, nil
}

// recordFinish records the Event of a Job that just finished.
func (c *Controller) recordFinish(before, after *batchv1.Job) {
	if condition(before, batchv1.JobComplete) == nil && condition(after, batchv1.JobComplete) != nil {
		c.recorder.Event(after, corev1.EventTypeNormal, "Completed", "Job completed")
	}
	if condition(before, batchv1.JobFailed) == nil {
		if f := condition(after, batchv1.JobFailed); f != nil {
			c.recorder.Event(after, corev1.EventTypeWarning, f.Reason, f.Message)
		}
	}
}

// expireTTL deletes a finished Job, with its pods, once its
// ttlSecondsAfterFinished has passed, and looks again then otherwise.
func (c *Controller) expireTTL(ctx context.Context, key string, job *batchv1.Job) error {
	ttl := job.Spec.TTLSecondsAfterFinished
	if ttl == nil || job.DeletionTimestamp != nil {
		return nil
	}
	finished := condition(job, batchv1.JobComplete)
	if finished == nil {
		finished = condition(job, batchv1.JobFailed)
	}
	expireAt := finished.LastTransitionTime.Add(time.Duration(*ttl) * time.Second)
	if wait := expireAt.Sub(c.opts.Now()); wait > 0 {
		c.Queue().AddAfter(key, wait)
		return nil
	}
	foreground := metav1.DeletePropagationForeground
	err := c.jobs(job.Namespace).Delete(ctx, job.Name, metav1.DeleteOptions{
		PropagationPolicy: &foreground,
		Preconditions:     &metav1.Preconditions{UID: &job.UID},
	})
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
		return fmt.Errorf("delete expired job %s: %w", key, err)
	}
	klog.FromContext(ctx).V(2).Info("Deleted a finished job after its TTL", "job", klog.KObj(job))
	return nil
}
