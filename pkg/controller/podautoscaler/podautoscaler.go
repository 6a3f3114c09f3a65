// Package podautoscaler is the HorizontalPodAutoscaler controller: every
// sync period it reads the resource metrics of each HPA's target pods
// (metrics.k8s.io), proposes a replica count per metric, stabilizes and
// rate-limits the largest as the HPA's behavior says, and writes it to
// the target's scale subresource, reporting conditions, metrics and
// Events as Kubernetes does.
package podautoscaler

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	autoscalingv2 "kubecore.io/api/autoscaling/v2"
	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/client/controller"
	"kubecore.io/client/informers"
	"kubecore.io/client/tools/cache"
	"kubecore.io/client/tools/record"
	"kubecore.io/client/typed"

	"k8s.io/klog/v2"
)

// Name is the controller's name in the controller-manager and its queue.
const Name = "horizontalpodautoscaling"

// DefaultSyncPeriod is how often each HPA is evaluated
// (--horizontal-pod-autoscaler-sync-period).
const DefaultSyncPeriod = 15 * time.Second

// DefaultTargetCPUUtilization is the metric of an HPA that names none.
const DefaultTargetCPUUtilization = 80

// Client is what the controller asks of the API server; *typed.Clientset
// satisfies it.
type Client interface {
	AutoscalingV2() typed.AutoscalingV2
	AppsV1() typed.AppsV1
	CoreV1() typed.CoreV1
}

// ScaleClient reads and writes the scale subresource of an HPA's target.
type ScaleClient interface {
	GetScale(ctx context.Context, namespace string, ref autoscalingv2.CrossVersionObjectReference) (*autoscalingv1.Scale, error)
	UpdateScale(ctx context.Context, namespace string, ref autoscalingv2.CrossVersionObjectReference, scale *autoscalingv1.Scale) (*autoscalingv1.Scale, error)
}

// Options tune a Controller.
type Options struct {
	// Metrics reads the pods' resource metrics; required.
	Metrics MetricsClient
	// Scales reads and writes the targets' scale; the typed clients of
	// Deployments, ReplicaSets, StatefulSets and ReplicationControllers
	// when nil.
	Scales ScaleClient
	// Recorder records the controller's Events; nil means none.
	Recorder record.EventRecorder
	// SyncPeriod is how often each HPA is evaluated (DefaultSyncPeriod).
	SyncPeriod time.Duration
	// Tolerance is the ratio of usage to target within which no scaling
	// happens (DefaultTolerance); a direction's rules may set their own.
	Tolerance float64
	// DownscaleStabilization is the scale-down window of HPAs that set
	// none (DefaultScaleDownStabilization).
	DownscaleStabilization time.Duration
	// Now reads the clock; nil means time.Now.
	Now func() time.Time
}

// Controller is the HorizontalPodAutoscaler controller.
type Controller struct {
	*controller.Controller
	hpas       func(namespace string) controller.StatusClient[*autoscalingv2.HorizontalPodAutoscaler]
	scales     ScaleClient
	metrics    MetricsClient
	recorder   record.EventRecorder
	hpaLister  cache.Lister[*autoscalingv2.HorizontalPodAutoscaler]
	podLister  cache.Lister[*corev1.Pod]
	syncPeriod time.Duration
	tolerance  float64
	downWindow time.Duration
	now        func() time.Time

	mu      sync.Mutex
	history map[string]*hpaHistory
}

// hpaHistory is what the controller remembers of an HPA between syncs:
// its recent recommendations (stabilization) and scale changes (rate
// policies). Kubernetes keeps it in memory too; a restarted controller
// starts afresh.
type hpaHistory struct {
	recommendations []recommendation
	events          []scaleEvent
}

// New returns the controller over the factory's HPA and pod informers.
func New(client Client, factory *informers.SharedInformerFactory, opts Options) (*Controller, error) {
	if opts.Metrics == nil {
		return nil, errors.New("horizontal pod autoscaler: a metrics client is required")
	}
	if opts.Scales == nil {
		opts.Scales = TypedScales{Client: client}
	}
	c := newController(func(ns string) controller.StatusClient[*autoscalingv2.HorizontalPodAutoscaler] {
		return client.AutoscalingV2().HorizontalPodAutoscalers(ns)
	}, opts)
	hpas := controller.Informer(c.Controller, factory, informers.HorizontalPodAutoscalers)
	pods := controller.Informer(c.Controller, factory, informers.Pods)
	c.hpaLister, c.podLister = hpas.Lister(), pods.Lister()
	controller.Watch(c, hpas, controller.ForgetOnDelete[*autoscalingv2.HorizontalPodAutoscaler](c.forget))
	return c, c.Err()
}

