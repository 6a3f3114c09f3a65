// Package daemonset is the DaemonSet controller: one pod of each DaemonSet
// on every node it fits, rolling updates node by node, and history.
package daemonset

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/types"
	"kubecore.io/client/controller"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/tools/record"
	"kubecore.io/client/typed"

	"k8s.io/klog/v2"

	"kubecore.io/kubecore/pkg/controller/history"
	"kubecore.io/kubecore/pkg/controller/podcontrol"
)

// Name is the controller's name in the controller-manager and its queue.
const Name = "daemonset"

// TemplateGenerationLabel is the deprecated label of daemon pods with the
// generation of the DaemonSet they were made from; the revision hash
// label is what tells pods apart.
const TemplateGenerationLabel = "pod-template-generation"

// FailedDaemonPodReason is the reason of the Event on a DaemonSet whose
// pod failed and is replaced.
const FailedDaemonPodReason = "FailedDaemonPod"

// DefaultBurstReplicas bounds the pods one sync creates or deletes.
const DefaultBurstReplicas = 250

// DefaultMaxRequestsInFlight bounds the pod creates or deletes of one sync
// in flight, as for the ReplicaSet controller.
const DefaultMaxRequestsInFlight = 64

// controllerKind is the kind of the owner references the controller sets.
var controllerKind = appsv1.SchemeGroupVersion.WithKind("DaemonSet")

// Client is what the controller asks of the API server; *typed.Clientset
// satisfies it.
type Client interface {
	CoreV1() typed.CoreV1
	AppsV1() typed.AppsV1
}

// Options tune a Controller; the zero value gives the defaults.
type Options struct {
	// Recorder records the controller's Events; nil means none.
	Recorder record.EventRecorder
	// PodControl creates and deletes pods; nil means through the client,
	// with Events.
	PodControl podcontrol.Interface
	// BurstReplicas bounds the pods created or deleted per sync; default
	// DefaultBurstReplicas.
	BurstReplicas int
	// MaxRequestsInFlight bounds the creates or deletes of one sync that
	// run at once; default DefaultMaxRequestsInFlight.
	MaxRequestsInFlight int
	// Now reads the clock (availability, back-off); nil means time.Now.
	Now func() time.Time
}

// Controller is the DaemonSet controller.
type Controller struct {
	*controller.Controller
	client     Client
	podControl podcontrol.Interface
	recorder   record.EventRecorder
	opts       Options

	sets      *cache.Informer[*appsv1.DaemonSet]
	pods      *cache.Informer[*corev1.Pod]
	nodes     *cache.Informer[*corev1.Node]
	revisions *cache.Informer[*appsv1.ControllerRevision]

	// creations and deletions are the pods each DaemonSet (by key) asked
	// for and its informers have not shown yet.
	creations *controller.Expectations
	deletions *controller.UIDTrackingExpectations
	failed    *backoff
}

// New returns a DaemonSet controller working through client, fed by the
// informers of factory.
func New(client Client, factory *informers.SharedInformerFactory, opts Options) (*Controller, error) {
	if opts.PodControl == nil {
		opts.PodControl = podcontrol.PodControl{Pods: func(ns string) podcontrol.PodWriter { return client.CoreV1().Pods(ns) }, Recorder: opts.Recorder}
	}
	opts.BurstReplicas = controller.OrDefault(opts.BurstReplicas, DefaultBurstReplicas)
	opts.MaxRequestsInFlight = controller.OrDefault(opts.MaxRequestsInFlight, DefaultMaxRequestsInFlight)
	opts.Now = controller.OrNow(opts.Now)
	c := &Controller{
		client:     client,
		podControl: opts.PodControl,
		recorder:   record.OrDiscard(opts.Recorder),
		opts:       opts,
		creations:  controller.NewExpectations(nil),
		deletions:  controller.NewUIDTrackingExpectations(nil),
		failed:     newBackoff(failedPodInitialBackoff, failedPodMaxBackoff),
	}
	c.Controller = controller.New(Name, c.sync)
	c.sets = controller.Informer(c.Controller, factory, informers.DaemonSets)
	c.pods = controller.Informer(c.Controller, factory, informers.Pods)
	c.nodes = controller.Informer(c.Controller, factory, informers.Nodes)
	c.revisions = controller.Informer(c.Controller, factory, informers.ControllerRevisions)
	c.AddSynced(c.revisions.HasSynced)
	controller.Watch(c, c.sets, controller.ForgetOnDelete[*appsv1.DaemonSet](func(key string) {
		c.creations.DeleteExpectations(key)
		c.deletions.DeleteExpectations(key)
	}))
	controller.Watch(c, c.pods, controller.Owned[*appsv1.DaemonSet, *corev1.Pod]{
		Kind:         controllerKind.GroupKind(),
		Owners:       c.sets.Lister(),
		Expectations: observed{c},
		Adopters: func(pod *corev1.Pod) []string {
			sets, _ := c.sets.Lister().Namespaced(pod.Namespace).List(labels.Everything())
			return controller.SelectorKeys(sets, func(ds *appsv1.DaemonSet) *metav1.LabelSelector { return ds.Spec.Selector }, pod)
		},
		RequeueAfter: func(ds *appsv1.DaemonSet, old, cur *corev1.Pod) time.Duration {
			return podcontrol.AvailableAfter(ds.Spec.MinReadySeconds, old, cur)
		},
	}.Handler(c))
	controller.Watch(c, c.nodes, controller.Handler[*corev1.Node]{
		Add:    func(n *corev1.Node) []string { return c.nodeChanged(nil, n) },
		Update: c.nodeChanged,
		Delete: func(n *corev1.Node) []string { return c.nodeChanged(n, nil) },
	})
	return c, c.Err()
}

