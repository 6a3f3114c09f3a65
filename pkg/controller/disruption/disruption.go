// Package disruption is the disruption controller: it keeps the status of
// every PodDisruptionBudget (the healthy, desired and expected pods, how
// many disruptions are allowed, and the DisruptionAllowed condition) from
// the pods the budget selects and the replicas of their controllers, which
// the API server's eviction check reads and decrements.
package disruption

import (
	"context"
	"errors"
	"fmt"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	corev1 "kubecore.io/api/core/v1"
	policyv1 "kubecore.io/api/policy/v1"
	apierrors "kubecore.io/apimachinery/pkg/api/errors"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/client/controller"
	"kubecore.io/client/discovery"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/tools/record"
	"kubecore.io/client/typed"

	"k8s.io/klog/v2"
)

// Name is the controller's name in the controller-manager and its queue.
const Name = "disruption"

// DefaultResyncPeriod is how often every budget is computed again, for
// the controllers no informer watches (those reached through their scale
// subresource, such as custom resources).
const DefaultResyncPeriod = 30 * time.Second

// StalePodDisruptionTimeout is how long a pod may keep a DisruptionTarget
// condition the eviction API set without being deleted, by default; then
// the controller sets the condition False, as Kubernetes does.
const StalePodDisruptionTimeout = 2 * time.Minute

// Client is what the controller asks of the API server; the
// controller-manager's Clients satisfy it.
type Client interface {
	CoreV1() typed.CoreV1
	PolicyV1() typed.PolicyV1
	Discovery() *discovery.Client
}

// PodStatusWriter writes the status of pods of one namespace; the typed
// client satisfies it.
type PodStatusWriter interface {
	UpdateStatus(ctx context.Context, pod *corev1.Pod, opts metav1.UpdateOptions) (*corev1.Pod, error)
}

// StatusWriter writes the status of budgets of one namespace; the typed
// client satisfies it.
type StatusWriter interface {
	UpdateStatus(ctx context.Context, pdb *policyv1.PodDisruptionBudget, opts metav1.UpdateOptions) (*policyv1.PodDisruptionBudget, error)
}

// Options tune the controller; the zero value gives the defaults.
type Options struct {
	// Recorder records the controller's Events; nil means none.
	Recorder record.EventRecorder
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// ResyncPeriod is how often every budget is synced again
	// (DefaultResyncPeriod when zero).
	ResyncPeriod time.Duration
	// StalePodDisruptionTimeout is how long an evicted pod may stay
	// undeleted with its DisruptionTarget condition
	// (StalePodDisruptionTimeout when zero).
	StalePodDisruptionTimeout time.Duration
	// Scales reads the scale subresource of controllers that are neither
	// ReplicaSets, Deployments nor StatefulSets; nil means through
	// discovery and the API server.
	Scales ScaleGetter
}

// Controller keeps the status of PodDisruptionBudgets. Its keys are
// "namespace/name" of budgets.
type Controller struct {
	*controller.Controller
	statuses    func(namespace string) StatusWriter
	podStatuses func(namespace string) PodStatusWriter
	stalePods   *controller.Queue
	recorder    record.EventRecorder
	now         func() time.Time
	// staleAfter is the StalePodDisruptionTimeout in use.
	staleAfter time.Duration

	budgets cache.Lister[*policyv1.PodDisruptionBudget]
	pods    cache.Lister[*corev1.Pod]
	scales  *scales
}