func newController(hpas func(string) controller.StatusClient[*autoscalingv2.HorizontalPodAutoscaler], opts Options) *Controller {
	c := &Controller{
		hpas: hpas, scales: opts.Scales, metrics: opts.Metrics, recorder: record.OrDiscard(opts.Recorder),
		syncPeriod: controller.OrDefault(opts.SyncPeriod, DefaultSyncPeriod),
		tolerance:  controller.OrDefault(opts.Tolerance, DefaultTolerance),
		downWindow: controller.OrDefault(opts.DownscaleStabilization, DefaultScaleDownStabilization),
		now:        controller.OrNow(opts.Now),
		history:    map[string]*hpaHistory{},
	}
	c.Controller = controller.New(Name, c.sync)
	return c
}

func (c *Controller) forget(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.history, key)
}

// sync evaluates the HPA named by key and comes back after the sync
// period.
func (c *Controller) sync(ctx context.Context, key string) error {
	shared, ok, err := controller.Get(ctx, c.hpaLister, key)
	if !ok {
		if err == nil {
			c.forget(key)
		}
		return err
	}
	// Metrics change without events: every HPA comes back each period,
	// failing or not. A failure is in the HPA's conditions and Events; it
	// is retried at the next period, not with the queue's fast back-off,
	// so that an absent metrics API costs one request per period.
	c.Queue().AddAfter(key, c.syncPeriod)
	if err := c.reconcile(ctx, key, shared.DeepCopy()); err != nil {
		klog.FromContext(ctx).V(2).Info("HorizontalPodAutoscaler not scaled", "hpa", klog.KObj(shared), "err", err)
	}
	return nil
}

