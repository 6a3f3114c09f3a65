// Package statefulset is the StatefulSet controller: pods with stable names,
// ordered creation, scaling and rolling updates, revisions and claims.
package statefulset

import (
	"context"
	"errors"
	"fmt"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/client/controller"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/tools/record"
	"kubecore.io/client/typed"

	"kubecore.io/kubecore/pkg/controller/history"
	"kubecore.io/kubecore/pkg/controller/podcontrol"
)

// Name is the controller's name in the controller-manager and its queue.
const Name = "statefulset"

// controllerKind is the kind of the owner references the controller sets.
var controllerKind = appsv1.SchemeGroupVersion.WithKind("StatefulSet")

// Client is what the controller asks of the API server; *typed.Clientset
// satisfies it.
type Client interface {
	CoreV1() typed.CoreV1
	AppsV1() typed.AppsV1
}

// Options tune a Controller; the zero value gives the defaults.
type Options struct {
	// Recorder records the controller's Events about StatefulSets; nil
	// means none.
	Recorder record.EventRecorder
	// PodControl creates and deletes the sets' pods; nil means through
	// the client, without Events of their own.
	PodControl podcontrol.Interface
	// Now reads the clock (for minReadySeconds); nil means time.Now.
	Now func() time.Time
}

// Controller is the StatefulSet controller.
type Controller struct {
	*controller.Controller
	client     Client
	podControl podcontrol.Interface
	recorder   record.EventRecorder
	now        func() time.Time

	sets      *cache.Informer[*appsv1.StatefulSet]
	pods      *cache.Informer[*corev1.Pod]
	revisions *cache.Informer[*appsv1.ControllerRevision]
	claims    *cache.Informer[*corev1.PersistentVolumeClaim]
}

// New returns a StatefulSet controller working through client, fed by the
// informers of factory.
func New(client Client, factory *informers.SharedInformerFactory, opts Options) (*Controller, error) {
	c := &Controller{client: client, recorder: record.OrDiscard(opts.Recorder), podControl: opts.PodControl, now: controller.OrNow(opts.Now)}
	if c.podControl == nil {
		c.podControl = podcontrol.PodControl{Pods: func(ns string) podcontrol.PodWriter { return client.CoreV1().Pods(ns) }}
	}
	c.Controller = controller.New(Name, c.sync)
	c.sets = controller.Informer(c.Controller, factory, informers.StatefulSets)
	c.pods = controller.Informer(c.Controller, factory, informers.Pods)
	c.revisions = controller.Informer(c.Controller, factory, informers.ControllerRevisions)
	c.claims = controller.Informer(c.Controller, factory, informers.PersistentVolumeClaims)
	c.AddSynced(c.revisions.HasSynced, c.claims.HasSynced)
	controller.Watch(c, c.sets, controller.ObjectKeys[*appsv1.StatefulSet]())
	controller.Watch(c, c.pods, controller.Owned[*appsv1.StatefulSet, *corev1.Pod]{
		Kind:   controllerKind.GroupKind(),
		Owners: c.sets.Lister(),
		Adopters: func(p *corev1.Pod) []string {
			sets, _ := c.sets.Lister().Namespaced(p.Namespace).List(labels.Everything())
			return controller.SelectorKeys(sets, func(s *appsv1.StatefulSet) *metav1.LabelSelector { return s.Spec.Selector }, p)
		},
	}.Handler(c))
	return c, c.Err()
}

// sync brings the StatefulSet named key to its desired state.
func (c *Controller) sync(ctx context.Context, key string) error {
	set, ok, err := controller.Get(ctx, c.sets.Lister(), key)
	if !ok {
		return err
	}
	set = set.DeepCopy()
	selector, err := metav1.LabelSelectorAsSelector(set.Spec.Selector)
	if err != nil || selector.Empty() {
		// Validation forbids it; a stored one is never retried.
		c.recorder.Event(set, corev1.EventTypeWarning, "InvalidSelector", fmt.Sprintf("Invalid selector: %v", err))
		return nil
	}
	pods, err := c.claimPods(ctx, set, selector)
	if err != nil {
		return err
	}
	revs, err := history.Claim(ctx, c.client, c.revisions.Lister(), set, controllerKind, selector, c.recheck(set))
	if err != nil {
		return err
	}
	if set.DeletionTimestamp != nil {
		// The garbage collector deletes the pods.
		return nil
	}
	current, update, collisions, err := c.ensureRevisions(ctx, set, revs)
	if err != nil {
		return err
	}
	status := computeStatus(set, pods, current, update, collisions, c.now())
	actErr := c.updatePods(ctx, set, current, update, pods)
	claimErr := c.updateClaimOwners(ctx, set, pods)
	if err := c.updateStatus(ctx, set, status); err != nil {
		return errors.Join(actErr, claimErr, err)
	}
	if err := errors.Join(actErr, claimErr); err != nil {
		return err
	}
	if err := c.truncateHistory(ctx, set, pods, revs, current, update); err != nil {
		return err
	}
	if wait := c.nextAvailable(set, pods); wait > 0 {
		c.Queue().AddAfter(key, wait)
	}
	return nil
}

