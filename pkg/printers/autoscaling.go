package printers

import (
	"fmt"
	"strings"
	"time"

	autoscalingv2 "kubecore.io/api/autoscaling/v2"
	"kubecore.io/apimachinery/pkg/api/resource"
	metav1 "kubecore.io/apimachinery/pkg/apis/meta/v1"
	"kubecore.io/apimachinery/pkg/runtime/schema"

	"kubecore.io/kubecore/pkg/registry/rest"
)

// autoscalingTableConvertor returns the printer of horizontalpodautoscalers
// (autoscaling/v1 is converted to v2 before it prints), nil for other
// resources.
func autoscalingTableConvertor(gr schema.GroupResource, now func() time.Time) rest.TableConvertor {
	if gr == autoscalingv2.Resource("horizontalpodautoscalers") {
		return newPrinter(now, autoscalingv2.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler"), hpaColumns(), printHPA,
			func(l *autoscalingv2.HorizontalPodAutoscalerList) []autoscalingv2.HorizontalPodAutoscaler {
				return l.Items
			})
	}
	return nil
}

func hpaColumns() []metav1.TableColumnDefinition {
	return []metav1.TableColumnDefinition{
		nameColumn(),
		column("Reference", "string", "reference to scaled resource; horizontal pod autoscaler will learn the current resource consumption and will set the desired number of pods by using its Scale subresource."),
		column("Targets", "string", "metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used)."),
		column("MinPods", "string", "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down."),
		column("MaxPods", "integer", "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up."),
		column("Replicas", "integer", "currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler."),
		ageColumn(),
	}
}

func printHPA(c *printContext, hpa *autoscalingv2.HorizontalPodAutoscaler) (row, error) {
	ref := hpa.Spec.ScaleTargetRef.Kind + "/" + hpa.Spec.ScaleTargetRef.Name
	minPods := "<unset>"
	if hpa.Spec.MinReplicas != nil {
		minPods = fmt.Sprintf("%d", *hpa.Spec.MinReplicas)
	}
	return row{cells: []any{
		hpa.Name, ref, hpaTargets(hpa.Spec.Metrics, hpa.Status.CurrentMetrics), minPods,
		int64(hpa.Spec.MaxReplicas), int64(hpa.Status.CurrentReplicas), c.age(hpa.CreationTimestamp),
	}}, nil
}

// hpaTargets renders "current/target" for the first two metrics, as
// kubectl does, "<unknown>" for a current value not yet observed.
func hpaTargets(specs []autoscalingv2.MetricSpec, statuses []autoscalingv2.MetricStatus) string {
	if len(specs) == 0 {
		return "<none>"
	}
	const shown = 2
	var list []string
	for i, spec := range specs {
		var st *autoscalingv2.MetricStatus
		if i < len(statuses) {
			st = &statuses[i]
		}
		list = append(list, hpaTarget(spec, st))
	}
	if len(list) > shown {
		return fmt.Sprintf("%s + %d more...", strings.Join(list[:shown], ", "), len(list)-shown)
	}
	return strings.Join(list, ", ")
}

func hpaTarget(spec autoscalingv2.MetricSpec, st *autoscalingv2.MetricStatus) string {
	const unknown = "<unknown>"
	current := unknown
	switch spec.Type {
	case autoscalingv2.ExternalMetricSourceType:
		if spec.External == nil {
			break
		}
		if t := spec.External.Target; t.AverageValue != nil {
			if st != nil && st.External != nil && st.External.Current.AverageValue != nil {
				current = st.External.Current.AverageValue.String()
			}
			return fmt.Sprintf("%s/%s (avg)", current, t.AverageValue.String())
		}
		if st != nil && st.External != nil && st.External.Current.Value != nil {
			current = st.External.Current.Value.String()
		}
		return fmt.Sprintf("%s/%s", current, quantityString(spec.External.Target.Value))
	case autoscalingv2.PodsMetricSourceType:
		if spec.Pods == nil {
			break
		}
		if st != nil && st.Pods != nil && st.Pods.Current.AverageValue != nil {
			current = st.Pods.Current.AverageValue.String()
		}
		return fmt.Sprintf("%s/%s", current, quantityString(spec.Pods.Target.AverageValue))
	case autoscalingv2.ObjectMetricSourceType:
		if spec.Object == nil {
			break
		}
		if t := spec.Object.Target; t.AverageValue != nil {
			if st != nil && st.Object != nil && st.Object.Current.AverageValue != nil {
				current = st.Object.Current.AverageValue.String()
			}
			return fmt.Sprintf("%s/%s (avg)", current, t.AverageValue.String())
		}
		if st != nil && st.Object != nil && st.Object.Current.Value != nil {
			current = st.Object.Current.Value.String()
		}
		return fmt.Sprintf("%s/%s", current, quantityString(spec.Object.Target.Value))
	case autoscalingv2.ResourceMetricSourceType:
		if spec.Resource == nil {
			break
		}
		var cur *autoscalingv2.MetricValueStatus
		if st != nil && st.Resource != nil {
			cur = &st.Resource.Current
		}
		return string(spec.Resource.Name) + ": " + resourceTarget(spec.Resource.Target, cur)
	case autoscalingv2.ContainerResourceMetricSourceType:
		if spec.ContainerResource == nil {
			break
		}
		var cur *autoscalingv2.MetricValueStatus
		if st != nil && st.ContainerResource != nil {
			cur = &st.ContainerResource.Current
		}
		return string(spec.ContainerResource.Name) + ": " + resourceTarget(spec.ContainerResource.Target, cur)
	}
	return "<unknown type>"
}

// resourceTarget renders a resource metric: an average value, or a
// utilization in percent.
func resourceTarget(t autoscalingv2.MetricTarget, cur *autoscalingv2.MetricValueStatus) string {
	current := "<unknown>"
	if t.AverageValue != nil {
		if cur != nil && cur.AverageValue != nil {
			current = cur.AverageValue.String()
		}
		return current + "/" + t.AverageValue.String()
	}
	if cur != nil && cur.AverageUtilization != nil {
		current = fmt.Sprintf("%d%%", *cur.AverageUtilization)
	}
	target := "<auto>"
	if t.AverageUtilization != nil {
		target = fmt.Sprintf("%d%%", *t.AverageUtilization)
	}
	return current + "/" + target
}

// quantityString is q's string, "<nil>" for none.
func quantityString(q *resource.Quantity) string {
	if q == nil {
		return "<nil>"
	}
	return q.String()
}