// reconcile is one evaluation of hpa.
func (c *Controller) reconcile(ctx context.Context, key string, hpa *autoscalingv2.HorizontalPodAutoscaler) error {
	now := c.now()
	st := hpa.Status.DeepCopy()
	write := func() error {
		gen := hpa.Generation
		st.ObservedGeneration = &gen
		if st.CurrentMetrics == nil {
			st.CurrentMetrics = []autoscalingv2.MetricStatus{}
		}
		return controller.UpdateStatus(ctx, c.hpas(hpa.Namespace), "HorizontalPodAutoscaler", hpa,
			func(h *autoscalingv2.HorizontalPodAutoscaler) { h.Status = *st }, nil)
	}
	ref := hpa.Spec.ScaleTargetRef
	scale, err := c.scales.GetScale(ctx, hpa.Namespace, ref)
	if err != nil {
		c.recorder.Eventf(hpa, corev1.EventTypeWarning, "FailedGetScale", "%v", err)
		setCondition(st, autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale", now, "the HPA controller was unable to get the target's current scale: %v", err)
		return errors.Join(fmt.Errorf("get scale of %s %s: %w", ref.Kind, ref.Name, err), write())
	}
	setCondition(st, autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededGetScale", now, "the HPA controller was able to get the target's current scale")
	current := scale.Spec.Replicas
	minReplicas := int32(1)
	if hpa.Spec.MinReplicas != nil {
		minReplicas = *hpa.Spec.MinReplicas
	}
	maxReplicas := hpa.Spec.MaxReplicas
	st.CurrentReplicas = scale.Status.Replicas

	var desired int32
	var reason string
	switch {
	case current == 0 && minReplicas != 0:
		desired = 0
		setCondition(st, autoscalingv2.ScalingActive, corev1.ConditionFalse, "ScalingDisabled", now, "scaling is disabled since the replica count of the target is zero")
	case current > maxReplicas:
		desired, reason = maxReplicas, "Current number of replicas above Spec.MaxReplicas"
	case current < minReplicas:
		desired, reason = minReplicas, "Current number of replicas below Spec.MinReplicas"
	default:
		proposal, metricName, statuses, err := c.computeMetrics(ctx, hpa, scale, current, st, now)
		st.CurrentMetrics = statuses
		if err != nil {
			st.DesiredReplicas = current
			return errors.Join(err, write())
		}
		desired = c.normalize(key, hpa, st, now, current, proposal, minReplicas, maxReplicas)
		if desired > current {
			reason = metricName + " above target"
		} else {
			reason = "All metrics below target"
		}
	}

	if desired != current {
		scale.Spec.Replicas = desired
		if _, err := c.scales.UpdateScale(ctx, hpa.Namespace, ref, scale); err != nil {
			c.recorder.Eventf(hpa, corev1.EventTypeWarning, "FailedRescale", "New size: %d; reason: %s; error: %v", desired, reason, err)
			setCondition(st, autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedUpdateScale", now, "the HPA controller was unable to update the target scale: %v", err)
			st.DesiredReplicas = current
			return errors.Join(fmt.Errorf("update scale of %s %s: %w", ref.Kind, ref.Name, err), write())
		}
		setCondition(st, autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededRescale", now, "the HPA controller was able to update the target scale to %d", desired)
		c.recorder.Eventf(hpa, corev1.EventTypeNormal, "SuccessfulRescale", "New size: %d; reason: %s", desired, reason)
		c.recordScale(key, now, desired-current)
		t := metav1.NewTime(now)
		st.LastScaleTime = &t
		klog.FromContext(ctx).V(2).Info("Rescaled", "hpa", klog.KObj(hpa), "from", current, "to", desired, "reason", reason)
	}
	st.DesiredReplicas = desired
	return write()
}

// computeMetrics proposes a replica count from every metric of hpa: the
// largest proposal of the metrics that could be computed. It fails when
// none could, or when some could not and the others propose a scale down
// (as Kubernetes, it only scales up on partial metrics).
func (c *Controller) computeMetrics(ctx context.Context, hpa *autoscalingv2.HorizontalPodAutoscaler, scale *autoscalingv1.Scale, current int32,
	st *autoscalingv2.HorizontalPodAutoscalerStatus, now time.Time) (int32, string, []autoscalingv2.MetricStatus, error) {
	if scale.Status.Selector == "" {
		c.recorder.Eventf(hpa, corev1.EventTypeWarning, "SelectorRequired", "selector is required")
		setCondition(st, autoscalingv2.ScalingActive, corev1.ConditionFalse, "InvalidSelector", now, "the HPA target's scale is missing a selector")
		return 0, "", nil, errors.New("the HPA target's scale is missing a selector")
	}
	selector, err := labels.Parse(scale.Status.Selector)
	if err != nil {
		c.recorder.Eventf(hpa, corev1.EventTypeWarning, "InvalidSelector", "couldn't convert selector into a corresponding internal selector object: %v", err)
		setCondition(st, autoscalingv2.ScalingActive, corev1.ConditionFalse, "InvalidSelector", now, "the HPA target's scale has an invalid selector: %v", err)
		return 0, "", nil, fmt.Errorf("parse selector %q: %w", scale.Status.Selector, err)
	}
	pods, err := c.podLister.Namespaced(hpa.Namespace).List(selector)
	if err != nil {
		return 0, "", nil, err
	}
	specs := hpa.Spec.Metrics
	if len(specs) == 0 {
		util := int32(DefaultTargetCPUUtilization)
		specs = []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
			Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &util}}}}
	}
	var (
		proposal   int32
		name       string
		statuses   []autoscalingv2.MetricStatus
		firstErr   error
		invalid    int
		validFound bool
	)
	for _, spec := range specs {
		replicas, metricName, status, reason, err := c.computeMetric(ctx, hpa.Namespace, selector, pods, spec, current)
		if err != nil {
			invalid++
			if firstErr == nil {
				firstErr = err
			}
			c.recorder.Eventf(hpa, corev1.EventTypeWarning, reason, "%v", err)
			setCondition(st, autoscalingv2.ScalingActive, corev1.ConditionFalse, reason, now, "the HPA was unable to compute the replica count: %v", err)
			continue
		}
		statuses = append(statuses, status)
		if !validFound || replicas > proposal {
			proposal, name, validFound = replicas, metricName, true
		}
	}
	if invalid >= len(specs) || (invalid > 0 && proposal < current) {
		if invalid < len(specs) {
			firstErr = fmt.Errorf("invalid metrics (%d invalid out of %d), first error is: %w", invalid, len(specs), firstErr)
		}
		return 0, "", statuses, firstErr
	}
	setCondition(st, autoscalingv2.ScalingActive, corev1.ConditionTrue, "ValidMetricFound", now, "the HPA was able to successfully calculate a replica count from %s", name)
	return proposal, name, statuses, nil
}

