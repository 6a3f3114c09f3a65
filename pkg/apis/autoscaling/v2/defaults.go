// Package v2 registers the autoscaling/v2 kinds with a server's scheme
// together with their defaults.
package v2

import (
	autoscalingv2 "kubecore.io/api/autoscaling/v2"
	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

// DefaultCPUUtilization is the CPU target of an autoscaler that names no
// metric, in percent of the pods' requests.
const DefaultCPUUtilization = 80

// AddToScheme registers the autoscaling/v2 kinds and their defaults.
func AddToScheme(s *runtime.Scheme) error {
	if err := autoscalingv2.AddToScheme(s); err != nil {
		return err
	}
	runtime.AddDefaultingFunc(s, SetDefaultsHorizontalPodAutoscaler)
	return nil
}

// SetDefaultsHorizontalPodAutoscaler gives an autoscaler Kubernetes'
// defaults: at least one replica, 80% CPU when no metric is named, and
// when a behavior is given, the default rules of each direction it leaves
// out.
func SetDefaultsHorizontalPodAutoscaler(hpa *autoscalingv2.HorizontalPodAutoscaler) {
	if hpa.Spec.MinReplicas == nil {
		one := int32(1)
		hpa.Spec.MinReplicas = &one
	}
	if len(hpa.Spec.Metrics) == 0 {
		u := int32(DefaultCPUUtilization)
		hpa.Spec.Metrics = []autoscalingv2.MetricSpec{{
			Type: autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricSource{
				Name:   corev1.ResourceCPU,
				Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &u},
			},
		}}
	}
	if b := hpa.Spec.Behavior; b != nil {
		b.ScaleUp = withDefaults(b.ScaleUp, ScaleUpDefaults())
		b.ScaleDown = withDefaults(b.ScaleDown, ScaleDownDefaults())
	}
}

// ScaleUpDefaults are the scale-up rules of Kubernetes: no stabilization,
// the larger of 4 pods or 100% per 15 seconds.
func ScaleUpDefaults() autoscalingv2.HPAScalingRules {
	zero, maxPolicy := int32(0), autoscalingv2.MaxChangePolicySelect
	return autoscalingv2.HPAScalingRules{
		StabilizationWindowSeconds: &zero,
		SelectPolicy:               &maxPolicy,
		Policies: []autoscalingv2.HPAScalingPolicy{
			{Type: autoscalingv2.PodsScalingPolicy, Value: 4, PeriodSeconds: 15},
			{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15},
		},
	}
}

// ScaleDownDefaults are the scale-down rules of Kubernetes: the
// controller's stabilization window (left unset), down to 100% per 15
// seconds.
func ScaleDownDefaults() autoscalingv2.HPAScalingRules {
	maxPolicy := autoscalingv2.MaxChangePolicySelect
	return autoscalingv2.HPAScalingRules{
		SelectPolicy: &maxPolicy,
		Policies:     []autoscalingv2.HPAScalingPolicy{{Type: autoscalingv2.PercentScalingPolicy, Value: 100, PeriodSeconds: 15}},
	}
}

// withDefaults fills what rules leave unset from def.
func withDefaults(rules *autoscalingv2.HPAScalingRules, def autoscalingv2.HPAScalingRules) *autoscalingv2.HPAScalingRules {
	if rules == nil {
		return &def
	}
	if rules.StabilizationWindowSeconds == nil {
		rules.StabilizationWindowSeconds = def.StabilizationWindowSeconds
	}
	if rules.SelectPolicy == nil {
		rules.SelectPolicy = def.SelectPolicy
	}
	if len(rules.Policies) == 0 {
		rules.Policies = def.Policies
	}
	return rules
}
