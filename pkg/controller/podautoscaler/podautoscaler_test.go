package podautoscaler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	autoscalingv2 "kubecore.io/api/autoscaling/v2"
	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/labels"
	"kubecore.io/apimachinery/pkg/runtime"
	"kubecore.io/client/controller"
	"kubecore.io/client/tools/cache"
)

// cluster is the fake API: one HPA, its target's scale, pods and their
// metrics, and the Events.
type cluster struct {
	now      time.Time
	hpas     *cache.Indexer[*autoscalingv2.HorizontalPodAutoscaler]
	pods     *cache.Indexer[*corev1.Pod]
	scale    *autoscalingv1.Scale
	usage    map[string]int64 // pod -> millicores
	metrErr  error
	scaleErr error
	events   []string
	updates  []int32
}

func (f *cluster) PodMetrics(_ context.Context, ns string, sel labels.Selector, res corev1.ResourceName) (map[string]PodMetric, error) {
	if f.metrErr != nil {
		return nil, f.metrErr
	}
	out := map[string]PodMetric{}
	for name, v := range f.usage {
		out[name] = PodMetric{Value: v, Timestamp: f.now, Window: 15 * time.Second}
	}
	return out, nil
}

func (f *cluster) GetScale(_ context.Context, _ string, ref autoscalingv2.CrossVersionObjectReference) (*autoscalingv1.Scale, error) {
	if f.scaleErr != nil {
		return nil, f.scaleErr
	}
	cp := *f.scale
	return &cp, nil
}

func (f *cluster) UpdateScale(_ context.Context, _ string, _ autoscalingv2.CrossVersionObjectReference, s *autoscalingv1.Scale) (*autoscalingv1.Scale, error) {
	f.scale.Spec.Replicas = s.Spec.Replicas
	f.updates = append(f.updates, s.Spec.Replicas)
	return s, nil
}

func (f *cluster) Get(_ context.Context, name string, _ metav1.GetOptions) (*autoscalingv2.HorizontalPodAutoscaler, error) {
	h, _ := f.hpas.GetByKey("ns/" + name)
	return h, nil
}

func (f *cluster) UpdateStatus(_ context.Context, h *autoscalingv2.HorizontalPodAutoscaler, _ metav1.UpdateOptions) (*autoscalingv2.HorizontalPodAutoscaler, error) {
	return h, f.hpas.Update(h.DeepCopy())
}

func (f *cluster) Event(_ runtime.Object, _, reason, message string) {
	f.events = append(f.events, reason+": "+message)
}
func (f *cluster) Eventf(obj runtime.Object, eventType, reason, format string, args ...any) {
	f.Event(obj, eventType, reason, fmt.Sprintf(format, args...))
}
func (f *cluster) AnnotatedEventf(obj runtime.Object, _ map[string]string, eventType, reason, format string, args ...any) {
	f.Eventf(obj, eventType, reason, format, args...)
}

// setPods makes n ready pods requesting 100m of cpu each, using the
// given millicores.
func (f *cluster) setPods(t *testing.T, usage ...int64) {
	t.Helper()
	for _, p := range f.pods.List() {
		_ = f.pods.Delete(p)
	}
	f.usage = map[string]int64{}
	for i, u := range usage {
		name := fmt.Sprintf("web-%d", i)
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")}}}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}}
		if err := f.pods.Add(p); err != nil {
			t.Fatal(err)
		}
		if u >= 0 {
			f.usage[name] = u
		}
	}
	f.scale.Spec.Replicas, f.scale.Status.Replicas = int32(len(usage)), int32(len(usage))
}

func newCluster(t *testing.T, spec autoscalingv2.HorizontalPodAutoscalerSpec) (*cluster, *Controller) {
	t.Helper()
	f := &cluster{now: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC),
		hpas: cache.NewIndexer[*autoscalingv2.HorizontalPodAutoscaler](), pods: cache.NewIndexer[*corev1.Pod](),
		scale: &autoscalingv1.Scale{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"}, Status: autoscalingv1.ScaleStatus{Selector: "app=web"}}}
	if spec.ScaleTargetRef.Name == "" {
		spec.ScaleTargetRef = autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"}
	}
	if err := f.hpas.Add(&autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", Generation: 3}, Spec: spec}); err != nil {
		t.Fatal(err)
	}
	c := newController(func(string) controller.StatusClient[*autoscalingv2.HorizontalPodAutoscaler] { return f },
		Options{Metrics: f, Scales: f, Recorder: f, Now: func() time.Time { return f.now }})
	c.hpaLister = cache.NewLister(f.hpas, autoscalingv2.Resource("horizontalpodautoscalers"))
	c.podLister = cache.NewLister(f.pods, corev1.Resource("pods"))
	t.Cleanup(c.ShutDown)
	return f, c
}

func cpuUtilization(pct int32) []autoscalingv2.MetricSpec {
	return []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &pct}}}}
}