// observed reports the pods the informer sees to the expectations they
// answer: creations and uid-tracked deletions.
type observed struct{ c *Controller }

var _ controller.ObservedExpectations = observed{}

func (o observed) CreationObserved(key string) { o.c.creations.CreationObserved(key) }
func (o observed) DeletionObservedUID(key string, uid types.UID) {
	o.c.deletions.DeletionObservedUID(key, uid)
}

// nodeChanged enqueues the DaemonSets whose decision for the node changes
// (old is nil for a new node, cur for a deleted one).
func (c *Controller) nodeChanged(old, cur *corev1.Node) []string {
	if old != nil && cur != nil && old.ResourceVersion == cur.ResourceVersion {
		return nil
	}
	var keys []string
	sets, _ := c.sets.Lister().List(labels.Everything())
	for _, ds := range sets {
		p, err := newPlacement(ds)
		if err != nil {
			continue
		}
		var before, after decision
		if old != nil {
			before.run, before.keep = p.decide(old)
		}
		if cur != nil {
			after.run, after.keep = p.decide(cur)
		}
		if before != after {
			keys = append(keys, controller.KeyOf(ds)...)
		}
	}
	return keys
}

// expectationsMet reports whether key's earlier creations and deletions
// have all been seen (or have timed out).
func (c *Controller) expectationsMet(key string) bool {
	return c.creations.SatisfiedExpectations(key) && c.deletions.SatisfiedExpectations(key)
}

// sync brings the DaemonSet named key to its desired pods and status.
func (c *Controller) sync(ctx context.Context, key string) error {
	ds, ok, err := controller.Get(ctx, c.sets.Lister(), key)
	if !ok {
		c.creations.DeleteExpectations(key)
		c.deletions.DeleteExpectations(key)
		return err
	}
	selector, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil || selector.Empty() {
		// Validation forbids it; retrying cannot fix it.
		c.recorder.Eventf(ds, corev1.EventTypeWarning, "SelectingAll", "This daemon set is selecting all pods or has an invalid selector: %v", err)
		return nil
	}
	if ds.DeletionTimestamp != nil {
		// The garbage collector deletes the pods.
		return nil
	}
	place, err := newPlacement(ds)
	if err != nil {
		c.recorder.Eventf(ds, corev1.EventTypeWarning, "InvalidAffinity", "%v", err)
		return nil
	}
	nodes, err := c.nodes.Lister().List(labels.Everything())
	if err != nil {
		return err
	}
	decisions := make(map[string]decision, len(nodes))
	for _, n := range nodes {
		var d decision
		d.run, d.keep = place.decide(n)
		decisions[n.Name] = d
	}
	// Read the expectations before the pods: a pod the informer adds
	// in between is then in the list when the expectations say so.
	met := c.expectationsMet(key)
	recheck := controller.RecheckDeletionTimestamp(ds, func(ctx context.Context) (metav1.Object, error) {
		return c.client.AppsV1().DaemonSets(ds.Namespace).Get(ctx, ds.Name, metav1.GetOptions{})
	})
	pods, err := c.claimPods(ctx, ds, selector, recheck)
	if err != nil {
		return err
	}
	revs, err := history.Claim(ctx, c.client, c.revisions.Lister(), ds, controllerKind, selector, recheck)
	if err != nil {
		return err
	}
	cur, err := c.ensureRevision(ctx, ds, revs)
	if err != nil {
		return err
	}
	hash := history.HashOf(cur)
	byNode := podsByNode(pods)
	now := c.opts.Now()

	var actErr error
	if met {
		actErr = c.act(ctx, key, ds, decisions, byNode, hash, now)
		if actErr == nil {
			actErr = c.truncateHistory(ctx, ds, pods, revs, cur)
		}
	}
	status := computeStatus(ds, decisions, byNode, hash, met, now)
	if err := c.updateStatus(ctx, ds, status); err != nil {
		return errors.Join(actErr, err)
	}
	if ds.Spec.MinReadySeconds > 0 && status.NumberReady != status.NumberAvailable {
		c.Queue().AddAfter(key, time.Duration(ds.Spec.MinReadySeconds)*time.Second)
	}
	return actErr
}

