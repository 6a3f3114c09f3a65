// +kubecore:deepcopy-gen=package

// Package v1 holds the coordination.k8s.io/v1 types: Lease, the object
// leader election and node heartbeats renew.
package v1
