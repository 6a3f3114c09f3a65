// Package horizontalpodautoscaler serves horizontalpodautoscalers: the
// autoscaling/v2 objects and their status through the generic Store, and
// the autoscaling/v1 view of the same objects by conversion.
package horizontalpodautoscaler

import (
	autoscalingv2 "kubecore.io/api/autoscaling/v2"

	"kubecore.io/kubecore/pkg/apis/autoscaling/validation"
	"kubecore.io/kubecore/pkg/registry/generic"
	"kubecore.io/kubecore/pkg/registry/generic/strategy"
)

// NewStrategy returns the strategy of horizontalpodautoscalers: status
// only through /status, the generation bumped with the spec.
func NewStrategy() *strategy.Strategy[*autoscalingv2.HorizontalPodAutoscaler] {
	return &strategy.Strategy[*autoscalingv2.HorizontalPodAutoscaler]{
		Namespaced:         true,
		StatusSubresource:  true,
		Generation:         true,
		ValidateFunc:       validation.ValidateHorizontalPodAutoscaler,
		ValidateUpdateFunc: validation.ValidateHorizontalPodAutoscalerUpdate,
	}
}

// NewStorage returns the storage of autoscaling/v2 horizontalpodautoscalers
// and their status.
func NewStorage(opts generic.StoreOptions) (*strategy.WithStatus, error) {
	r := strategy.Of[autoscalingv2.HorizontalPodAutoscaler, autoscalingv2.HorizontalPodAutoscalerList](
		autoscalingv2.Resource("horizontalpodautoscalers"), "horizontalpodautoscaler", NewStrategy()).Short("hpa").InCategories("all")
	return strategy.NewWithStatus(opts, r.StatusBy(&strategy.StatusStrategy[*autoscalingv2.HorizontalPodAutoscaler]{ValidateStatus: validation.ValidateHorizontalPodAutoscalerStatusUpdate}))
}