// computeMetric proposes replicas from one metric; on failure it returns
// the Event reason.
func (c *Controller) computeMetric(ctx context.Context, namespace string, selector labels.Selector, pods []*corev1.Pod, spec autoscalingv2.MetricSpec, current int32) (int32, string, autoscalingv2.MetricStatus, string, error) {
	if spec.Type != autoscalingv2.ResourceMetricSourceType || spec.Resource == nil {
		reason := map[autoscalingv2.MetricSourceType]string{
			autoscalingv2.PodsMetricSourceType:              "FailedGetPodsMetric",
			autoscalingv2.ObjectMetricSourceType:            "FailedGetObjectMetric",
			autoscalingv2.ExternalMetricSourceType:          "FailedGetExternalMetric",
			autoscalingv2.ContainerResourceMetricSourceType: "FailedGetContainerResourceMetric",
		}[spec.Type]
		if reason == "" {
			reason = "InvalidMetricSourceType"
		}
		return 0, "", autoscalingv2.MetricStatus{}, reason, fmt.Errorf("%s metrics are not supported by this controller: only Resource metrics (cpu, memory) are", spec.Type)
	}
	const reason = "FailedGetResourceMetric"
	res := spec.Resource.Name
	target := spec.Resource.Target
	metrics, err := c.metrics.PodMetrics(ctx, namespace, selector, res)
	if err != nil {
		return 0, "", autoscalingv2.MetricStatus{}, reason, fmt.Errorf("unable to get metrics for resource %s: %w", res, err)
	}
	if len(metrics) == 0 {
		return 0, "", autoscalingv2.MetricStatus{}, reason, fmt.Errorf("unable to get metrics for resource %s: %w", res, errNoMetrics)
	}
	groups := groupPods(pods, metrics, res)
	status := autoscalingv2.MetricStatus{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricStatus{Name: res}}
	switch {
	case target.Type == autoscalingv2.UtilizationMetricType && target.AverageUtilization != nil:
		requests, err := podRequests(pods, res)
		if err != nil {
			return 0, "", autoscalingv2.MetricStatus{}, reason, fmt.Errorf("failed to get %s utilization: %w", res, err)
		}
		r, err := computeReplicas(current, groups, utilizationRatio(requests, *target.AverageUtilization), func(p string) int64 { return requests[p] }, c.tolerance)
		if err != nil {
			return 0, "", autoscalingv2.MetricStatus{}, reason, fmt.Errorf("failed to get %s utilization: %w", res, err)
		}
		util := r.utilization
		status.Resource.Current = autoscalingv2.MetricValueStatus{AverageUtilization: &util, AverageValue: quantity(res, r.average)}
		return r.replicas, fmt.Sprintf("%s resource utilization (percentage of request)", res), status, "", nil
	case target.Type == autoscalingv2.AverageValueMetricType && target.AverageValue != nil:
		want := target.AverageValue.MilliValue()
		if res == corev1.ResourceMemory {
			want = target.AverageValue.Value()
		}
		r, err := computeReplicas(current, groups, averageRatio(want), func(string) int64 { return want }, c.tolerance)
		if err != nil {
			return 0, "", autoscalingv2.MetricStatus{}, reason, fmt.Errorf("failed to get %s usage: %w", res, err)
		}
		status.Resource.Current = autoscalingv2.MetricValueStatus{AverageValue: quantity(res, r.average)}
		return r.replicas, fmt.Sprintf("%s resource", res), status, "", nil
	default:
		return 0, "", autoscalingv2.MetricStatus{}, reason, fmt.Errorf("invalid resource metric source: neither a utilization target nor an average value target is set for %s", res)
	}
}

// quantity is a metric value as a Quantity: millicores for cpu, bytes
// for memory.
func quantity(res corev1.ResourceName, v int64) *resource.Quantity {
	if res == corev1.ResourceMemory {
		return resource.NewQuantity(v, resource.BinarySI)
	}
	return resource.NewMilliQuantity(v, resource.DecimalSI)
}