func int32p(v int32) *int32 { return &v }

func (f *cluster) hpa() *autoscalingv2.HorizontalPodAutoscaler {
	h, _ := f.hpas.GetByKey("ns/web")
	return h
}

func condition(h *autoscalingv2.HorizontalPodAutoscaler, t autoscalingv2.HorizontalPodAutoscalerConditionType) string {
	for _, c := range h.Status.Conditions {
		if c.Type == t {
			return string(c.Status) + "/" + c.Reason
		}
	}
	return ""
}

// sync evaluates the HPA once, as the controller's sync does, and
// returns what failed (which sync itself only logs).
func (f *cluster) sync(t *testing.T, c *Controller) error {
	t.Helper()
	return c.reconcile(t.Context(), "ns/web", f.hpa().DeepCopy())
}

func TestScaleUpOnCPUUtilization(t *testing.T) {
	f, c := newCluster(t, autoscalingv2.HorizontalPodAutoscalerSpec{MinReplicas: int32p(1), MaxReplicas: 10, Metrics: cpuUtilization(50)})
	// Two pods at 150% of their request against a 50% target: 6 pods.
	f.setPods(t, 150, 150)
	if err := f.sync(t, c); err != nil {
		t.Fatal(err)
	}
	h := f.hpa()
	if f.scale.Spec.Replicas != 6 || h.Status.DesiredReplicas != 6 || h.Status.CurrentReplicas != 2 {
		t.Fatalf("replicas = %d, status %+v; want 6", f.scale.Spec.Replicas, h.Status)
	}
	if h.Status.LastScaleTime == nil || !h.Status.LastScaleTime.Time.Equal(f.now) || *h.Status.ObservedGeneration != 3 {
		t.Errorf("lastScaleTime %v observedGeneration %v", h.Status.LastScaleTime, h.Status.ObservedGeneration)
	}
	cur := h.Status.CurrentMetrics
	if len(cur) != 1 || *cur[0].Resource.Current.AverageUtilization != 150 || cur[0].Resource.Current.AverageValue.String() != "150m" {
		t.Errorf("currentMetrics = %+v", cur)
	}
	for ty, want := range map[autoscalingv2.HorizontalPodAutoscalerConditionType]string{
		autoscalingv2.AbleToScale: "True/SucceededRescale", autoscalingv2.ScalingActive: "True/ValidMetricFound", autoscalingv2.ScalingLimited: "False/DesiredWithinRange",
	} {
		if got := condition(h, ty); got != want {
			t.Errorf("condition %s = %s, want %s", ty, got, want)
		}
	}
	want := "SuccessfulRescale: New size: 6; reason: cpu resource utilization (percentage of request) above target"
	if len(f.events) != 1 || f.events[0] != want {
		t.Errorf("events = %q, want %q", f.events, want)
	}
}

func TestToleranceAndMaxReplicas(t *testing.T) {
	f, c := newCluster(t, autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 4, Metrics: cpuUtilization(50)})
	// 54% against 50%: within the 10% tolerance.
	f.setPods(t, 54, 54)
	if err := f.sync(t, c); err != nil {
		t.Fatal(err)
	}
	if len(f.updates) != 0 || f.hpa().Status.DesiredReplicas != 2 {
		t.Fatalf("scaled within tolerance: %v", f.updates)
	}
	// 500%: 20 pods wanted, the default policy allows 4 more (6), max 4.
	f.setPods(t, 500, 500)
	if err := f.sync(t, c); err != nil {
		t.Fatal(err)
	}
	if f.scale.Spec.Replicas != 4 || condition(f.hpa(), autoscalingv2.ScalingLimited) != "True/TooManyReplicas" {
		t.Errorf("replicas %d, ScalingLimited %s; want 4, TooManyReplicas", f.scale.Spec.Replicas, condition(f.hpa(), autoscalingv2.ScalingLimited))
	}
}

func TestScaleDownWaitsForStabilizationWindow(t *testing.T) {
	window := int32(60)
	f, c := newCluster(t, autoscalingv2.HorizontalPodAutoscalerSpec{MinReplicas: int32p(1), MaxReplicas: 10, Metrics: cpuUtilization(50),
		Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: &window}}})
	f.setPods(t, 50, 50, 50, 50) // on target: 4 recommended
	if err := f.sync(t, c); err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(15 * time.Second)
	f.setPods(t, 25, 25, 25, 25) // 25% against 50%: 2 recommended, but 4 was 15 s ago
	if err := f.sync(t, c); err != nil {
		t.Fatal(err)
	}
	if f.scale.Spec.Replicas != 4 || condition(f.hpa(), autoscalingv2.AbleToScale) != "True/ScaleDownStabilized" {
		t.Fatalf("replicas %d, AbleToScale %s; want 4, ScaleDownStabilized", f.scale.Spec.Replicas, condition(f.hpa(), autoscalingv2.AbleToScale))
	}
	f.now = f.now.Add(50 * time.Second) // the 4 leaves the 60 s window
	if err := f.sync(t, c); err != nil {
		t.Fatal(err)
	}
	if f.scale.Spec.Replicas != 2 {
		t.Fatalf("replicas %d after the window, want 2", f.scale.Spec.Replicas)
	}
	if last := f.events[len(f.events)-1]; last != "SuccessfulRescale: New size: 2; reason: All metrics below target" {
		t.Errorf("event %q", last)
	}
}

