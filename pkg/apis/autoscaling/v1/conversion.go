// Package v1 registers the autoscaling/v1 kinds with a server's scheme,
// with their defaults, and converts the autoscaling/v1
// HorizontalPodAutoscaler to and from autoscaling/v2, the version stored.
package v1

import (
	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	autoscalingv2 "kubecore.io/api/autoscaling/v2"
	corev1 "kubecore.io/api/core/v1"
	"kubecore.io/apimachinery/pkg/runtime"
)

// AddToScheme registers the autoscaling/v1 kinds and their defaults.
func AddToScheme(s *runtime.Scheme) error {
	if err := autoscalingv1.AddToScheme(s); err != nil {
		return err
	}
	runtime.AddDefaultingFunc(s, SetDefaultsHorizontalPodAutoscaler)
	return nil
}

// SetDefaultsHorizontalPodAutoscaler: at least one replica. The CPU
// target's default is v2's, applied after conversion.
func SetDefaultsHorizontalPodAutoscaler(hpa *autoscalingv1.HorizontalPodAutoscaler) {
	if hpa.Spec.MinReplicas == nil {
		one := int32(1)
		hpa.Spec.MinReplicas = &one
	}
}

// isCPUUtilization reports whether m is the metric v1 knows: the average
// CPU utilization of the pods.
func isCPUUtilization(m autoscalingv2.MetricSpec) bool {
	return m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU &&
		m.Resource.Target.Type == autoscalingv2.UtilizationMetricType && m.Resource.Target.AverageUtilization != nil
}

// ToV1 converts a stored autoscaler to autoscaling/v1: the target CPU
// utilization is that of its CPU utilization metric, the current one
// that of the matching status metric; other metrics, the behavior and the
// conditions have no place in v1.
func ToV1(in *autoscalingv2.HorizontalPodAutoscaler) *autoscalingv1.HorizontalPodAutoscaler {
	out := &autoscalingv1.HorizontalPodAutoscaler{ObjectMeta: *in.ObjectMeta.DeepCopy()}
	if !in.TypeMeta.GroupVersionKind().Empty() {
		out.TypeMeta = in.TypeMeta
		out.APIVersion = autoscalingv1.SchemeGroupVersion.String()
	}
	out.Spec = autoscalingv1.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: autoscalingv1.CrossVersionObjectReference(in.Spec.ScaleTargetRef),
		MinReplicas:    copyOf(in.Spec.MinReplicas),
		MaxReplicas:    in.Spec.MaxReplicas,
	}
	for _, m := range in.Spec.Metrics {
		if isCPUUtilization(m) {
			out.Spec.TargetCPUUtilizationPercentage = copyOf(m.Resource.Target.AverageUtilization)
			break
		}
	}
	st := in.Status
	out.Status = autoscalingv1.HorizontalPodAutoscalerStatus{
		ObservedGeneration: copyOf(st.ObservedGeneration),
		LastScaleTime:      copyOf(st.LastScaleTime),
		CurrentReplicas:    st.CurrentReplicas,
		DesiredReplicas:    st.DesiredReplicas,
	}
	for _, m := range st.CurrentMetrics {
		if m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU && m.Resource.Current.AverageUtilization != nil {
			out.Status.CurrentCPUUtilizationPercentage = copyOf(m.Resource.Current.AverageUtilization)
			break
		}
	}
	return out
}

// ToV2 converts an autoscaling/v1 autoscaler to the stored version. base
// is the stored object it replaces (nil on create): what v1 cannot say —
// metrics other than CPU utilization, the behavior, the status metrics
// and conditions — is kept from it, so that a v1 client's update loses
// nothing a v2 client wrote.
func ToV2(in *autoscalingv1.HorizontalPodAutoscaler, base *autoscalingv2.HorizontalPodAutoscaler) *autoscalingv2.HorizontalPodAutoscaler {
	out := &autoscalingv2.HorizontalPodAutoscaler{ObjectMeta: *in.ObjectMeta.DeepCopy()}
	if !in.TypeMeta.GroupVersionKind().Empty() {
		out.TypeMeta = in.TypeMeta
		out.APIVersion = autoscalingv2.SchemeGroupVersion.String()
	}
	out.Spec = autoscalingv2.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: autoscalingv2.CrossVersionObjectReference(in.Spec.ScaleTargetRef),
		MinReplicas:    copyOf(in.Spec.MinReplicas),
		MaxReplicas:    in.Spec.MaxReplicas,
	}
	var kept []autoscalingv2.MetricSpec
	if base != nil {
		for _, m := range base.Spec.Metrics {
			if !isCPUUtilization(m) {
				kept = append(kept, *m.DeepCopy())
			}
		}
		if base.Spec.Behavior != nil {
			out.Spec.Behavior = base.Spec.Behavior.DeepCopy()
		}
	}
	if t := in.Spec.TargetCPUUtilizationPercentage; t != nil {
		out.Spec.Metrics = append(out.Spec.Metrics, cpuMetric(*t))
	}
	out.Spec.Metrics = append(out.Spec.Metrics, kept...)

	st := in.Status
	out.Status = autoscalingv2.HorizontalPodAutoscalerStatus{
		ObservedGeneration: copyOf(st.ObservedGeneration),
		LastScaleTime:      copyOf(st.LastScaleTime),
		CurrentReplicas:    st.CurrentReplicas,
		DesiredReplicas:    st.DesiredReplicas,
	}
	var keptStatus []autoscalingv2.MetricStatus
	if base != nil {
		for _, m := range base.Status.CurrentMetrics {
			if !(m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil && m.Resource.Name == corev1.ResourceCPU) {
				keptStatus = append(keptStatus, *m.DeepCopy())
			}
		}
		for _, c := range base.Status.Conditions {
			out.Status.Conditions = append(out.Status.Conditions, *c.DeepCopy())
		}
	}
	if c := st.CurrentCPUUtilizationPercentage; c != nil {
		u := *c
		out.Status.CurrentMetrics = append(out.Status.CurrentMetrics, autoscalingv2.MetricStatus{
			Type:     autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: &u}},
		})
	}
	out.Status.CurrentMetrics = append(out.Status.CurrentMetrics, keptStatus...)
	return out
}

func cpuMetric(utilization int32) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{
			Name:   corev1.ResourceCPU,
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &utilization},
		},
	}
}

func copyOf[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
