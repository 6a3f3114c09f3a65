// +kubecore:deepcopy-gen=package

// Package v1 holds the scheduling.k8s.io/v1 types: PriorityClass, which maps
// a pod's priorityClassName to the integer priority the scheduler uses.
package v1
