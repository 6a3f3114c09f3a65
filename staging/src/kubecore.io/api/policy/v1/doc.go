// +kubecore:deepcopy-gen=package

// Package v1 holds the policy/v1 types: Eviction, the body of a pod's
// eviction subresource, and PodDisruptionBudget, which limits evictions.
package v1
