package v1

import (
	"reflect"
	"testing"
	"time"

	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	autoscalingv2 "kubecore.io/api/autoscaling/v2"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func TestRoundTrip(t *testing.T) {
	ptr := func(v int32) *int32 { return &v }
	observed, scaled := int64(4), metav1.NewTime(time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC))
	in := &autoscalingv1.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"},
		Spec: autoscalingv1.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv1.CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"},
			MinReplicas:    ptr(2), MaxReplicas: 5, TargetCPUUtilizationPercentage: ptr(60),
		},
		Status: autoscalingv1.HorizontalPodAutoscalerStatus{CurrentReplicas: 2, DesiredReplicas: 3, CurrentCPUUtilizationPercentage: ptr(90),
			ObservedGeneration: &observed, LastScaleTime: &scaled},
	}
	v2 := ToV2(in, nil)
	if v2.Status.ObservedGeneration == in.Status.ObservedGeneration || *v2.Status.ObservedGeneration != 4 || !v2.Status.LastScaleTime.Equal(&scaled) {
		t.Fatalf("v2 status %+v: want copies of the observed generation and last scale time", v2.Status)
	}
	if got := v2.Spec.Metrics; len(got) != 1 || *got[0].Resource.Target.AverageUtilization != 60 || got[0].Resource.Name != "cpu" {
		t.Fatalf("v2 metrics %+v", got)
	}
	if back := ToV1(v2); !reflect.DeepEqual(back, in) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", back, in)
	}

	// A v1 update keeps what only v2 says.
	mem := autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: "memory", Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: new(resource.MustParse("1Gi"))}}}
	base := v2.DeepCopy()
	base.Spec.Metrics = append(base.Spec.Metrics, mem)
	base.Spec.Behavior = &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr(30)}}
	in.Spec.TargetCPUUtilizationPercentage = ptr(70)
	got := ToV2(in, base)
	if len(got.Spec.Metrics) != 2 || *got.Spec.Metrics[0].Resource.Target.AverageUtilization != 70 || !reflect.DeepEqual(got.Spec.Metrics[1], mem) ||
		!reflect.DeepEqual(got.Spec.Behavior, base.Spec.Behavior) {
		t.Fatalf("v1 update over %+v gave %+v", base.Spec, got.Spec)
	}
}