func TestScaleUpPolicies(t *testing.T) {
	sel := autoscalingv2.MinChangePolicySelect
	f, c := newCluster(t, autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 100, Metrics: cpuUtilization(10),
		Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: &autoscalingv2.HPAScalingRules{SelectPolicy: &sel, Policies: []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PodsScalingPolicy, Value: 1, PeriodSeconds: 60},
			{Type: autoscalingv2.PercentScalingPolicy, Value: 200, PeriodSeconds: 60},
		}}}})
	f.setPods(t, 100, 100) // 1000%: 20 wanted; Min of +1 and +200% is +1
	if err := f.sync(t, c); err != nil {
		t.Fatal(err)
	}
	if f.scale.Spec.Replicas != 3 || condition(f.hpa(), autoscalingv2.ScalingLimited) != "True/ScaleUpLimit" {
		t.Fatalf("replicas %d, ScalingLimited %s; want 3, ScaleUpLimit", f.scale.Spec.Replicas, condition(f.hpa(), autoscalingv2.ScalingLimited))
	}
	// 30 s later the period still holds the +1: no more.
	f.now = f.now.Add(30 * time.Second)
	f.setPods(t, 100, 100, 100)
	if err := f.sync(t, c); err != nil {
		t.Fatal(err)
	}
	if f.scale.Spec.Replicas != 3 {
		t.Fatalf("replicas %d within the policy period, want 3", f.scale.Spec.Replicas)
	}
	f.now = f.now.Add(31 * time.Second)
	if err := f.sync(t, c); err != nil {
		t.Fatal(err)
	}
	if f.scale.Spec.Replicas != 4 {
		t.Fatalf("replicas %d after the period, want 4", f.scale.Spec.Replicas)
	}
}

func TestMissingAndUnreadyPods(t *testing.T) {
	f, c := newCluster(t, autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 10, Metrics: cpuUtilization(50)})
	// Two pods at 20%, one without metrics: a scale down assumes the
	// missing one at 100% of its request: (20+20+100)/3 = 46.7% against
	// 50% is within tolerance: no change.
	f.setPods(t, 20, 20, -1)
	if err := f.sync(t, c); err != nil {
		t.Fatal(err)
	}
	if len(f.updates) != 0 {
		t.Fatalf("scaled down with a pod missing metrics: %v", f.updates)
	}
	// Two busy pods and one not ready: scaling up counts the unready one
	// at 0: (200+200+0)/3 = 133% of the request, 2.67 times the target:
	// ceil(3*2.67) = 8, capped by the default policy at max(3+4, 3*2) = 7.
	f.setPods(t, 200, 200, 200)
	p, _ := f.pods.GetByKey("ns/web-2")
	p.Status.Conditions[0].Status = corev1.ConditionFalse
	if err := f.sync(t, c); err != nil {
		t.Fatal(err)
	}
	if got := f.scale.Spec.Replicas; got != 7 {
		t.Errorf("replicas = %d, want 7 (8 proposed, capped by the +4 pods policy)", got)
	}
}