// New returns a controller working through client, fed by the informers
// of factory.
func New(client Client, factory *informers.SharedInformerFactory, opts Options) (*Controller, error) {
	c := &Controller{recorder: record.OrDiscard(opts.Recorder), now: controller.OrNow(opts.Now),
		staleAfter: controller.OrDefault(opts.StalePodDisruptionTimeout, StalePodDisruptionTimeout)}
	c.statuses = func(ns string) StatusWriter { return client.PolicyV1().PodDisruptionBudgets(ns) }
	c.podStatuses = func(ns string) PodStatusWriter { return client.CoreV1().Pods(ns) }
	c.Controller = controller.New(Name, c.sync)
	c.stalePods = c.AddQueue(Name+"-stale-pod-disruption", c.syncStalePod)
	budgets := controller.Informer(c.Controller, factory, func(f *informers.SharedInformerFactory) (*cache.Informer[*policyv1.PodDisruptionBudget], error) {
		return informers.For[*policyv1.PodDisruptionBudget](f, policyv1.SchemeGroupVersion.WithResource("poddisruptionbudgets"))
	})
	pods := controller.Informer(c.Controller, factory, informers.Pods)
	replicaSets := controller.Informer(c.Controller, factory, informers.ReplicaSets)
	deployments := controller.Informer(c.Controller, factory, informers.Deployments)
	statefulSets := controller.Informer(c.Controller, factory, informers.StatefulSets)
	c.budgets, c.pods = budgets.Lister(), pods.Lister()
	generic := opts.Scales
	if generic == nil && client.Discovery() != nil {
		generic = newDiscoveryScales(client.Discovery(), c.now)
	}
	c.scales = &scales{replicaSets: replicaSets.Lister(), deployments: deployments.Lister(), statefulSets: statefulSets.Lister(), generic: generic}

	controller.Watch(c, budgets, controller.ObjectKeys[*policyv1.PodDisruptionBudget]())
	controller.Watch(c, pods, controller.Handler[*corev1.Pod]{
		Add:    c.budgetsOf,
		Update: func(old, cur *corev1.Pod) []string { return append(c.budgetsOf(old), c.budgetsOf(cur)...) },
		Delete: c.budgetsOf,
	})
	controller.Watch(c.stalePods, pods, controller.Upserts(func(pod *corev1.Pod) []string {
		if ok, _ := staleDisruption(pod, time.Time{}, c.staleAfter); !ok {
			return nil
		}
		return controller.KeyOf(pod)
	}))
	// The replicas of a workload change the expected pods of the budgets
	// of its namespace.
	controller.Watch(c, replicaSets, controller.Upserts(func(rs *appsv1.ReplicaSet) []string { return c.budgetsIn(rs.Namespace) }))
	controller.Watch(c, deployments, controller.Upserts(func(d *appsv1.Deployment) []string { return c.budgetsIn(d.Namespace) }))
	controller.Watch(c, statefulSets, controller.Upserts(func(ss *appsv1.StatefulSet) []string { return c.budgetsIn(ss.Namespace) }))
	c.AddLoop(controller.Every(controller.OrDefault(opts.ResyncPeriod, DefaultResyncPeriod), c.resync))
	return c, c.Err()
}

