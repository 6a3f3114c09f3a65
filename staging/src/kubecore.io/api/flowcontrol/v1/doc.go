// +kubecore:deepcopy-gen=package

// Package v1 holds the flowcontrol.apiserver.k8s.io/v1 types of API
// priority and fairness: FlowSchemas classify requests into flows, and
// PriorityLevelConfigurations say how much concurrency each level gets.
package v1