func TestFailures(t *testing.T) {
	t.Run("metrics API down", func(t *testing.T) {
		f, c := newCluster(t, autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 10, Metrics: cpuUtilization(50)})
		f.setPods(t, 100, 100)
		f.metrErr = errors.New(`the server could not find the requested resource (get pods.metrics.k8s.io)`)
		if err := f.sync(t, c); err == nil {
			t.Fatal("sync succeeded without metrics")
		}
		h := f.hpa()
		if condition(h, autoscalingv2.ScalingActive) != "False/FailedGetResourceMetric" || len(f.updates) != 0 || h.Status.DesiredReplicas != 2 {
			t.Errorf("ScalingActive %s, updates %v, desired %d", condition(h, autoscalingv2.ScalingActive), f.updates, h.Status.DesiredReplicas)
		}
		// The controller's sync reports it in the status, not as an
		// error that would retry at once.
		if err := c.sync(t.Context(), "ns/web"); err != nil {
			t.Errorf("sync = %v, want nil", err)
		}
		if len(f.events) != 2 || f.events[0] != "FailedGetResourceMetric: unable to get metrics for resource cpu: the server could not find the requested resource (get pods.metrics.k8s.io)" {
			t.Errorf("events = %q", f.events)
		}
	})
	t.Run("missing request", func(t *testing.T) {
		f, c := newCluster(t, autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 10, Metrics: cpuUtilization(50)})
		f.setPods(t, 100)
		p, _ := f.pods.GetByKey("ns/web-0")
		p.Spec.Containers[0].Resources.Requests = nil
		if err := f.sync(t, c); err == nil || !strings.Contains(err.Error(), "missing request for cpu in container c of Pod web-0") {
			t.Fatalf("sync = %v", err)
		}
	})
	t.Run("no scale", func(t *testing.T) {
		f, c := newCluster(t, autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 10})
		f.scaleErr = errors.New(`deployments.apps "web" not found`)
		if err := f.sync(t, c); err == nil {
			t.Fatal("sync succeeded without a scale")
		}
		if got := condition(f.hpa(), autoscalingv2.AbleToScale); got != "False/FailedGetScale" {
			t.Errorf("AbleToScale = %s", got)
		}
	})
	t.Run("unsupported metric type", func(t *testing.T) {
		f, c := newCluster(t, autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 10, Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ExternalMetricSourceType}}})
		f.setPods(t, 100)
		if err := f.sync(t, c); err == nil {
			t.Fatal("sync succeeded on an external metric")
		}
		if got := condition(f.hpa(), autoscalingv2.ScalingActive); got != "False/FailedGetExternalMetric" {
			t.Errorf("ScalingActive = %s", got)
		}
	})
	t.Run("target scaled to zero", func(t *testing.T) {
		f, c := newCluster(t, autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 10})
		if err := f.sync(t, c); err != nil {
			t.Fatal(err)
		}
		if got := condition(f.hpa(), autoscalingv2.ScalingActive); got != "False/ScalingDisabled" || len(f.updates) != 0 {
			t.Errorf("ScalingActive = %s, updates %v", got, f.updates)
		}
	})
}

func TestAverageValueMemory(t *testing.T) {
	avg := resource.MustParse("32Mi")
	f, c := newCluster(t, autoscalingv2.HorizontalPodAutoscalerSpec{MaxReplicas: 10, Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceMemory, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: &avg}}}}})
	f.setPods(t, 64<<20, 64<<20) // the fake reports its numbers as they are: bytes here
	if err := f.sync(t, c); err != nil {
		t.Fatal(err)
	}
	h := f.hpa()
	if f.scale.Spec.Replicas != 4 || h.Status.CurrentMetrics[0].Resource.Current.AverageValue.String() != "64Mi" {
		t.Errorf("replicas %d, current %+v", f.scale.Spec.Replicas, h.Status.CurrentMetrics)
	}
}

func TestStabilizeAndLimit(t *testing.T) {
	now := time.Unix(1000, 0)
	hist := []recommendation{{now.Add(-100 * time.Second), 8}, {now.Add(-10 * time.Second), 5}}
	for _, tc := range []struct {
		current, desired int32
		up, down         time.Duration
		want             int32
	}{
		{current: 6, desired: 3, down: 300 * time.Second, want: 6}, // highest of the window is 8, capped at current
		{current: 6, desired: 3, down: 50 * time.Second, want: 5},  // only the 5 is in the window
		{current: 6, desired: 3, down: 0, want: 3},                 // no window
		{current: 3, desired: 9, up: 60 * time.Second, want: 5},    // lowest of the up window is 5
		{current: 3, desired: 9, up: 0, down: 300 * time.Second, want: 9},
	} {
		if got, _ := stabilize(now, tc.current, tc.desired, hist, tc.up, tc.down); got != tc.want {
			t.Errorf("stabilize(%d -> %d, up %v, down %v) = %d, want %d", tc.current, tc.desired, tc.up, tc.down, got, tc.want)
		}
	}
	down := defaultScaleDown(300 * time.Second)
	if got := limitChange(now, 10, 1, down, nil); got != 1 {
		t.Errorf("default scale down 10 -> 1 = %d, want 1 (100%% per 15 s)", got)
	}
	pods := autoscalingv2.HPAScalingRules{Policies: []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PodsScalingPolicy, Value: 2, PeriodSeconds: 60}}}
	events := []scaleEvent{{now.Add(-30 * time.Second), -1}}
	if got := limitChange(now, 10, 1, pods, events); got != 9 {
		t.Errorf("2 pods per minute with 1 removed 30 s ago: 10 -> %d, want 9", got)
	}
	disabled := autoscalingv2.DisabledPolicySelect
	if got := limitChange(now, 10, 1, autoscalingv2.HPAScalingRules{SelectPolicy: &disabled, Policies: pods.Policies}, nil); got != 10 {
		t.Errorf("disabled scale down = %d, want 10", got)
	}
}
