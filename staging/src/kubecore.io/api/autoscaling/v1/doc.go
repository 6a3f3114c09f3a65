// +kubecore:deepcopy-gen=package

// Package v1 holds the autoscaling/v1 types kubecore serves: Scale, the body
// of the scale subresource of Deployments, ReplicaSets and StatefulSets, and
// the HorizontalPodAutoscaler of autoscaling/v1 (converted from v2).
package v1
