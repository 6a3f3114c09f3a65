// +kubecore:deepcopy-gen=package

// Package v2 holds the autoscaling/v2 types: HorizontalPodAutoscaler, the
// version kubecore stores.
package v2