// act creates and deletes pods towards one pod per eligible node, then,
// when none was needed, takes the next step of a rolling update.
func (c *Controller) act(ctx context.Context, key string, ds *appsv1.DaemonSet, decisions map[string]decision, byNode map[string][]*corev1.Pod, hash string, now time.Time) error {
	failed := func(node string) time.Duration {
		wait := c.failed.next(string(ds.UID)+"/"+node, now)
		if wait == 0 {
			c.recorder.Eventf(ds, corev1.EventTypeWarning, FailedDaemonPodReason, "Found failed daemon pod on node %s, will try to kill it", node)
		}
		return wait
	}
	pl := manage(ds, decisions, byNode, hash, now, failed)
	if pl.retryAfter > 0 {
		c.Queue().AddAfter(key, pl.retryAfter)
	}
	if !pl.empty() || ds.Spec.UpdateStrategy.Type != appsv1.RollingUpdateDaemonSetStrategyType {
		return c.syncNodes(ctx, key, ds, hash, pl)
	}
	step, err := rollingUpdate(ds, decisions, byNode, hash, now)
	if err != nil {
		c.recorder.Eventf(ds, corev1.EventTypeWarning, "InvalidUpdateStrategy", "%v", err)
		return nil
	}
	if !step.empty() {
		klog.FromContext(ctx).V(2).Info("Rolling update step", "daemonSet", klog.KObj(ds), "delete", len(step.deletes), "create", len(step.creates), "revision", hash)
	}
	return c.syncNodes(ctx, key, ds, hash, step)
}

// claimPods returns the pods ds controls once orphans matching its
// selector are adopted and owned pods that stopped matching released.
func (c *Controller) claimPods(ctx context.Context, ds *appsv1.DaemonSet, selector labels.Selector, canAdopt func(context.Context) error) ([]*corev1.Pod, error) {
	patch := podcontrol.PatchPod(c.client.CoreV1())
	pods, err := controller.ClaimFrom(ctx, controller.NewRefManager[*corev1.Pod](ds, controllerKind, selector, patch, canAdopt), c.pods.Lister())
	if err != nil {
		return nil, fmt.Errorf("claim pods of %s/%s: %w", ds.Namespace, ds.Name, err)
	}
	return pods, nil
}

// ensureRevision finds or makes the ControllerRevision of ds's template;
// on a name collision it bumps ds's collision count, so that the next
// sync names the revision differently.
func (c *Controller) ensureRevision(ctx context.Context, ds *appsv1.DaemonSet, revs []*appsv1.ControllerRevision) (*appsv1.ControllerRevision, error) {
	history.Sort(revs)
	candidate, err := history.New(ds, controllerKind, &ds.Spec.Template, history.NextRevision(revs), ds.Status.CollisionCount)
	if err != nil {
		return nil, err
	}
	cur, err := history.Ensure(ctx, c.client.AppsV1().ControllerRevisions(ds.Namespace), ds, revs, candidate)
	if errors.Is(err, history.ErrCollision) {
		// A stale cached ds fails the update with a conflict: the count
		// only grows from the latest one.
		cp := ds.DeepCopy()
		count := int32(1)
		if ds.Status.CollisionCount != nil {
			count = *ds.Status.CollisionCount + 1
		}
		cp.Status.CollisionCount = &count
		if _, uerr := c.client.AppsV1().DaemonSets(ds.Namespace).UpdateStatus(ctx, cp, metav1.UpdateOptions{}); uerr != nil {
			return nil, errors.Join(err, fmt.Errorf("bump collision count of %s/%s: %w", ds.Namespace, ds.Name, uerr))
		}
		return nil, fmt.Errorf("%w; collision count now %d", err, count)
	}
	return cur, err
}