// nextAvailable is how long until the next ready pod becomes available.
func (c *Controller) nextAvailable(set *appsv1.StatefulSet, pods []*corev1.Pod) time.Duration {
	var soonest time.Duration
	for _, p := range pods {
		if d := availableIn(p, set.Spec.MinReadySeconds, c.now()); d > 0 && (soonest == 0 || d < soonest) {
			soonest = d
		}
	}
	if soonest > 0 {
		soonest += 10 * time.Millisecond
	}
	return soonest
}

// claimPods returns the pods of set: those it controls that still match,
// and orphans named and labelled as its own, adopted.
func (c *Controller) claimPods(ctx context.Context, set *appsv1.StatefulSet, selector labels.Selector) ([]*corev1.Pod, error) {
	patch := podcontrol.PatchPod(c.client.CoreV1())
	m := controller.NewRefManager[*corev1.Pod](set, controllerKind, selector, patch, c.recheck(set))
	pods, err := controller.ClaimFrom(ctx, m, c.pods.Lister(), func(p *corev1.Pod) bool { return isMember(set, p) })
	if err != nil {
		return nil, fmt.Errorf("claim pods of %s/%s: %w", set.Namespace, set.Name, err)
	}
	return pods, nil
}

func (c *Controller) recheck(set *appsv1.StatefulSet) func(context.Context) error {
	return controller.RecheckDeletionTimestamp(set, func(ctx context.Context) (metav1.Object, error) {
		return c.client.AppsV1().StatefulSets(set.Namespace).Get(ctx, set.Name, metav1.GetOptions{})
	})
}

// ensureRevisions finds or makes the revision of set's template (the
// update revision) and the current revision; it returns the collision
// count to record.
func (c *Controller) ensureRevisions(ctx context.Context, set *appsv1.StatefulSet, revs []*appsv1.ControllerRevision) (current, update *appsv1.ControllerRevision, collisions int32, err error) {
	history.Sort(revs)
	if set.Status.CollisionCount != nil {
		collisions = *set.Status.CollisionCount
	}
	candidate, err := history.New(set, controllerKind, &set.Spec.Template, history.NextRevision(revs), &collisions)
	if err != nil {
		return nil, nil, collisions, err
	}
	update, err = history.Ensure(ctx, c.client.AppsV1().ControllerRevisions(set.Namespace), set, revs, candidate)
	if errors.Is(err, history.ErrCollision) {
		// The next name comes from the next count.
		collisions++
		status := set.Status.DeepCopy()
		status.CollisionCount = &collisions
		if werr := c.writeStatus(ctx, set, *status); werr != nil {
			return nil, nil, collisions, werr
		}
		return nil, nil, collisions, fmt.Errorf("%w; collision count now %d", err, collisions)
	}
	if err != nil {
		return nil, nil, collisions, err
	}
	current = update
	for _, r := range revs {
		if r.Name == set.Status.CurrentRevision {
			current = r
		}
	}
	return current, update, collisions, nil
}

// truncateHistory deletes the oldest revisions no pod uses, beyond
// revisionHistoryLimit.
func (c *Controller) truncateHistory(ctx context.Context, set *appsv1.StatefulSet, pods []*corev1.Pod, revs []*appsv1.ControllerRevision, current, update *appsv1.ControllerRevision) error {
	live := map[string]bool{current.Name: true, update.Name: true}
	for _, p := range pods {
		live[revisionOf(p)] = true
	}
	limit := 10
	if set.Spec.RevisionHistoryLimit != nil {
		limit = int(*set.Spec.RevisionHistoryLimit)
	}
	return history.Truncate(ctx, c.client.AppsV1().ControllerRevisions(set.Namespace), revs, limit,
		func(r *appsv1.ControllerRevision) bool { return live[r.Name] })
}