// budgetsOf returns the keys of the budgets selecting pod. A budget with
// a null or empty selector selects no pod here, as in the eviction check.
func (c *Controller) budgetsOf(pod *corev1.Pod) []string {
	budgets, err := c.budgets.Namespaced(pod.Namespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	var keys []string
	for _, pdb := range budgets {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		keys = append(keys, pdb.Namespace+"/"+pdb.Name)
	}
	return keys
}

// budgetsIn returns the keys of every budget of namespace.
func (c *Controller) budgetsIn(namespace string) []string {
	budgets, err := c.budgets.Namespaced(namespace).List(labels.Everything())
	if err != nil {
		return nil
	}
	keys := make([]string, 0, len(budgets))
	for _, pdb := range budgets {
		keys = append(keys, pdb.Namespace+"/"+pdb.Name)
	}
	return keys
}

// resync enqueues every budget.
func (c *Controller) resync(context.Context) {
	budgets, err := c.budgets.List(labels.Everything())
	if err != nil {
		return
	}
	for _, pdb := range budgets {
		c.Queue().Add(pdb.Namespace + "/" + pdb.Name)
	}
}

// sync computes the status of the budget key names and writes it when it
// changed. When it cannot be computed, the status allows no disruption
// and says why (condition DisruptionAllowed, reason SyncFailed).
func (c *Controller) sync(ctx context.Context, key string) error {
	pdb, ok, err := controller.Get(ctx, c.budgets, key)
	if !ok || err != nil {
		return err
	}
	st, recheck, err := c.compute(ctx, pdb)
	if err != nil {
		c.recorder.Eventf(pdb, corev1.EventTypeWarning, "CalculateExpectedPodCountFailed", "Failed to calculate the number of expected pods: %v", err)
		if werr := c.writeStatus(ctx, pdb, failedStatus(pdb, err)); werr != nil {
			return errors.Join(err, werr)
		}
		return err
	}
	if err := c.writeStatus(ctx, pdb, st); err != nil {
		return err
	}
	if !recheck.IsZero() {
		// An evicted pod still there at its deadline counts again.
		c.Queue().AddAfter(key, recheck.Sub(c.now())+time.Second)
	}
	return nil
}

// compute returns the status pdb should have now, and when a disrupted
// pod's deadline passes (zero when none is pending).
func (c *Controller) compute(ctx context.Context, pdb *policyv1.PodDisruptionBudget) (policyv1.PodDisruptionBudgetStatus, time.Time, error) {
	sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil {
		return policyv1.PodDisruptionBudgetStatus{}, time.Time{}, fmt.Errorf("selector: %w", err)
	}
	pods, err := c.pods.Namespaced(pdb.Namespace).List(sel)
	if err != nil {
		return policyv1.PodDisruptionBudgetStatus{}, time.Time{}, fmt.Errorf("list pods: %w", err)
	}
	if len(pods) == 0 {
		c.recorder.Eventf(pdb, corev1.EventTypeNormal, "NoPods", "No matching pods found")
	}
	expected, desiredHealthy, unmanaged, err := desired(pdb.Spec, pods, func(pods []*corev1.Pod) (int32, []string, error) {
		return c.scales.expected(ctx, pods)
	})
	if err != nil {
		return policyv1.PodDisruptionBudgetStatus{}, time.Time{}, err
	}
	if len(unmanaged) > 0 {
		klog.FromContext(ctx).V(4).Info("Pods without a controller are not counted in the expected pods", "podDisruptionBudget", klog.KObj(pdb), "pods", unmanaged)
		c.recorder.Eventf(pdb, corev1.EventTypeWarning, "UnmanagedPods", "Pods selected by this PodDisruptionBudget (selector: %v) were found to be unmanaged. As a result, the status of the PDB cannot be calculated correctly, which may result in undefined behavior. To account for these pods please set \".spec.minAvailable\" field of the PDB to an integer value.", sel)
	}
	now := c.now()
	disrupted, expired, recheck := disruptedPods(pdb.Status.DisruptedPods, pods, now)
	for _, pod := range expired {
		klog.FromContext(ctx).V(2).Info("Evicted pod was not deleted in time, counting it again", "pod", klog.KObj(pod), "podDisruptionBudget", klog.KObj(pdb))
		c.recorder.Eventf(pod, corev1.EventTypeWarning, "NotDeleted", "Pod was expected by PDB %s/%s to be deleted but it wasn't", pdb.Namespace, pdb.Name)
	}
	healthy := currentHealthy(pods, disrupted, now)
	return budgetStatus(pdb, healthy, desiredHealthy, expected, disrupted), recheck, nil
}

// writeStatus writes st as pdb's status unless it says so already. A
// conflict (the eviction check wrote meanwhile) is returned, to compute
// again from the fresh budget.
func (c *Controller) writeStatus(ctx context.Context, pdb *policyv1.PodDisruptionBudget, st policyv1.PodDisruptionBudgetStatus) error {
	if statusUpToDate(pdb, st) {
		return nil
	}
	cur := pdb.DeepCopy()
	cur.Status = st
	_, err := c.statuses(pdb.Namespace).UpdateStatus(ctx, cur, metav1.UpdateOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("update status of PodDisruptionBudget %s/%s: %w", pdb.Namespace, pdb.Name, err)
	}
	klog.FromContext(ctx).V(4).Info("Updated PodDisruptionBudget status", "podDisruptionBudget", klog.KObj(pdb),
		"currentHealthy", st.CurrentHealthy, "desiredHealthy", st.DesiredHealthy, "expectedPods", st.ExpectedPods, "disruptionsAllowed", st.DisruptionsAllowed)
	return nil
}

// staleDisruption reports whether pod has a DisruptionTarget condition
// the eviction API set, that must be reset if the pod is not deleted,
// and how long after now that is due (zero: now). Conditions set by the
// kubelet, and those of pods being deleted or finished, never are.
func staleDisruption(pod *corev1.Pod, now time.Time, timeout time.Duration) (bool, time.Duration) {
	if pod.DeletionTimestamp != nil || pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return false, 0
	}
	for _, cond := range pod.Status.Conditions {
		if cond.Type != corev1.DisruptionTarget {
			continue
		}
		if cond.Status != corev1.ConditionTrue || cond.Reason == "TerminationByKubelet" {
			return false, 0
		}
		return true, max(timeout-now.Sub(cond.LastTransitionTime.Time), 0)
	}
	return false, 0
}

// syncStalePod sets False the DisruptionTarget condition of a pod an
// eviction marked but that was not deleted within
// StalePodDisruptionTimeout (its deletion failed or was refused).
func (c *Controller) syncStalePod(ctx context.Context, key string) error {
	pod, ok, err := controller.Get(ctx, c.pods, key)
	if !ok || err != nil {
		return err
	}
	now := c.now()
	stale, wait := staleDisruption(pod, now, c.staleAfter)
	if !stale {
		return nil
	}
	if wait > 0 {
		c.stalePods.AddAfter(key, wait)
		return nil
	}
	cur := pod.DeepCopy()
	for i := range cur.Status.Conditions {
		if cur.Status.Conditions[i].Type == corev1.DisruptionTarget {
			cur.Status.Conditions[i].Status = corev1.ConditionFalse
			cur.Status.Conditions[i].LastTransitionTime = metav1.NewTime(now)
		}
	}
	if _, err := c.podStatuses(pod.Namespace).UpdateStatus(ctx, cur, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("reset the DisruptionTarget condition of pod %s: %w", key, err)
	}
	klog.FromContext(ctx).V(2).Info("Reset the stale DisruptionTarget condition of a pod not deleted after its eviction", "pod", klog.KObj(pod))
	return nil
}
