// Package podautoscaler holds the integration tests of the
// HorizontalPodAutoscaler controller against a real API server: it scales
// a Deployment through its scale subresource from the pod metrics a small
// metrics.k8s.io backend serves, and writes the HPA's status.
package podautoscaler

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	appsv1 "kubecore.io/api/apps/v1"
	autoscalingv2 "kubecore.io/api/autoscaling/v2"
	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/client/informers"
	"kubecore.io/client/rest"

	"kubecore.io/kubecore/pkg/controller/podautoscaler"
	"kubecore.io/kubecore/test/integration/framework"
)

var testEtcd *framework.Etcd

func TestMain(m *testing.M) { os.Exit(framework.RunWithEtcd(m, &testEtcd)) }

// metricsBackend serves metrics.k8s.io/v1beta1 PodMetricsLists of the
// pods it is told about, as metrics-server would, and records the label
// selectors it was asked for.
type metricsBackend struct {
	mu        sync.Mutex
	cpu       map[string]string // pod -> cpu usage quantity
	selectors []string
}

func (b *metricsBackend) set(cpu map[string]string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.cpu = cpu
}

func (b *metricsBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.selectors = append(b.selectors, r.URL.Query().Get("labelSelector"))
	type container struct {
		Name  string            `json:"name"`
		Usage map[string]string `json:"usage"`
	}
	type item struct {
		Metadata   metav1.ObjectMeta `json:"metadata"`
		Timestamp  metav1.Time       `json:"timestamp"`
		Window     string            `json:"window"`
		Containers []container       `json:"containers"`
	}
	list := struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
		Items      []item `json:"items"`
	}{Kind: "PodMetricsList", APIVersion: "metrics.k8s.io/v1beta1", Items: []item{}}
	for pod, cpu := range b.cpu {
		list.Items = append(list.Items, item{Metadata: metav1.ObjectMeta{Name: pod, Namespace: r.PathValue("ns")}, Timestamp: metav1.Now(), Window: "15s",
			Containers: []container{{Name: "app", Usage: map[string]string{"cpu": cpu, "memory": "10Mi"}}}})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(list)
}

func TestHPAScalesDeploymentUpAndDown(t *testing.T) {
	s := framework.StartAPIServer(t, framework.APIServerOptions{Etcd: testEtcd})
	cs := s.Clientset(t)
	ctx := context.Background()
	ns := s.CreateNamespace(t, "hpa")

	// A Deployment of 2 with no deployment controller: the test makes the
	// pods itself, ready, each requesting 100m.
	labels := map[string]string{"app": "web"}
	replicas := int32(2)
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns}, Spec: appsv1.DeploymentSpec{
		Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "busybox"}}}}}}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%d", i), Namespace: ns, Labels: labels}, Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "app", Image: "busybox", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}}}
		created, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		created.Status.Phase = corev1.PodRunning
		created.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		if _, err := cs.CoreV1().Pods(ns).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	backend := &metricsBackend{}
	backend.set(map[string]string{"web-0": "100m", "web-1": "100m"}) // 100% of the request
	mux := http.NewServeMux()
	mux.Handle("GET /apis/metrics.k8s.io/v1beta1/namespaces/{ns}/pods", backend)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	rc, err := rest.NewClient(&rest.Config{Host: srv.URL}, rest.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}

	factory := informers.NewSharedInformerFactory(cs)
	c, err := podautoscaler.New(cs, factory, podautoscaler.Options{Metrics: podautoscaler.RESTMetricsClient{Client: rc}, SyncPeriod: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	framework.RunControllers(t, factory, func(ctx context.Context) error { return c.Run(ctx, 1) })

	minReplicas, target, window := int32(1), int32(50), int32(0)
	hpa := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns}, Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "web"},
		MinReplicas:    &minReplicas, MaxReplicas: 5,
		Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
			Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &target}}}},
		Behavior: &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: &window}},
	}}
	if _, err := cs.AutoscalingV2().HorizontalPodAutoscalers(ns).Create(ctx, hpa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// 100% against 50%: 2 -> 4.
	waitReplicas(t, cs.AppsV1().Deployments(ns), 4)
	var got *autoscalingv2.HorizontalPodAutoscaler
	framework.WaitFor(t, 30*time.Second, "HPA status of the scale up", func() (bool, error) {
		h, err := cs.AutoscalingV2().HorizontalPodAutoscalers(ns).Get(ctx, "web", metav1.GetOptions{})
		got = h
		return err == nil && h.Status.DesiredReplicas == 4 && h.Status.LastScaleTime != nil && len(h.Status.CurrentMetrics) == 1, err
	})
	if u := got.Status.CurrentMetrics[0].Resource.Current.AverageUtilization; u == nil || *u != 100 {
		t.Errorf("current utilization = %v, want 100", u)
	}
	conds := map[autoscalingv2.HorizontalPodAutoscalerConditionType]string{}
	for _, c := range got.Status.Conditions {
		conds[c.Type] = string(c.Status) + "/" + c.Reason
	}
	if conds[autoscalingv2.ScalingActive] != "True/ValidMetricFound" || conds[autoscalingv2.AbleToScale] == "" {
		t.Errorf("conditions = %v", conds)
	}

	// 10% against 50%: down to minReplicas at once (no window).
	backend.set(map[string]string{"web-0": "10m", "web-1": "10m"})
	waitReplicas(t, cs.AppsV1().Deployments(ns), 1)

	backend.mu.Lock()
	defer backend.mu.Unlock()
	if len(backend.selectors) == 0 || backend.selectors[0] != "app=web" {
		t.Errorf("metrics asked with selectors %q, want app=web", backend.selectors)
	}
}

type scaleGetter interface {
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*appsv1.Deployment, error)
}

func waitReplicas(t *testing.T, deps scaleGetter, want int32) {
	t.Helper()
	framework.WaitFor(t, 30*time.Second, fmt.Sprintf("deployment scaled to %d", want), func() (bool, error) {
		d, err := deps.Get(context.Background(), "web", metav1.GetOptions{})
		return err == nil && d.Spec.Replicas != nil && *d.Spec.Replicas == want, err
	})
}
