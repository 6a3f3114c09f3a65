package horizontalpodautoscaler

import (
	autoscalingv1 "kubecore.io/api/autoscaling/v1"
	autoscalingv2 "kubecore.io/api/autoscaling/v2"

	v1conversion "kubecore.io/kubecore/pkg/apis/autoscaling/v1"
	v2defaults "kubecore.io/kubecore/pkg/apis/autoscaling/v2"
	"kubecore.io/kubecore/pkg/registry/generic"
)

type v1View = generic.ViewOf[autoscalingv1.HorizontalPodAutoscaler, autoscalingv1.HorizontalPodAutoscalerList,
	autoscalingv2.HorizontalPodAutoscaler, autoscalingv2.HorizontalPodAutoscalerList]

// V1 serves autoscaling/v1 horizontalpodautoscalers (and their /status)
// from the autoscaling/v2 storage: every object read is converted to v1,
// every object written to v2 over the stored one, keeping what v1 cannot
// express.
func V1() v1View {
	return v1View{
		Resource: autoscalingv1.Resource("horizontalpodautoscalers"),
		Kind:     "HorizontalPodAutoscaler",
		ToView:   v1conversion.ToV1,
		ToStored: toV2,
		ViewItems: func(l *autoscalingv1.HorizontalPodAutoscalerList) *[]autoscalingv1.HorizontalPodAutoscaler {
			return &l.Items
		},
		StoredItems: func(l *autoscalingv2.HorizontalPodAutoscalerList) *[]autoscalingv2.HorizontalPodAutoscaler {
			return &l.Items
		},
	}
}

// toV2 converts and applies v2's defaults, which give an autoscaler
// without a CPU target its default metric.
func toV2(in *autoscalingv1.HorizontalPodAutoscaler, base *autoscalingv2.HorizontalPodAutoscaler) *autoscalingv2.HorizontalPodAutoscaler {
	out := v1conversion.ToV2(in, base)
	v2defaults.SetDefaultsHorizontalPodAutoscaler(out)
	return out
}
