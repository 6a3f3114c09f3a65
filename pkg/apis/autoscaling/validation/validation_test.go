package validation

import (
	"strings"
	"testing"

	autoscalingv2 "kubecore.io/api/autoscaling/v2"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
)

func ptr[T any](v T) *T { return &v }

func hpa(mutate func(*autoscalingv2.HorizontalPodAutoscalerSpec)) *autoscalingv2.HorizontalPodAutoscaler {
	h := &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"},
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{
			ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: "Deployment", Name: "web", APIVersion: "apps/v1"},
			MinReplicas:    ptr(int32(1)),
			MaxReplicas:    3,
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
				Name: "cpu", Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr(int32(50))}}}},
		},
	}
	if mutate != nil {
		mutate(&h.Spec)
	}
	return h
}

func TestValidateHorizontalPodAutoscaler(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*autoscalingv2.HorizontalPodAutoscalerSpec)
		want   string
	}{
		{"valid", nil, ""},
		{"min above max", func(s *autoscalingv2.HorizontalPodAutoscalerSpec) { s.MinReplicas = ptr(int32(5)) }, "spec.maxReplicas: Invalid value: 3: must be greater than or equal to `minReplicas`"},
		{"min zero", func(s *autoscalingv2.HorizontalPodAutoscalerSpec) { s.MinReplicas = ptr(int32(0)) }, "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1"},
		{"max zero", func(s *autoscalingv2.HorizontalPodAutoscalerSpec) { s.MaxReplicas, s.MinReplicas = 0, nil }, "spec.maxReplicas: Invalid value: 0: must be greater than 0"},
		{"no target kind", func(s *autoscalingv2.HorizontalPodAutoscalerSpec) { s.ScaleTargetRef.Kind = "" }, "spec.scaleTargetRef.kind: Required value"},
		{"bad target name", func(s *autoscalingv2.HorizontalPodAutoscalerSpec) { s.ScaleTargetRef.Name = "a/b" }, `spec.scaleTargetRef.name: Invalid value: "a/b": may not contain '/'`},
		{"no metric type", func(s *autoscalingv2.HorizontalPodAutoscalerSpec) { s.Metrics[0].Type = "" }, "spec.metrics[0].type: Required value: must specify a metric source type"},
		{"unknown metric type", func(s *autoscalingv2.HorizontalPodAutoscalerSpec) { s.Metrics[0].Type = "Magic" },
			`spec.metrics[0].type: Unsupported value: "Magic": supported values: "Object", "Pods", "Resource", "External", "ContainerResource"`},
		{"two sources", func(s *autoscalingv2.HorizontalPodAutoscalerSpec) {
			s.Metrics[0].Pods = &autoscalingv2.PodsMetricSource{Metric: autoscalingv2.MetricIdentifier{Name: "qps"}, Target: autoscalingv2.MetricTarget{Type: "AverageValue", AverageValue: ptr(resource.MustParse("1"))}}
		}, "spec.metrics[0].pods: Forbidden: must populate the given metric source only"},
		{"utilization zero", func(s *autoscalingv2.HorizontalPodAutoscalerSpec) {
			s.Metrics[0].Resource.Target.AverageUtilization = ptr(int32(0))
		},
			"spec.metrics[0].resource.target.averageUtilization: Invalid value: 0: must be greater than 0"},
		{"no resource target", func(s *autoscalingv2.HorizontalPodAutoscalerSpec) {
			s.Metrics[0].Resource.Target.AverageUtilization = nil
		},
			"spec.metrics[0].resource.target.averageUtilization: Required value: must set either a target raw value or a target utilization"},
		{"bad target type", func(s *autoscalingv2.HorizontalPodAutoscalerSpec) { s.Metrics[0].Resource.Target.Type = "Most" },
			`spec.metrics[0].resource.target.type: Invalid value: "Most": must be either Utilization, Value, or AverageValue`},
		{"behavior", func(s *autoscalingv2.HorizontalPodAutoscalerSpec) {
			s.Behavior = &autoscalingv2.HorizontalPodAutoscalerBehavior{ScaleUp: &autoscalingv2.HPAScalingRules{
				StabilizationWindowSeconds: ptr(int32(4000)),
				Policies:                   []autoscalingv2.HPAScalingPolicy{{Type: "Nodes", Value: 0, PeriodSeconds: 2000}},
			}}
		}, `spec.behavior.scaleUp.stabilizationWindowSeconds: Invalid value: 4000: must be less than or equal to 3600; spec.behavior.scaleUp.policies[0].type: Unsupported value: "Nodes": supported values: "Percent", "Pods"; spec.behavior.scaleUp.policies[0].value: Invalid value: 0: must be greater than zero; spec.behavior.scaleUp.policies[0].periodSeconds: Invalid value: 2000: must be less than or equal to 1800`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range ValidateHorizontalPodAutoscaler(hpa(tc.mutate)) {
				got = append(got, e.Error())
			}
			g := strings.Join(got, "; ")
			if tc.want == "" && g != "" || !strings.Contains(g, tc.want) {
				t.Errorf("got  %q\nwant %q", g, tc.want)
			}
		})
	}
}