// truncateHistory deletes the oldest revisions no pod runs, beyond
// revisionHistoryLimit.
func (c *Controller) truncateHistory(ctx context.Context, ds *appsv1.DaemonSet, pods []*corev1.Pod, revs []*appsv1.ControllerRevision, cur *appsv1.ControllerRevision) error {
	live := map[string]bool{history.HashOf(cur): true}
	for _, p := range pods {
		if h := p.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]; h != "" {
			live[h] = true
		}
	}
	limit := 10
	if ds.Spec.RevisionHistoryLimit != nil {
		limit = int(*ds.Spec.RevisionHistoryLimit)
	}
	return history.Truncate(ctx, c.client.AppsV1().ControllerRevisions(ds.Namespace), revs, limit,
		func(r *appsv1.ControllerRevision) bool { return r.Name == cur.Name || live[history.HashOf(r)] })
}

// templateGeneration is the value of a new pod's TemplateGenerationLabel:
// the deprecated annotation's when the DaemonSet has one, its generation
// otherwise.
func templateGeneration(ds *appsv1.DaemonSet) string {
	if v, ok := ds.Annotations[appsv1.DeprecatedTemplateGeneration]; ok {
		if _, err := strconv.ParseInt(v, 10, 64); err == nil {
			return v
		}
	}
	return strconv.FormatInt(ds.Generation, 10)
}

// newPod makes the daemon pod of ds for node, at revision hash.
func newPod(ds *appsv1.DaemonSet, node, hash string) (*corev1.Pod, error) {
	pod, err := podcontrol.NewPod(&ds.Spec.Template, ds, metav1.NewControllerRef(ds, controllerKind))
	if err != nil {
		return nil, err
	}
	pod.Labels[appsv1.DefaultDaemonSetUniqueLabelKey] = hash
	pod.Labels[TemplateGenerationLabel] = templateGeneration(ds)
	addDaemonTolerations(&pod.Spec)
	pod.Spec.Affinity = pinToNode(pod.Spec.Affinity, node)
	return pod, nil
}

// syncNodes carries out pl, at most the burst of creations and of
// deletions: creations in slow-start batches that stop at the first
// failure, deletions all at once; both under expectations.
func (c *Controller) syncNodes(ctx context.Context, key string, ds *appsv1.DaemonSet, hash string, pl plan) error {
	creates := pl.creates[:min(len(pl.creates), c.opts.BurstReplicas)]
	deletes := pl.deletes[:min(len(pl.deletes), c.opts.BurstReplicas)]
	logger := klog.FromContext(ctx)
	var errs []error
	if len(deletes) > 0 {
		logger.V(2).Info("Deleting daemon pods", "daemonSet", klog.KObj(ds), "count", len(deletes))
		if _, err := podcontrol.DeletePods(ctx, c.podControl, ds, deletes, c.opts.MaxRequestsInFlight, c.deletions, key); err != nil {
			errs = append(errs, fmt.Errorf("delete pods of %s: %w", key, err))
		}
	}
	if len(creates) > 0 {
		// Expect every creation before the first is sent: the informer
		// may report a new pod before Create returns.
		c.creations.ExpectCreations(key, len(creates))
		logger.V(2).Info("Creating daemon pods", "daemonSet", klog.KObj(ds), "count", len(creates), "revision", hash)
		// SlowStartBatch makes at most len(creates) calls: each takes
		// the next node.
		var next atomic.Int64
		created, err := controller.SlowStartBatch(len(creates), 1, c.opts.MaxRequestsInFlight, func() error {
			pod, err := newPod(ds, creates[next.Add(1)-1], hash)
			if err != nil {
				return err
			}
			_, err = c.podControl.CreatePod(ctx, pod, ds)
			return err
		})
		// The creations that failed or were never tried will not be seen.
		for range len(creates) - created {
			c.creations.CreationObserved(key)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("create pods of %s: %w", key, err))
		}
	}
	return errors.Join(errs...)
}