// normalize applies the behavior (stabilization windows, then rate
// policies) and the replica bounds to a proposal, and sets AbleToScale and
// ScalingLimited.
func (c *Controller) normalize(key string, hpa *autoscalingv2.HorizontalPodAutoscaler, st *autoscalingv2.HorizontalPodAutoscalerStatus, now time.Time,
	current, proposal, minReplicas, maxReplicas int32) int32 {
	var b autoscalingv2.HorizontalPodAutoscalerBehavior
	if hpa.Spec.Behavior != nil {
		b = *hpa.Spec.Behavior
	}
	up := rules(b.ScaleUp, defaultScaleUp())
	down := rules(b.ScaleDown, defaultScaleDown(c.downWindow))
	upWindow := time.Duration(*up.StabilizationWindowSeconds) * time.Second
	downWindow := time.Duration(*down.StabilizationWindowSeconds) * time.Second

	c.mu.Lock()
	h := c.history[key]
	if h == nil {
		h = &hpaHistory{}
		c.history[key] = h
	}
	stabilized, stabReason := stabilize(now, current, proposal, h.recommendations, upWindow, downWindow)
	// Keep what the longest window (and policy period) still needs.
	keep := max(upWindow, downWindow)
	h.recommendations = append(pruneRecommendations(h.recommendations, now.Add(-keep)), recommendation{at: now, replicas: proposal})
	events := append([]scaleEvent(nil), h.events...)
	c.mu.Unlock()

	switch stabReason {
	case "ScaleDownStabilized":
		setCondition(st, autoscalingv2.AbleToScale, corev1.ConditionTrue, stabReason, now, "recent recommendations were higher than current one, applying the highest recent recommendation")
	case "ScaleUpStabilized":
		setCondition(st, autoscalingv2.AbleToScale, corev1.ConditionTrue, stabReason, now, "recent recommendations were lower than current one, applying the lowest recent recommendation")
	default:
		setCondition(st, autoscalingv2.AbleToScale, corev1.ConditionTrue, "ReadyForNewScale", now, "recommended size matches current size")
	}

	rulesOf := down
	if stabilized > current {
		rulesOf = up
	}
	limited := limitChange(now, current, stabilized, rulesOf, events)
	switch {
	case limited > maxReplicas:
		setCondition(st, autoscalingv2.ScalingLimited, corev1.ConditionTrue, "TooManyReplicas", now, "the desired replica count is more than the maximum replica count")
		return maxReplicas
	case limited < minReplicas:
		setCondition(st, autoscalingv2.ScalingLimited, corev1.ConditionTrue, "TooFewReplicas", now, "the desired replica count is less than the minimum replica count")
		return minReplicas
	case limited < stabilized:
		setCondition(st, autoscalingv2.ScalingLimited, corev1.ConditionTrue, "ScaleUpLimit", now, "the desired replica count is increasing faster than the maximum scale rate")
	case limited > stabilized:
		setCondition(st, autoscalingv2.ScalingLimited, corev1.ConditionTrue, "ScaleDownLimit", now, "the desired replica count is decreasing faster than the maximum scale rate")
	default:
		setCondition(st, autoscalingv2.ScalingLimited, corev1.ConditionFalse, "DesiredWithinRange", now, "the desired count is within the acceptable range")
	}
	return limited
}

func pruneRecommendations(rs []recommendation, cutoff time.Time) []recommendation {
	out := rs[:0]
	for _, r := range rs {
		if r.at.After(cutoff) {
			out = append(out, r)
		}
	}
	return out
}

// recordScale remembers a change of the target's replicas for the rate
// policies, for the longest policy period (30 min at most).
func (c *Controller) recordScale(key string, now time.Time, change int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := c.history[key]
	if h == nil {
		h = &hpaHistory{}
		c.history[key] = h
	}
	out := h.events[:0]
	for _, e := range h.events {
		if e.at.After(now.Add(-30 * time.Minute)) {
			out = append(out, e)
		}
	}
	h.events = append(out, scaleEvent{at: now, change: change})
}

// setCondition sets a condition, moving its transition time only when
// its status changes.
func setCondition(st *autoscalingv2.HorizontalPodAutoscalerStatus, t autoscalingv2.HorizontalPodAutoscalerConditionType, status corev1.ConditionStatus, reason string, now time.Time, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for i := range st.Conditions {
		c := &st.Conditions[i]
		if c.Type != t {
			continue
		}
		if c.Status != status {
			c.LastTransitionTime = metav1.NewTime(now)
		}
		c.Status, c.Reason, c.Message = status, reason, msg
		return
	}
	st.Conditions = append(st.Conditions, autoscalingv2.HorizontalPodAutoscalerCondition{Type: t, Status: status, Reason: reason, Message: msg, LastTransitionTime: metav1.NewTime(now)})
}
